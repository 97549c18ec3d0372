package options

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/trust"
)

// TrustOptions are the verifier's own trust inputs: allowed signers (a file,
// or one read from git), OpenPGP keyrings and PEM public keys, and for the
// commands that read Sigstore bundles the Sigstore trust.
type TrustOptions struct {
	Sources trust.Sources
	// KeyFlag names the PEM public key flag (default "key"): a command that
	// also signs uses --key for its signing key.
	KeyFlag string
	// For says what the trust is for in the flags' help ("" for the
	// signatures a command verifies).
	For string
}

// AddFlags declares the allowed signers, keyring and PEM key flags on c.
func (o *TrustOptions) AddFlags(c *cobra.Command) {
	key := o.KeyFlag
	if key == "" {
		key = "key"
	}
	keyUsage := "PEM public key `FILE` (repeatable): raw signatures, and Sigstore bundles signed with that key (cosign attest-blob --key)"
	if o.For != "" {
		keyUsage = "PEM public key `FILE` (repeatable)"
	}
	c.Flags().StringVar(&o.Sources.AllowedSigners, "allowed-signers", "", o.For+"allowed signers `FILE` (git's format)")
	c.Flags().StringVar(&o.Sources.AllowedSignersRev, "allowed-signers-rev", "", o.For+"allowed signers file read from git, as `REV:PATH`")
	c.Flags().StringSliceVar(&o.Sources.Keyrings, "keyring", nil, o.For+"OpenPGP public keyring `FILE` (repeatable)")
	c.Flags().StringSliceVar(&o.Sources.RawKeys, key, nil, o.For+keyUsage)
}

// Given reports whether a key trust flag is given (allowed signers,
// keyrings, PEM keys).
func (o *TrustOptions) Given() bool {
	src := o.Sources
	return src.AllowedSigners != "" || src.AllowedSignersRev != "" || len(src.Keyrings) > 0 || len(src.RawKeys) > 0
}

// AddSigstoreFlags declares the Sigstore trust flags on c; the thresholds
// are recorded in Sources only when given.
func (o *TrustOptions) AddSigstoreFlags(c *cobra.Command) {
	src := &o.Sources
	c.Flags().StringVar(&src.TrustedRoot, "trusted-root", "", "Sigstore trusted root JSON `FILE` (Fulcio CAs, Rekor logs, timestamp authorities)")
	c.Flags().BoolVar(&src.SigstorePublicGood, "sigstore-public-good", false, "trust Sigstore's public-good instance (its trusted root is fetched with TUF: network on first use, then ~/.sigstore/root)")
	c.Flags().StringVar(&src.CertIdentity, "certificate-identity", "", "Sigstore certificate `IDENTITY`, exact (e.g. https://github.com/OWNER/REPO/.github/workflows/release.yml@refs/heads/main)")
	c.Flags().StringVar(&src.CertIdentityRegexp, "certificate-identity-regexp", "", "Sigstore certificate identity as a regular expression `RE`, always anchored: matched as ^(?:RE)$")
	c.Flags().StringVar(&src.CertOIDCIssuer, "certificate-oidc-issuer", "", "Sigstore certificate OIDC issuer `URL`, exact (e.g. https://token.actions.githubusercontent.com); required with an identity")
	tlog := c.Flags().Int("sigstore-tlog-threshold", 1, "how many (`N`) transparency log entries a Sigstore bundle needs, at least 1 (none: --insecure-ignore-tlog)")
	ignoreTlog := c.Flags().Bool("insecure-ignore-tlog", false, "accept Sigstore bundles without a transparency log entry (a signature nobody can audit or revoke: unsafe)")
	ts := c.Flags().Int("sigstore-timestamp-threshold", 0, "how many (`N`) RFC 3161 signed timestamps a Sigstore bundle needs")
	prev := c.PreRunE
	c.PreRunE = func(c *cobra.Command, args []string) error {
		// A negative count is a typo, refused as one (exit 2) before the
		// trust it would configure is loaded.
		if *tlog < 0 {
			return &cmdutil.FlagError{Err: fmt.Errorf("--sigstore-tlog-threshold %d: want a count of transparency log entries, 1 or more (none: --insecure-ignore-tlog)", *tlog)}
		}
		if *ts < 0 {
			return &cmdutil.FlagError{Err: fmt.Errorf("--sigstore-timestamp-threshold %d: want a count of signed timestamps, 0 or more", *ts)}
		}
		// --sigstore-tlog-threshold 0 is the deprecated spelling of
		// --insecure-ignore-tlog.
		if *tlog == 0 {
			if err := RefuseBothSpellings(c, "insecure-ignore-tlog", "sigstore-tlog-threshold", "--sigstore-tlog-threshold 0"); err != nil {
				return err
			}
		}
		if *ignoreTlog {
			if c.Flags().Changed("sigstore-tlog-threshold") {
				return &cmdutil.FlagError{Err: fmt.Errorf("--insecure-ignore-tlog accepts bundles without a transparency log entry, --sigstore-tlog-threshold %d requires some: give one", *tlog)}
			}
			zero := 0
			src.SigstoreTlogThreshold = &zero
		} else if c.Flags().Changed("sigstore-tlog-threshold") {
			if *tlog == 0 {
				// The old spelling of --insecure-ignore-tlog, still read, as
				// cobra notes a deprecated flag.
				fmt.Fprintln(c.ErrOrStderr(), "Flag --sigstore-tlog-threshold 0 has been deprecated, use --insecure-ignore-tlog instead")
			}
			src.SigstoreTlogThreshold = tlog
		}
		if t := src.SigstoreTlogThreshold; t != nil && *t == 0 {
			WarnInsecure(c, "insecure-ignore-tlog", "Sigstore bundles without a transparency log entry are accepted; their signatures can be neither audited nor revoked")
		}
		if c.Flags().Changed("sigstore-timestamp-threshold") {
			src.SigstoreTimestampThreshold = ts
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// PolicyOptions are the verifier's policy inputs: a file, or one read from
// git.
type PolicyOptions struct {
	Source policy.Source
}

// AddFlags declares --policy and --policy-rev on c.
func (o *PolicyOptions) AddFlags(c *cobra.Command) {
	c.Flags().StringVar(&o.Source.File, "policy", "", "policy `FILE` (TOML; default: the embedded default policy)")
	c.Flags().StringVar(&o.Source.Rev, "policy-rev", "", "policy file read from git, as `REV:PATH` (e.g. the base branch's copy)")
}
