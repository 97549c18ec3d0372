// Command taskproof signs and verifies task-verification attestations for
// spec-driven development. See README.md and docs/format.md#exit-codes for exit codes.
package main

import (
	"fmt"
	"os"

	"github.com/taskproof/taskproof/verify"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run executes the CLI with args and returns the process exit code (docs/format.md#exit-codes).
func run(args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.Execute()
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
	return code
}
