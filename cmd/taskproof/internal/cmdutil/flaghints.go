package cmdutil

import (
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/evidence"
	"github.com/taskproof/taskproof/trust"
)

// WithTrustFlags names the trust flags on trust.LoadTrust's error when no
// trust input was given (the library names the inputs, not the flags); keyFlag
// is the command's flag for PEM public keys. Sigstore's incomplete options get
// the Sigstore trust flags.
func WithTrustFlags(err error, keyFlag string) error {
	if errors.Is(err, trust.ErrNoTrust) {
		return fmt.Errorf("%w: pass --allowed-signers FILE, --allowed-signers-rev REV:PATH, --keyring FILE or %s FILE.pem (or set git's gpg.ssh.allowedSignersFile)", err, keyFlag)
	}
	if errors.Is(err, trust.ErrSigstoreOptions) {
		return fmt.Errorf("%w (Sigstore trust: --trusted-root FILE or --sigstore-public-good, with --certificate-identity or --certificate-identity-regexp and --certificate-oidc-issuer)", err)
	}
	return err
}

// WithAttestFlags names the flag that forces a writer (attest tick, decide,
// carry) over statements the note already holds, or over a contradiction of
// the test reports (the library names the concept).
func WithAttestFlags(err error) error {
	var ae *attest.AttestedError
	if errors.As(err, &ae) {
		if ae.Ref == "" && ae.Why == "" {
			// A second signer: co-signing keeps the statements and adds a signature.
			return fmt.Errorf("%w: pass --force to replace them, or add your signature to them with 'taskproof attest sign %s' (docs/format.md#co-signing)", err, Short(ae.Commit))
		}
		return fmt.Errorf("%w: pass --force to replace them", err)
	}
	var ce *evidence.ContradictionError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: pass --force to write it anyway", err)
	}
	return err
}
