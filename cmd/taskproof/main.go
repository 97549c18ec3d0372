// Command taskproof signs and verifies task-verification attestations for
// spec-driven development. See README.md; exit codes: docs/format.md#exit-codes.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/verify"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the CLI with args and returns the process exit code (docs/format.md#exit-codes).
// A panic, on the main goroutine or in any goroutine taskproof starts, is
// taskproof's own bug: exit 5, "internal error" and the stack on stderr.
func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := internalError(panics.Call(root.Execute))
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if !isSilent(err) {
		// Errors quote paths, refs and note text from the repository: each
		// line taskproof writes is escaped, the line breaks between them
		// are its own.
		fmt.Fprintf(os.Stderr, "taskproof: %s\n", verify.Printable(err.Error()))
		if s := suggestionsOf(err); len(s) > 0 {
			fmt.Fprintf(os.Stderr, "\nDid you mean this?\n")
			for _, name := range s {
				fmt.Fprintf(os.Stderr, "\t%s\n", verify.Printable(name))
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
