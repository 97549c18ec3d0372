package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/inputfile"
)

func newHookCmd() *cobra.Command {
	c := &cobra.Command{
		Use:    "hook",
		Short:  "Run a git hook taskproof installs (called by git)",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	c.AddCommand(&cobra.Command{
		Use:   "prepare-commit-msg FILE [SOURCE [SHA]]",
		Short: "Add Spec-Task trailers for the tasks the staged change ticks",
		Long: `prepare-commit-msg is git's prepare-commit-msg hook: it adds a 'Spec-Task: <feature>/<task>'
trailer to the message in FILE for each task the index ticks against HEAD (an open box at HEAD,
checked in the index), unless the message names it already. Merges, squashes and reused messages
(SOURCE merge, squash, commit) are left alone. See docs/format.md#commit-trailers.`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(c *cobra.Command, args []string) error { return runPrepareCommitMsg(c.Context(), c, args) },
	})
	return c
}

// runPrepareCommitMsg is the prepare-commit-msg hook with ctx: args are
// git's (the message file, its source, a commit).
func runPrepareCommitMsg(ctx context.Context, c *cobra.Command, args []string) error {
	if len(args) > 1 {
		switch args[1] {
		case "merge", "squash", "commit":
			return nil
		}
	}
	dir, _ := c.Flags().GetString("repo")
	repo, err := gitref.Open(dir)
	if err != nil {
		return err
	}
	defer repo.Close()
	tasks, err := attest.StagedSpecTasks(repo)
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return nil
	}
	msg, err := inputfile.Read(args[0], 16<<20) // git's own message file
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("reading the commit message: %w", err))
	}
	out := attest.AddTrailers(string(msg), attest.SpecTaskTrailer, tasks)
	if out == string(msg) {
		return nil
	}
	return os.WriteFile(args[0], []byte(out), 0o644)
}
