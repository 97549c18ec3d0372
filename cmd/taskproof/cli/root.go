package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/cmd/taskproof/cli/attestcmd"
	"github.com/taskproof/taskproof/cmd/taskproof/cli/notescmd"
	"github.com/taskproof/taskproof/cmd/taskproof/cli/options"
	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
	"github.com/taskproof/taskproof/gitref"
)

// New builds taskproof's command tree: the root command and every command
// under it, each from its own constructor.
func New() *cobra.Command {
	root := &cobra.Command{
		Use:   "taskproof",
		Short: "Sign and verify task-verification attestations for spec-driven development",
		Long: `taskproof makes the ticks of a tasks.md checklist trustworthy: each tick commit
carries a signed in-toto Statement (speccoder's task-verification/v0 predicate) in a DSSE
envelope, stored as a git note under refs/notes/speccoder, and merge gates verify them.` + "\n\n" + cmdutil.ExitHelp(),
		Version: attest.Version,
		Example: `  taskproof init                     # once per clone: fetch notes, carry them across rebases
  taskproof attest tick --verdict verified --evidence evidence.json
  taskproof notes push
  taskproof verify --branch --base origin/main --allowed-signers-rev origin/main:.github/allowed_signers
  taskproof completion bash > /etc/bash_completion.d/taskproof`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// -C DIR is git's: taskproof runs as if started in DIR, so a
		// relative path on the command line (a trust file, --json-report)
		// is relative to DIR, as `git -C DIR` reads its arguments.
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			dir, _ := c.Flags().GetString("repo")
			if dir == "" || dir == "." {
				return nil
			}
			if err := os.Chdir(dir); err != nil {
				return fmt.Errorf("%w: cannot change to %s: %v", gitref.ErrNotRepository, dir, errors.Unwrap(err))
			}
			return c.Flags().Set("repo", ".")
		},
	}
	// The commands read them through cmdutil.OpenRepo.
	new(options.RepoOptions).AddFlags(root)
	root.AddCommand(
		attestcmd.NewCmd(),
		newAuditCmd(),
		newHookCmd(),
		newInitCmd(),
		notescmd.NewCmd(),
		newPolicyCmd(),
		newTicksCmd(),
		newVerifyCmd(),
	)
	strictCommands(root)
	completionWording(root)
	registerCompletions(root)
	typedArgs(root)
	refuseEmptyPaths(root)
	return root
}
