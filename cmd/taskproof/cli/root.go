package cli

import (
	"strings"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
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
envelope, stored as a git note under refs/notes/speccoder, and merge gates verify them.

Exit codes: 0 success or neutral, 1 verification or policy failure, 2 usage,
3 trust or config error, 4 git precondition, 5 internal error.`,
		Version: attest.Version,
		Example: `  taskproof init                     # once per clone: fetch notes, carry them across rebases
  taskproof attest tick --verdict verified --evidence evidence.json
  taskproof notes push
  taskproof verify --branch --base origin/main --allowed-signers-rev origin/main:.github/allowed_signers
  taskproof completion bash > /etc/bash_completion.d/taskproof`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringP("repo", "C", ".", "run as if started in directory `DIR`")
	root.PersistentFlags().String("notes-ref", "refs/notes/speccoder", "the notes `REF` attestations are stored under")
	root.AddCommand(
		newAttestCmd(),
		newAuditCmd(),
		newHookCmd(),
		newInitCmd(),
		newNotesCmd(),
		newPolicyCmd(),
		newTicksCmd(),
		newVerifyCmd(),
	)
	strictCommands(root)
	registerCompletions(root)
	typedArgs(root)
	return root
}

// formatFlag adds --format with the allowed values and returns a getter that
// validates the choice (exit 2 on an unknown value).
func formatFlag(c *cobra.Command, def string, allowed ...string) func() (string, error) {
	f := c.Flags().String("format", def, "output `FORMAT`: "+strings.Join(allowed, "|"))
	choices(c, "format", allowed...)
	return func() (string, error) {
		for _, a := range allowed {
			if *f == a {
				return a, nil
			}
		}
		return "", cmdutil.Usagef("unknown --format %q (want %s)", *f, strings.Join(allowed, "|"))
	}
}

// inRepo is the RunE of a command that writes in a --format and works in the
// repository: it reads the format, opens the repository and its notes, calls
// run with them and closes the repository.
func inRepo(format func() (string, error), run func(c *cobra.Command, args []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error) func(*cobra.Command, []string) error {
	return inRepoWith(format, nil, run)
}

// inRepoWith is inRepo opening the repository with the Access access
// returns for the command's flags (nil: the default).
func inRepoWith(format func() (string, error), access func() gitref.Access, run func(c *cobra.Command, args []string, f string, repo *gitref.Repo, notes *gitref.NotesStore) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		f, err := format()
		if err != nil {
			return err
		}
		var a []gitref.Access
		if access != nil {
			a = append(a, access())
		}
		repo, notes, err := openRepo(c, a...)
		if err != nil {
			return err
		}
		defer repo.Close()
		return run(c, args, f, repo, notes)
	}
}
