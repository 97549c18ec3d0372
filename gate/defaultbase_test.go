package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestDefaultBase: the first of defaultBases that leaves head a range wins;
// one that head is, or that has head in its history, is passed over and taken
// only when every candidate is such; a broken ref is an error naming it; none
// at all is ErrUnknownRevision.
func TestDefaultBase(t *testing.T) {
	f := newBaseFixture(t)
	f.git("switch", "-q", "-c", "feature")
	head := f.tick("T001")
	open := func() *gitref.Repo {
		repo := f.open()
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
	// Every candidate has head in its history: the base branch itself, or a
	// base never fetched — an error, not the empty range.
	f.git("update-ref", "refs/heads/main", string(head))
	var de *DefaultBaseError
	if id, err := DefaultBase(open(), head, ""); !errors.As(err, &de) || !errors.Is(err, ErrBaseHoldsHead) || errors.Is(err, gitref.ErrUnknownRevision) || !strings.Contains(err.Error(), "--base HEAD") {
		t.Errorf("every candidate at head: %v, %v; want a DefaultBaseError naming --base HEAD", id, err)
	}
	// A broken ref is an error, not skipped.
	if err := os.WriteFile(filepath.Join(f.dir, ".git/refs/remotes/origin/master"), []byte("not a hash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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

// TestDefaultBaseRefusals: a plain origin/HEAD (a pushed branch named HEAD)
// and two candidates of one level naming different commits are refused; a
// symbolic origin/HEAD decides between them; a pull request's base branch
// (prBase) comes first, its absence names the fetch, and one holding head is
// refused.
func TestDefaultBaseRefusals(t *testing.T) {
	f := newBaseFixture(t)
	f.git("switch", "-q", "-c", "feature")
	other := f.tick("T001")
	head := f.tick("T002")
	open := func() *gitref.Repo {
		repo := f.open()
		return repo
	}
	f.git("update-ref", "refs/remotes/origin/master", string(f.base))
	f.git("update-ref", "refs/remotes/origin/main", string(other))
	var de *DefaultBaseError
	if _, err := DefaultBase(open(), head, ""); !errors.As(err, &de) || len(de.Ambiguous) != 2 || !errors.Is(err, gitref.ErrUnknownRevision) {
		t.Errorf("origin/main and origin/master: %v, want an ambiguous DefaultBaseError", err)
	}
	f.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/master")
	if id, err := DefaultBase(open(), head, ""); err != nil || id != f.base {
		t.Errorf("origin/HEAD → master: %v, %v; want %s", id, err, f.base)
	}
	if id, err := DefaultBase(open(), head, "main"); err != nil || id != other {
		t.Errorf("prBase main: %v, %v; want %s", id, err, other)
	}
	var nf *gitref.NotFetchedError
	if _, err := DefaultBase(open(), head, "release"); !errors.As(err, &nf) || nf.Ref != "refs/remotes/origin/release" {
		t.Errorf("prBase release: %v, want a NotFetchedError", err)
	}
	f.git("update-ref", "refs/remotes/origin/feature", string(head))
	if _, err := DefaultBase(open(), head, "feature"); !errors.As(err, &de) || de.Candidate != "origin/feature" || !errors.Is(err, ErrBaseHoldsHead) || errors.Is(err, gitref.ErrUnknownRevision) {
		t.Errorf("prBase feature (head itself): %v, want a DefaultBaseError: the empty range would pass", err)
	}
	f.git("update-ref", "--no-deref", "refs/remotes/origin/HEAD", string(other))
	if _, err := DefaultBase(open(), head, ""); !errors.As(err, &de) || de.Candidate != defaultBases[0] || !strings.Contains(err.Error(), "plain ref") {
		t.Errorf("plain origin/HEAD: %v, want a DefaultBaseError saying plain ref", err)
	}
	f.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/gone")
	if _, err := DefaultBase(open(), head, ""); !errors.As(err, &nf) || nf.Ref != "refs/remotes/origin/gone" {
		t.Errorf("origin/HEAD → a branch not fetched: %v, want a NotFetchedError", err)
	}
}

// TestDefaultBaseClones: the branch under test is origin's default branch
// (origin/HEAD names it) and no other candidate exists, in a full clone, a
// single-branch one, shallow ones, and a checkout that fetched one branch
// under the default refspec (as CI runners do): every one is an error naming
// --base, never the empty range (which passes).
func TestDefaultBaseClones(t *testing.T) {
	f := newBaseFixture(t)
	f.git("branch", "-q", "-m", "main", "develop")
	head := f.tick("T001")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"full", nil},
		{"single-branch", []string{"--single-branch"}},
		{"depth 1", []string{"--depth", "1"}},
		{"depth 1, every branch", []string{"--depth", "1", "--no-single-branch"}},
		{"renamed remote", []string{"--single-branch", "-o", "fork"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "clone")
			testenv.Git(t, "", append(append([]string{"clone", "-q"}, tc.args...), "file://"+f.dir, dir)...)
			repo, err := gitref.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			id, err := DefaultBase(repo, head, "")
			var de *DefaultBaseError
			// Every candidate holds head, or (a renamed remote) none exists.
			if !errors.As(err, &de) || !errors.Is(err, ErrBaseHoldsHead) && !errors.Is(err, gitref.ErrUnknownRevision) {
				t.Errorf("%v, %v; want a DefaultBaseError (no base to take)", id, err)
			}
		})
	}
	t.Run("one branch fetched, default refspec", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "ci")
		testenv.Git(t, "", "init", "-q", dir)
		testenv.Git(t, dir, "remote", "add", "origin", "file://"+f.dir)
		testenv.Git(t, dir, "fetch", "-q", "origin", "+refs/heads/develop:refs/remotes/origin/main")
		testenv.Git(t, dir, "checkout", "-q", "--detach", "refs/remotes/origin/main")
		repo, err := gitref.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer repo.Close()
		if id, err := DefaultBase(repo, head, ""); !errors.Is(err, ErrBaseHoldsHead) {
			t.Errorf("%v, %v; want an error naming --base", id, err)
		}
	})
}

// baseFixture is a repository on branch main with one commit (base): where a
// default base is looked for, only refs and ancestry count.
type baseFixture struct {
	t    *testing.T
	dir  string
	base gitref.Hash
}

func newBaseFixture(t *testing.T) *baseFixture {
	t.Helper()
	f := &baseFixture{t: t, dir: filepath.Join(t.TempDir(), "repo")}
	testenv.Git(t, "", "init", "-q", "-b", "main", f.dir)
	f.base = f.tick("base")
	return f
}

func (f *baseFixture) git(args ...string) string {
	f.t.Helper()
	return strings.TrimSpace(testenv.Git(f.t, f.dir, args...))
}

// tick commits (nothing but the message) and returns the commit.
func (f *baseFixture) tick(msg string) gitref.Hash {
	f.t.Helper()
	f.git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", msg)
	return gitref.Hash(f.git("rev-parse", "HEAD"))
}

func (f *baseFixture) open() *gitref.Repo {
	f.t.Helper()
	repo, err := gitref.Open(f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { repo.Close() })
	return repo
}
