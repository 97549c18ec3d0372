package main

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestNotesRefAtBlobNamed: a notes ref pointing at a blob is named as what it
// is — the ref, the object and its type, how to point it back — by notes
// push, notes fetch and verify --notes-from-remotes, for the local notes ref
// and a tracking ref alike (exit 4), not reported as an object the
// repository lacks.
func TestNotesRefAtBlobNamed(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	w.attest(a, w.tick(a, "T001"))
	w.run(a, 0, "notes", "push")
	notes := strings.TrimSpace(testenv.Git(t, a, "rev-parse", "refs/notes/speccoder"))
	blob := strings.TrimSpace(testenv.Git(t, a, "hash-object", "-w", "specs/001-greeting/tasks.md"))

	testenv.Git(t, a, "update-ref", "refs/notes/speccoder", blob)
	for _, args := range [][]string{{"notes", "push"}, {"notes", "fetch"}, {"verify", "HEAD", "--allowed-signers", w.signers, "--notes-from-remotes"}} {
		_, stderr := w.run(a, 4, args...)
		if !strings.Contains(stderr, "notes ref refs/notes/speccoder points at a blob ("+blob+")") || strings.Contains(stderr, "lacks an object") {
			t.Errorf("%v with the notes ref at a blob:\n%s", args, stderr)
		}
	}
	testenv.Git(t, a, "update-ref", "refs/notes/speccoder", notes)
	testenv.Git(t, a, "update-ref", "refs/notes/remotes/origin/speccoder", blob)
	_, stderr := w.run(a, 4, "verify", "HEAD", "--allowed-signers", w.signers, "--notes-from-remotes")
	if !strings.Contains(stderr, "notes ref refs/notes/remotes/origin/speccoder points at a blob") {
		t.Errorf("verify --notes-from-remotes with a tracking ref at a blob:\n%s", stderr)
	}
}
