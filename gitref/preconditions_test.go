package gitref

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/notesync"
	"github.com/taskproof/taskproof/gitref/internal/refs"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestShallowEdge: in a clone made with the real git's --depth, the commits
// .git/shallow lists are the edge only while their parents are absent; a
// range holding an edge commit is a *gitobj.ShallowError, a range inside what was
// fetched is listed, and Intact refuses an edge commit.
func TestShallowEdge(t *testing.T) {
	src := newRepo(t)
	var ids []Hash
	for i, c := range []string{"1", "2", "3", "4"} {
		ids = append(ids, commitFiles(t, src, "c"+c, map[string]string{"f": c + strings.Repeat("x", i)}))
	}
	dir := filepath.Join(t.TempDir(), "sh")
	testenv.Git(t, "", "clone", "-q", "--depth", "2", "file://"+src, dir)
	r := open(t, dir)
	if !r.isShallow() {
		t.Fatal("IsShallow = false for a --depth 2 clone")
	}
	if got := r.shallowCommits(); len(got) != 1 || got[0] != ids[2] {
		t.Fatalf("shallowCommits = %v, want [%s]", got, ids[2])
	}
	var se *gitobj.ShallowError
	if _, err := r.rangeCommits("", ids[3], false); !errors.Is(err, ErrShallow) || !errors.Is(err, ErrMissingObject) {
		t.Errorf("all of history: %v, want a missing object in a shallow clone", err)
	}
	if _, err := r.rangeCommits(ids[2], ids[3], false); err != nil {
		t.Errorf("range c3..c4 (fetched): %v", err)
	}
	if err := r.Intact(ids[3]); err != nil {
		t.Errorf("Intact(c4): %v", err)
	}
	if err := r.Intact(ids[2]); !errors.As(err, &se) || se.Commit != ids[2] {
		t.Errorf("Intact(c3, the edge) = %v, want a gitobj.ShallowError", err)
	}
	if ok, err := r.IsAncestor(ids[2], ids[3]); !ok || err != nil {
		t.Errorf("IsAncestor(c3, c4) = %v, %v; want true", ok, err)
	}
	if _, err := r.IsAncestor(ids[3], ids[2]); !errors.As(err, &se) || se.Commit != ids[2] {
		t.Errorf("IsAncestor(c4, c3) = %v, want a gitobj.ShallowError at c3: the history beyond it is unknown", err)
	}
	if _, err := r.Resolve(string(ids[0])); !errors.Is(err, ErrUnknownRevision) || !strings.Contains(err.Error(), "--unshallow") {
		t.Errorf("Resolve(c1, not fetched) = %v, want unknown revision naming --unshallow", err)
	}

	// Deepening by one brings c2: c3 is no longer the edge.
	testenv.Git(t, dir, "fetch", "-q", "--deepen", "1")
	r = open(t, dir)
	if got := r.shallowCommits(); len(got) != 1 || got[0] != ids[1] {
		t.Fatalf("after --deepen 1: shallowCommits = %v, want [%s]", got, ids[1])
	}
	if err := r.Intact(ids[2]); err != nil {
		t.Errorf("after --deepen 1: Intact(c3): %v", err)
	}
	if _, err := r.rangeCommits(ids[1], ids[3], false); err != nil {
		t.Errorf("after --deepen 1: range c2..c4: %v", err)
	}
	if _, err := r.rangeCommits(ids[0], ids[3], false); !errors.Is(err, ErrShallow) {
		t.Errorf("after --deepen 1: range c1..c4 (c1 not fetched): %v, want ErrShallow", err)
	}
}

// TestNotesRefNotCommitAndBadRef: a notes ref at a blob is a *notesync.NotesRefError
// naming the type; garbage in a ref file is a *BadRefError naming the file,
// for ReadRef and for Resolve.
func TestNotesRefNotCommitAndBadRef(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, "one", map[string]string{"a": "1"})
	testenv.Git(t, dir, "notes", "--ref", "speccoder", "add", "-m", "{}", string(c))
	blob := hashObject(t, dir, []byte("x\n"))
	testenv.Git(t, dir, "update-ref", "refs/notes/speccoder", blob)
	s, err := open(t, dir).Notes("")
	if err != nil {
		t.Fatal(err)
	}
	var ne *notesync.NotesRefError
	if _, err := s.Note(c); !errors.As(err, &ne) || ne.Type != "blob" || !errors.Is(err, ErrNotesRefNotCommit) {
		t.Fatalf("Note with the notes ref at a blob = %v, want a notesync.NotesRefError of type blob", err)
	}

	p := filepath.Join(dir, ".git", "refs", "notes", "speccoder")
	if err := os.WriteFile(p, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var be *refs.BadRefError
	if _, err := s.Head(); !errors.As(err, &be) || be.Path != p || be.Text != "garbage" {
		t.Errorf("Head with garbage in the ref = %v, want a BadRefError naming %s", err, p)
	}
	head := filepath.Join(dir, ".git", "refs", "heads", "main")
	if err := os.WriteFile(head, []byte("0123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, dir).Resolve("HEAD~0"); !errors.As(err, &be) || be.Ref != "refs/heads/main" || !errors.Is(err, ErrUnknownRevision) {
		t.Errorf("Resolve(HEAD~0) with garbage in refs/heads/main = %v, want a BadRefError for refs/heads/main", err)
	}
}

// TestPartialCloneMissingBlob: in a --filter=blob:none clone, a blob the
// filter left out is a missing object naming the promisor remote and the
// fetch that brings it (git fsck lists nothing there: missing is by design).
func TestPartialCloneMissingBlob(t *testing.T) {
	src := newRepo(t)
	testenv.Git(t, src, "config", "uploadpack.allowFilter", "true")
	c1 := commitFiles(t, src, "one", map[string]string{"f": "one"})
	commitFiles(t, src, "two", map[string]string{"f": "two"})
	dir := filepath.Join(t.TempDir(), "partial")
	testenv.Git(t, "", "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+src, dir)
	r := open(t, dir)
	_, err := r.File(c1, "f")
	var me *gitobj.MissingObjectError
	if !errors.As(err, &me) || me.Partial != "origin" || !strings.Contains(err.Error(), "partialclonefilter= fetch --refetch origin") {
		t.Errorf("File(c1, f) in a partial clone = %v, want a missing object naming the promisor remote", err)
	}
}

// TestLooseBlobLarge: a loose blob whose compressed form is larger than what
// the header check inflates is read whole with a limit, and refused over it.
func TestLooseBlobLarge(t *testing.T) {
	dir := newRepo(t)
	content := make([]byte, 300<<10)
	for i := range content {
		content[i] = byte(i*7919>>3) ^ byte(i>>11)
	}
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, content, 0o600); err != nil {
		t.Fatal(err)
	}
	id := Hash(gitOut(t, dir, "hash-object", "-w", p))
	r := open(t, dir)
	b, err := r.Blob(id, BlobRead{Limit: 1 << 20})
	if err != nil || !bytes.Equal(b, content) {
		t.Fatalf("Blob(%s, 1 MiB) = %d bytes, %v; want the %d bytes written", id, len(b), err, len(content))
	}
	if _, err := r.Blob(id, BlobRead{Limit: 1 << 10}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Blob(%s, 1 KiB) = %v, want ErrTooLarge", id, err)
	}
}

// TestErrorsMatchSentinels: the errors whose types stay internal match the
// sentinel a caller tests with errors.Is, and say what they carry.
func TestErrorsMatchSentinels(t *testing.T) {
	for _, c := range []struct {
		err      error
		sentinel error
		says     string
	}{
		{&gitobj.StorageError{Path: "objects/ab/x", Errno: syscall.ENOSPC, Err: &fs.PathError{Op: "write", Path: "objects/ab/x", Err: syscall.ENOSPC}}, ErrStorage, "objects/ab/x"},
		{&gitobj.ShallowError{Commit: "c0ffee", Need: "it is a commit of the range main..HEAD"}, ErrShallow, "main..HEAD"},
		{&gitobj.TooLargeError{Object: "b10b", Size: 5 << 20, Limit: 4 << 20}, ErrTooLarge, "b10b"},
		{&notesync.NotesRefError{Ref: "refs/notes/speccoder", Type: "blob"}, ErrNotesRefNotCommit, "blob"},
		{&notesync.GitError{Args: []string{"push", "origin"}, Code: 128, Stderr: "fatal: no route"}, ErrGitProgram, "no route"},
		{&refs.LockError{Path: "refs/notes/speccoder.lock", Stale: true}, ErrLocked, "speccoder.lock"},
	} {
		if !errors.Is(c.err, c.sentinel) {
			t.Errorf("%T does not match %v", c.err, c.sentinel)
		}
		if !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("%T says %q, want it to name %q", c.err, c.err, c.says)
		}
	}
	if se := (&gitobj.StorageError{Errno: syscall.EROFS, Err: fmt.Errorf("%w: creating config.lock: %w", ErrConfig, syscall.EROFS)}); !errors.Is(se, ErrConfig) || !errors.Is(se, syscall.EROFS) {
		t.Errorf("a storage error of the config file: %v, want it to match ErrConfig and EROFS", se)
	}
}
