package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestNotesFetchFastForwardKeepsRemoved: another clone fetched alice's notes,
// replaced her signed statement (attest --force, here unsigned) and pushed, so
// alice's next `notes fetch` is a fast-forward. Her statement is not dropped
// unnamed: she is told, and it is kept in the conflicts ref.
func TestNotesFetchFastForwardKeepsRemoved(t *testing.T) {
	bin := os.Getenv("TASKPROOF_BIN")
	top := t.TempDir()
	remote := filepath.Join(top, "remote.git")
	testenv.Git(t, "", "init", "-q", "--bare", "-b", "main", remote)
	alice := filepath.Join(top, "alice")
	testenv.Git(t, "", "clone", "-q", remote, alice)
	writeCommit(t, alice, "plan", map[string]string{"specs/001-x/tasks.md": "# Tasks\n\n- [ ] T001 do it\n"})
	tick := writeCommit(t, alice, "tick", map[string]string{"specs/001-x/tasks.md": "# Tasks\n\n- [x] T001 do it\n"})
	testenv.Git(t, alice, "push", "-q", "origin", "main")
	key, _ := sshKeyFile(t, "")
	run := func(dir string, args ...string) (string, string) {
		t.Helper()
		stdout, stderr, code := runTaskproof(t, bin, append([]string{"-C", dir}, args...)...)
		if code != 0 {
			t.Fatalf("taskproof %v in %s: exit %d\n%s%s", args, filepath.Base(dir), code, stdout, stderr)
		}
		return stdout, stderr
	}
	run(alice, "init")
	run(alice, "attest", "tick", "--signer", "ssh", "--key", key, "--verdict", "regression_only", "--regression-reason", "planning_work")
	signed := strings.TrimSpace(testenv.Git(t, alice, "notes", "--ref", "speccoder", "show", tick))
	run(alice, "notes", "push")

	eve := filepath.Join(top, "eve")
	testenv.Git(t, "", "clone", "-q", remote, eve)
	run(eve, "init")
	run(eve, "notes", "fetch")
	run(eve, "attest", "tick", "--commit", tick, "--verdict", "regression_only", "--regression-reason", "planning_work", "--unsigned", "--force")
	run(eve, "notes", "push")

	_, stderr := run(alice, "notes", "fetch")
	if !strings.Contains(stderr, "no longer hold") || !strings.Contains(stderr, "speccoder-conflicts") {
		t.Errorf("alice is not told her statement was removed:\n%s", stderr)
	}
	kept := testenv.Git(t, alice, "notes", "--ref", "speccoder-conflicts", "show", tick)
	for _, l := range strings.Split(signed, "\n") {
		if !strings.Contains(kept, l) {
			t.Errorf("alice's line is not in the conflicts ref:\n%s\nkept:\n%s", l, kept)
		}
	}
}
