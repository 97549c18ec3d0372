package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/taskproof/taskproof/cmd/taskproof/internal/cmdutil"

	"github.com/spf13/cobra"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
)

// prepareCommitMsgHook is the hook `taskproof init --hooks` installs
// (docs/format.md#commit-trailers). Its marker line tells it apart from a
// hook someone else wrote, which init never replaces.
const prepareCommitMsgHook = `#!/bin/sh
# taskproof prepare-commit-msg hook (installed by 'taskproof init --hooks'):
# adds a Spec-Task trailer for each task the staged change ticks.
command -v taskproof >/dev/null 2>&1 || exit 0
exec taskproof hook prepare-commit-msg "$@"
`

const hookMarker = "# taskproof prepare-commit-msg hook"

// hookChange is what installing the hook did or would do.
type hookChange struct {
	Path   string `json:"path"`
	Action string `json:"action"` // "install", "unchanged", "kept" (someone else's hook)
}

// installHook writes the prepare-commit-msg hook into the repository's hooks
// directory, never replacing a hook that is not taskproof's.
func installHook(repo *gitref.Repo, dryRun bool) (hookChange, error) {
	dir, err := repo.HooksDir()
	if err != nil {
		return hookChange{}, err
	}
	path := filepath.Join(dir, "prepare-commit-msg")
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, []byte(prepareCommitMsgHook)):
		return hookChange{path, "unchanged"}, nil
	case err == nil && !bytes.Contains(old, []byte(hookMarker)):
		return hookChange{path, "kept"}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return hookChange{}, err
	}
	if dryRun {
		return hookChange{path, "install"}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return hookChange{}, err
	}
	tmp := path + ".taskproof-tmp"
	if err := os.WriteFile(tmp, []byte(prepareCommitMsgHook), 0o755); err != nil {
		return hookChange{}, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return hookChange{}, err
	}
	return hookChange{path, "install"}, nil
}

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
	msg, err := os.ReadFile(args[0])
	if err != nil {
		return cmdutil.WithCode(cmdutil.ExitUsage, fmt.Errorf("reading the commit message: %w", err))
	}
	out := attest.AddTrailers(string(msg), attest.SpecTaskTrailer, tasks)
	if out == string(msg) {
		return nil
	}
	return os.WriteFile(args[0], []byte(out), 0o644)
}
