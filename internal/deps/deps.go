//go:build tools

// Package deps pins the modules taskproof is built on (see docs/architecture.md),
// so that `go mod tidy` keeps them while the packages that use them grow.
package deps

import (
	_ "cel.dev/cel-go/cel"
	_ "github.com/ProtonMail/go-crypto/openpgp"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/hiddeco/sshsig"
	_ "github.com/in-toto/attestation/go/v1"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/secure-systems-lab/go-securesystemslib/dsse"
	_ "github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	_ "github.com/sigstore/sigstore-go/pkg/verify"
	_ "github.com/spf13/cobra"
)
