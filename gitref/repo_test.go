package gitref

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/taskproof/taskproof/internal/testenv"
)

func TestOpenAndResolve(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"a/b.txt": "one\n"})
	c2 := commitFiles(t, dir, "two", map[string]string{"a/b.txt": "two\n"})
	testenv.Git(t, dir, "checkout", "-q", "-b", "side", c1.String())
	s1 := commitFiles(t, dir, "side", map[string]string{"s.txt": "side\n"})
	testenv.Git(t, dir, "checkout", "-q", "main")
	testenv.Git(t, dir, "merge", "-q", "--no-ff", "-m", "merge", "side")
	m := Hash(gitOut(t, dir, "rev-parse", "HEAD"))
	testenv.Git(t, dir, "tag", "-a", "-m", "annotated", "v1", c2.String())
	testenv.Git(t, dir, "tag", "light", c1.String())

	sub := filepath.Join(dir, "a")
	r := open(t, sub) // from inside the work tree
	if r.WorkTree() != dir {
		t.Errorf("WorkTree = %s, want %s", r.WorkTree(), dir)
	}
	tests := []struct {
		rev  string
		want Hash
	}{
		{"HEAD", m}, {"main", m}, {"HEAD~1", c2}, {"HEAD~2", c1}, {"HEAD^2", s1},
		{"side", s1}, {"v1", c2}, {"light", c1}, {"refs/heads/side", s1},
		{string(c2[:10]), c2}, {string(c1), c1},
	}
	for _, tt := range tests {
		got, err := r.Resolve(tt.rev)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.rev, got, err, tt.want)
		}
	}
	for _, bad := range []string{"nope", "HEAD~99", "", "0000000000000000000000000000000000000000", "v1:a/b.txt"} {
		if _, err := r.Resolve(bad); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("Resolve(%q) error = %v, want ErrUnknownRevision", bad, err)
		}
	}

	ranges := []struct {
		spec       string
		base, head Hash
		err        error
	}{
		{"HEAD~2..HEAD", c1, m, nil}, {"main", "", m, nil}, {"side..", s1, m, nil},
		{"..side", m, s1, nil}, {"a...b", "", "", ErrBadRange}, {"x..HEAD", "", "", ErrUnknownRevision},
	}
	for _, tt := range ranges {
		b, h, err := r.ResolveRange(tt.spec)
		if !errors.Is(err, tt.err) || b != tt.base || h != tt.head {
			t.Errorf("ResolveRange(%q) = %q, %q, %v; want %q, %q, %v", tt.spec, b, h, err, tt.base, tt.head, tt.err)
		}
	}

	c, err := r.Commit(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) != 2 || c.FirstParent() != c2 || c.Parents[1] != s1 || c.Message != "merge\n" {
		t.Errorf("Commit(merge) = %+v", c)
	}
	if tree := Hash(gitOut(t, dir, "rev-parse", "HEAD^{tree}")); c.Tree != tree {
		t.Errorf("Tree = %s, want %s", c.Tree, tree)
	}
	b, err := r.File(c1, "a/b.txt")
	if err != nil || string(b) != "one\n" {
		t.Errorf("File(c1, a/b.txt) = %q, %v", b, err)
	}
	for _, p := range []string{"a/missing", "a", "../x", "/a/b.txt", "a//b.txt", ""} {
		if _, err := r.File(c1, p); !errors.Is(err, ErrNotFound) {
			t.Errorf("File(%q) error = %v, want ErrNotFound", p, err)
		}
	}
	if _, err := r.File("zz", "a/b.txt"); !errors.Is(err, ErrBadHash) {
		t.Errorf("File(bad hash) error = %v", err)
	}

	same, err := r.CommitsWithTree(Hash(gitOut(t, dir, "rev-parse", c2.String()+"^{tree}")))
	if err != nil || len(same) != 1 || same[0] != c2 {
		t.Errorf("CommitsWithTree = %v, %v; want [%s]", same, err, c2)
	}

	fsys, err := r.FS(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "a/b.txt", "s.txt"); err != nil {
		t.Error(err)
	}
}

func TestOpenWorktreeAndBare(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"f": "x\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	testenv.Git(t, dir, "worktree", "add", "-q", "-b", "wtb", wt)
	c2 := commitFiles(t, wt, "in worktree", map[string]string{"g": "y\n"})
	bare := filepath.Join(t.TempDir(), "bare.git")
	testenv.Git(t, "", "clone", "-q", "--bare", dir, bare)

	r := open(t, wt)
	if h, err := r.Resolve("HEAD"); err != nil || h != c2 {
		t.Errorf("worktree HEAD = %s, %v; want %s", h, err, c2)
	}
	if h, err := r.Resolve("main"); err != nil || h != c1 {
		t.Errorf("worktree main = %s, %v; want %s", h, err, c1)
	}
	if r.CommonDir() != filepath.Join(dir, ".git") {
		t.Errorf("CommonDir = %s", r.CommonDir())
	}
	rb := open(t, bare)
	if h, err := rb.Resolve("HEAD"); err != nil || h != c1 || rb.WorkTree() != "" {
		t.Errorf("bare HEAD = %s, %v; want %s", h, err, c1)
	}
}

func TestOpenErrors(t *testing.T) {
	empty := t.TempDir()
	if _, err := Open(empty); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(empty dir) = %v, want ErrNotRepository", err)
	}
	if _, err := Open(filepath.Join(empty, "missing")); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(missing) = %v, want ErrNotRepository", err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, ".git"), []byte("gitdir: /nonexistent\n"), 0o644)
	if _, err := Open(bad); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(bad .git file) = %v, want ErrNotRepository", err)
	}
	sha256 := t.TempDir()
	testenv.Git(t, sha256, "init", "-q", "--object-format=sha256")
	if _, err := Open(sha256); !errors.Is(err, ErrUnsupportedRepository) {
		t.Errorf("Open(sha256 repo) = %v, want ErrUnsupportedRepository", err)
	}
}
