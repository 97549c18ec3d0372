package options

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
)

// The unsafe switches (--insecure-…) weaken what a command checks. Each was
// renamed from an older spelling, still read as deprecated. Two rules hold
// for all of them:
//   - a switch given under both its name and its deprecated spelling is a
//     usage error, whatever the values: no order or value decides which one
//     a user meant, so none is guessed (RefuseBothSpellings);
//   - a switch in effect says so on stderr, one line, as cosign does for its
//     insecure flags (WarnInsecure); stdout, where the reports go, is
//     unchanged.

// RefuseBothSpellings returns a usage error (exit 2, before the command
// runs) when c was given both the switch name and its deprecated spelling
// old (flag names without dashes); oldShown is how the deprecated spelling
// is written on the command line ("--sigstore-tlog-threshold 0").
func RefuseBothSpellings(c *cobra.Command, name, old, oldShown string) error {
	if c.Flags().Changed(name) && c.Flags().Changed(old) {
		return &cmdutil.FlagError{Err: fmt.Errorf("give one: --%s (%s is its deprecated spelling)", name, oldShown)}
	}
	return nil
}

// WarnInsecure writes on c's stderr the one line saying that the unsafe
// switch name (without dashes) is in effect and what it lets through.
func WarnInsecure(c *cobra.Command, name, what string) {
	fmt.Fprintf(c.ErrOrStderr(), "WARNING: --%s: %s\n", name, what)
}

// chainPreRunE makes check run before c's PreRunE (set so far), so that
// option groups added to the same command each check their own flags.
func chainPreRunE(c *cobra.Command, check func(c *cobra.Command) error) {
	prev := c.PreRunE
	c.PreRunE = func(c *cobra.Command, args []string) error {
		if err := check(c); err != nil {
			return err
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}
