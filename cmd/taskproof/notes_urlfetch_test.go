package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestURLFetchLeavesNoRemote: the refs a `notes fetch URL` killed midway
// leaves — under refs/speccoder/fetch/ now, under
// refs/notes/remotes/taskproof-fetch-*/ in earlier versions — are never read
// as a remote's notes by verify --notes-from-remotes (a fork's notes would be
// merged in), and the next URL fetch removes those whose process is gone,
// leaving none of its own.
func TestURLFetchLeavesNoRemote(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	w.attest(a, w.tick(a, "T001"))
	testenv.Git(t, a, "push", "-q", "origin", "HEAD:main")
	w.run(a, 0, "notes", "push")

	fork := filepath.Join(w.dir, "fork.git")
	testenv.Git(t, w.dir, "clone", "-q", "--mirror", w.remote, fork)
	f := filepath.Join(w.dir, "f")
	testenv.Git(t, w.dir, "clone", "-q", fork, f)
	w.run(f, 0, "init")
	w.run(f, 0, "notes", "fetch")
	w.attest(f, w.tick(f, "T002"))
	w.run(f, 0, "notes", "push")

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("refs/speccoder/fetch/%d-1/notes/speccoder", gone.Process.Pid)
	old := "refs/notes/remotes/taskproof-fetch-1-2/speccoder"
	testenv.Git(t, a, "fetch", "-q", fork, "+refs/notes/speccoder:"+stale, "+refs/notes/speccoder:"+old)

	_, stderr := w.run(a, 0, "verify", "HEAD~1..HEAD", "--allowed-signers", w.signers, "--notes-from-remotes")
	if !strings.Contains(stderr, "merged with refs/notes/remotes/origin/speccoder (read-only)") || strings.Contains(stderr, "taskproof-fetch") || strings.Contains(stderr, "speccoder/fetch") {
		t.Errorf("verify --notes-from-remotes reads a fetch's leftovers as a remote:\n%s", stderr)
	}

	w.run(a, 0, "notes", "fetch", fork)
	if left := strings.TrimSpace(testenv.Git(t, a, "for-each-ref", "--format=%(refname)", "refs/speccoder/fetch/")); left != "" {
		t.Errorf("a URL fetch leaves temporary refs:\n%s", left)
	}
}
