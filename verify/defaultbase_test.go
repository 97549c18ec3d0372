package verify

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/gitref"
)

// TestDefaultBase: the first of DefaultBases that leaves head a range wins;
// one that head is, or that has head in its history, is passed over and taken
// only when every candidate is such; a broken ref is an error naming it; none
// at all is ErrUnknownRevision.
func TestDefaultBase(t *testing.T) {
	f := newFixture(t)
	f.git("switch", "-q", "-c", "feature")
	head := f.tick("T001")
	open := func() *gitref.Repo {
		repo, _ := f.open()
		return repo
	}
	if id, err := DefaultBase(open(), head, ""); err != nil || id != f.base {
		t.Errorf("main as base: %v, %v; want %s", id, err, f.base)
	}
	// origin/main is head itself: passed over for main.
	f.git("update-ref", "refs/remotes/origin/main", string(head))
	if id, err := DefaultBase(open(), head, ""); err != nil || id != f.base {
		t.Errorf("origin/main at head: %v, %v; want main %s", id, err, f.base)
	}
	// Every candidate has head in its history: the first is taken.
	f.git("update-ref", "refs/heads/main", string(head))
	if id, err := DefaultBase(open(), head, ""); err != nil || id != head {
		t.Errorf("every candidate at head: %v, %v; want origin/main %s", id, err, head)
	}
	// A broken ref is an error, not skipped.
	if err := os.WriteFile(filepath.Join(f.dir, ".git/refs/remotes/origin/master"), []byte("not a hash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var de *DefaultBaseError
	if _, err := DefaultBase(open(), head, ""); !errors.As(err, &de) || !errors.Is(err, gitref.ErrBadRef) {
		t.Errorf("broken ref: %v, want a DefaultBaseError wrapping ErrBadRef", err)
	}
	if de != nil && de.Candidate != "origin/main" && de.Candidate != "origin/master" {
		t.Errorf("broken ref names %q", de.Candidate)
	}
	// None exists.
	f.git("update-ref", "-d", "refs/remotes/origin/main")
	if err := os.Remove(filepath.Join(f.dir, ".git/refs/remotes/origin/master")); err != nil {
		t.Fatal(err)
	}
	f.git("branch", "-q", "-m", "main", "trunk")
	if _, err := DefaultBase(open(), head, ""); !errors.As(err, &de) || de.Candidate != "" || !errors.Is(err, gitref.ErrUnknownRevision) {
		t.Errorf("no candidate: %v, want a DefaultBaseError wrapping ErrUnknownRevision", err)
	}
}
