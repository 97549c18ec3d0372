package options

import (
	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/verify"
)

// GateOptions are the verify gate's switches: what it requires of a tick
// beyond verifying.
type GateOptions struct {
	RequireVerified bool
	// AllowUnsigned is --insecure-allow-unsigned: unsigned statements pass.
	AllowUnsigned bool
	// requireSigned is the deprecated --require-signed (=false allows
	// unsigned statements).
	requireSigned bool
}

// AddFlags declares --require-verified and --insecure-allow-unsigned on c,
// and --require-signed, the deprecated spelling of the latter
// (--require-signed=false), still read. Both spellings given is a usage
// error; unsigned statements accepted is a warning on stderr.
func (o *GateOptions) AddFlags(c *cobra.Command) {
	c.Flags().BoolVar(&o.RequireVerified, "require-verified", false, "fail regression_only and attested ticks")
	c.Flags().BoolVar(&o.AllowUnsigned, "insecure-allow-unsigned", false, "accept unsigned statements (anyone who can push a note can then tick a task: unsafe)")
	c.Flags().BoolVar(&o.requireSigned, "require-signed", true, "fail unsigned statements (--require-signed=false accepts them)")
	_ = c.Flags().MarkDeprecated("require-signed", "--require-signed=true is the default: drop it; for --require-signed=false use --insecure-allow-unsigned")
	chainPreRunE(c, func(c *cobra.Command) error {
		if err := RefuseBothSpellings(c, "insecure-allow-unsigned", "require-signed", "--require-signed"); err != nil {
			return err
		}
		if o.Options().AllowUnsigned {
			WarnInsecure(c, "insecure-allow-unsigned", "unsigned statements are accepted; anyone who can push a note can tick a task")
		}
		return nil
	})
}

// Options are the gate options the flags give.
func (o *GateOptions) Options() verify.GateOptions {
	return verify.GateOptions{RequireVerified: o.RequireVerified, AllowUnsigned: o.AllowUnsigned || !o.requireSigned}
}
