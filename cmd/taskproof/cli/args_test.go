package cli

import (
	"context"
	"os"
	"testing"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
)

// TestExitCodeCobraUsage runs the command line's own usage errors in process:
// cobra's flag and argument errors exit 2 as typed errors, an unknown command
// through the narrow fallback.
func TestExitCodeCobraUsage(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	stderr := os.Stderr
	os.Stderr = devnull
	defer func() { os.Stderr = stderr }()
	for _, args := range [][]string{
		{"bogus"},
		{"ticks", "--bogus-flag"},
		{"ticks", "a..b", "c..d"},
		{"carry", "onlyone"},
		{"init", "extra"},
		{"completion", "bash", "extra"},
		{"attest", "tick", "--verdict"},
	} {
		if got := Main(context.Background(), args); got != cmdutil.ExitUsage {
			t.Errorf("Main(%q) = %d, want %d", args, got, cmdutil.ExitUsage)
		}
	}
}

// TestTypedArgs: after newRootCmd every Args validator of taskproof's own
// commands returns a *cmdutil.FlagError.
func TestTypedArgs(t *testing.T) {
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c.Args != nil {
			n++
			if err := c.Args(c, []string{"a", "b", "c", "d"}); err != nil && !cmdutil.IsType[*cmdutil.FlagError](err) {
				t.Errorf("%s: Args error %T %q is not a *cmdutil.FlagError", c.CommandPath(), err, err)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(New())
	if n == 0 {
		t.Fatal("no command has an Args validator")
	}
}
