package attest

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/taskproof/taskproof/gitref"
)

// prepareCommitMsgHook is the hook `taskproof init --hooks` installs
// (docs/format.md#commit-trailers): it adds the [SpecTaskTrailer] of each
// task the staged change ticks ([StagedSpecTasks]). Its marker line tells it
// apart from a hook someone else wrote, which is never replaced.
const prepareCommitMsgHook = `#!/bin/sh
# taskproof prepare-commit-msg hook (installed by 'taskproof init --hooks'):
# adds a Spec-Task trailer for each task the staged change ticks.
command -v taskproof >/dev/null 2>&1 || exit 0
exec taskproof hook prepare-commit-msg "$@"
`

const hookMarker = "# taskproof prepare-commit-msg hook"

// HookChange is what installing the hook did or, on a dry run, would do.
type HookChange struct {
	Path string `json:"path"`
	// Action is "install", "unchanged", or "kept" (someone else's hook,
	// left as it is).
	Action string `json:"action"`
}

// InstallHook writes the prepare-commit-msg hook into the repository's hooks
// directory, never replacing a hook that is not taskproof's; dryRun writes
// nothing.
func InstallHook(repo *gitref.Repo, dryRun bool) (HookChange, error) {
	cfg, err := repo.Config()
	if err != nil {
		return HookChange{}, err
	}
	dir, err := cfg.HooksDir()
	if err != nil {
		return HookChange{}, err
	}
	path := filepath.Join(dir, "prepare-commit-msg")
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, []byte(prepareCommitMsgHook)):
		return HookChange{path, "unchanged"}, nil
	case err == nil && !bytes.Contains(old, []byte(hookMarker)):
		return HookChange{path, "kept"}, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return HookChange{}, err
	}
	if dryRun {
		return HookChange{path, "install"}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return HookChange{}, err
	}
	tmp := path + ".taskproof-tmp"
	if err := os.WriteFile(tmp, []byte(prepareCommitMsgHook), 0o755); err != nil {
		return HookChange{}, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return HookChange{}, err
	}
	return HookChange{path, "install"}, nil
}
