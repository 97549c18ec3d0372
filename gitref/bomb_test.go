package gitref

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/notesync"
	"github.com/taskproof/taskproof/internal/testenv"
)

// hashObject writes content as a blob with the real git (`git hash-object -w`,
// a loose object, as a fetch of a small pack leaves it) and returns its id.
func hashObject(t *testing.T, dir string, content []byte) string {
	t.Helper()
	cmd := exec.Command(testenv.LookPath(t, "git"), "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), bytes.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git hash-object: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// attachNote makes blob the note of commit under refs/notes/speccoder with the
// real git (`git notes add -C`: the blob as it is).
func attachNote(t *testing.T, dir string, commit Hash, blob string) {
	t.Helper()
	testenv.Git(t, dir, "notes", "--ref", "speccoder", "add", "-f", "-C", blob, string(commit))
}

// TestNoteBombRefused: a note blob that inflates far over the note limit is
// refused as too large, whether it is a loose object (git hash-object, or what
// a fetch unpacks) or packed (git repack), on its own or as a delta.
func TestNoteBombRefused(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"a": "1"})
	c2 := commitFiles(t, dir, "two", map[string]string{"a": "2"})
	bomb := make([]byte, 16<<20) // 16 MiB of zeros: a few KiB on disk
	loose := hashObject(t, dir, bomb)
	attachNote(t, dir, c1, loose)
	delta := hashObject(t, dir, append(bytes.Clone(bomb), "tail\n"...))
	attachNote(t, dir, c2, delta)

	check := func(t *testing.T, want string) {
		t.Helper()
		r := open(t, dir)
		s, err := r.Notes("")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []Hash{c1, c2} {
			_, err := s.Note(c)
			var ne *NoteError
			var tl *gitobj.TooLargeError
			if !errors.As(err, &ne) || !errors.As(err, &tl) {
				t.Fatalf("%s: Note(%s) = %v, want a NoteError wrapping a gitobj.TooLargeError", want, c, err)
			}
			if tl.Size < int64(len(bomb)) || tl.Limit != notesync.DefaultMaxNoteSize {
				t.Errorf("%s: gitobj.TooLargeError %+v, want size ≥ %d and limit %d", want, tl, len(bomb), notesync.DefaultMaxNoteSize)
			}
		}
	}
	t.Run("loose", func(t *testing.T) { check(t, "loose") })
	testenv.Git(t, dir, "repack", "-adq", "--window=10")
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", loose[:2], loose[2:])); err == nil {
		t.Fatal("git repack left the bomb loose")
	}
	t.Run("packed", func(t *testing.T) { check(t, "packed") })
}

// writeLoose writes a loose object file whose inflated bytes are raw, named
// by their SHA-1 as git names loose objects, and returns its id.
func writeLoose(t *testing.T, dir string, raw []byte) string {
	t.Helper()
	sum := sha1.Sum(raw)
	id := hex.EncodeToString(sum[:])
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	p := filepath.Join(dir, ".git", "objects", id[:2], id[2:])
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	return id
}

// noteTreeRef points refs/notes/speccoder at a notes commit whose tree holds
// blob as commit's note, with the real git (mktree --missing: git does not read
// the blob).
func noteTreeRef(t *testing.T, dir string, commit Hash, blob string) {
	t.Helper()
	cmd := exec.Command(testenv.LookPath(t, "git"), "mktree", "--missing")
	cmd.Dir, cmd.Env = dir, testenv.GitEnv()
	cmd.Stdin = strings.NewReader(fmt.Sprintf("100644 blob %s\t%s\n", blob, commit))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git mktree: %v", err)
	}
	nc := gitOut(t, dir, "commit-tree", "-m", "notes", strings.TrimSpace(string(out)))
	testenv.Git(t, dir, "update-ref", "refs/notes/speccoder", nc)
}

// TestNoteSizeFromLooseHeader: the note limit is judged from a loose object's
// header, before its content is inflated. The object here claims 1 GiB and
// holds 1 KiB: read whole first (as go-git's loose reader does), it would
// pass the limit and be judged on its content; judged by its header it is
// refused as too large. And an object longer than its header says is refused.
func TestNoteSizeFromLooseHeader(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, "one", map[string]string{"a": "1"})
	claim := writeLoose(t, dir, append([]byte("blob 1073741824\x00"), bytes.Repeat([]byte("{}\n"), 300)...))
	noteTreeRef(t, dir, c, claim)
	s, err := open(t, dir).Notes("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Note(c)
	var tl *gitobj.TooLargeError
	if !errors.As(err, &tl) || tl.Size != 1<<30 {
		t.Fatalf("Note = %v, want a gitobj.TooLargeError of the header's 1 GiB", err)
	}

	long := writeLoose(t, dir, append([]byte("blob 3\x00"), bytes.Repeat([]byte("{}\n"), 300)...))
	noteTreeRef(t, dir, c, long)
	s, err = open(t, dir).Notes("")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := s.Note(c); err == nil || !strings.Contains(err.Error(), "longer than its size") {
		t.Fatalf("Note = %q, %v; want an error: longer than its size", b, err)
	}
}

// TestNoteLooseAndPacked: a note blob held both loose and in a pack (git
// repack without -d keeps the loose copies) reads as when it was loose only:
// the same bytes, and a bomb the same gitobj.TooLargeError; blob looks in the packs
// first, as git does.
func TestNoteLooseAndPacked(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"a": "1"})
	c2 := commitFiles(t, dir, "two", map[string]string{"a": "2"})
	small := hashObject(t, dir, []byte("{\"payload\":\"e30=\"}\n"))
	attachNote(t, dir, c1, small)
	bomb := hashObject(t, dir, make([]byte, 16<<20))
	attachNote(t, dir, c2, bomb)

	read := func() (note []byte, tl *gitobj.TooLargeError) {
		t.Helper()
		s, err := open(t, dir).Notes("")
		if err != nil {
			t.Fatal(err)
		}
		if note, err = s.Note(c1); err != nil {
			t.Fatalf("Note(%s): %v", c1, err)
		}
		if _, err := s.Note(c2); !errors.As(err, &tl) {
			t.Fatalf("Note(%s) = %v, want a gitobj.TooLargeError", c2, err)
		}
		return note, tl
	}
	looseNote, looseTL := read()
	testenv.Git(t, dir, "repack", "-aq")
	for _, id := range []string{small, bomb} {
		if _, err := os.Stat(filepath.Join(dir, ".git", "objects", id[:2], id[2:])); err != nil {
			t.Fatalf("git repack removed the loose %s: %v", id, err)
		}
	}
	r := open(t, dir)
	for _, id := range []string{small, bomb} {
		if !r.store.InPack(toPlumbing(Hash(id))) {
			t.Fatalf("%s is not packed", id)
		}
	}
	note, tl := read()
	if !bytes.Equal(note, looseNote) {
		t.Errorf("packed note %q, loose %q", note, looseNote)
	}
	if *tl != *looseTL {
		t.Errorf("packed bomb %+v, loose %+v", tl, looseTL)
	}
}

// TestNoteOneBlob: a note of one blob reads as the blob's bytes (git
// cat-file's) in a buffer of the reader's own, an empty one as nil.
func TestNoteOneBlob(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, "one", map[string]string{"a": "1"})
	attachNote(t, dir, c, hashObject(t, dir, []byte("line one\nline two\n")))
	s, err := open(t, dir).Notes("")
	if err != nil {
		t.Fatal(err)
	}
	want := testenv.Git(t, dir, "notes", "--ref", "speccoder", "show", string(c))
	got, err := s.Note(c)
	if err != nil || string(got) != want {
		t.Fatalf("Note(%s) = %q, %v; git: %q", c, got, err, want)
	}
	got[0] = '#'
	if again, _ := s.Note(c); string(again) != want {
		t.Errorf("Note(%s) after writing to the last one = %q", c, again)
	}

	noteTreeRef(t, dir, c, hashObject(t, dir, nil))
	s, err = open(t, dir).Notes("")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Note(c); err != nil || got != nil {
		t.Errorf("empty note: Note(%s) = %q, %v; want nil, nil", c, got, err)
	}
}
