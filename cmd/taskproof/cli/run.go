package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/internal/printable"
)

// Main executes the command line args with ctx and returns the process exit
// code (docs/cli/exit-codes.md), having written any error on stderr. A
// panic, on the main goroutine or in any goroutine taskproof starts, is
// taskproof's own bug: exit 5, "internal error" and the stack on stderr.
func Main(ctx context.Context, args []string) int {
	root := New()
	root.SetArgs(args)
	err := internalError(panics.Call(func() error { return root.ExecuteContext(ctx) }))
	if err == nil {
		return cmdutil.ExitOK
	}
	code := cmdutil.ExitCode(err)
	if !cmdutil.IsSilent(err) {
		fmt.Fprintf(os.Stderr, "taskproof: %s\n", cmdutil.MessageText(err.Error()))
		if s := suggestionsOf(err); len(s) > 0 {
			fmt.Fprintf(os.Stderr, "\nDid you mean this?\n")
			for _, name := range s {
				fmt.Fprintf(os.Stderr, "\t%s\n", printable.String(name))
			}
		}
	}
	var pe *panics.Error
	if errors.As(err, &pe) {
		fmt.Fprintf(os.Stderr, "taskproof: this is a bug in taskproof; the stack where it panicked:\n%s", pe.Stack)
	}
	return code
}

// internalError is err, or the first panic recovered during the command when
// there was one: whatever the code between made of it (wrapped into another
// kind of error, read as a finding, or nothing), the result is not to be
// trusted.
func internalError(err error) error {
	pe := panics.Recovered()
	if pe == nil || errors.As(err, new(*panics.Error)) {
		return err
	}
	return pe
}
