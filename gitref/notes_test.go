package gitref

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/notesync"
	"github.com/taskproof/taskproof/gitref/internal/refs"
	"github.com/taskproof/taskproof/internal/testenv"
)

// The test binary doubles as a second notes writer: see TestMain.
const helperEnv = "GITREF_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode, os.Getenv("GITREF_TEST_REPO"), os.Getenv("GITREF_TEST_ARG")))
	}
	os.Exit(m.Run())
}

// helper runs in a child process: "write" adds line "<arg>:<commit>" to the note
// of every commit of HEAD's history with 8 goroutines; "crash-before-lock" and
// "crash-before-rename" update commit arg's note and exit with status 3 after the
// objects are written, before the ref moves.
func helper(mode, dir, arg string) int {
	switch mode {
	case "write":
		r, err := Open(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		l, err := r.List("", mustResolve(r, "HEAD"), false)
		r.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		var ids []Hash
		for i := range l.Len() {
			ids = append(ids, l.ID(i))
		}
		if err := writeAll(dir, ids, arg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "crash-before-lock", "crash-before-rename":
		r, err := Open(dir)
		if err != nil {
			return 1
		}
		crash := func() { os.Exit(3) }
		if mode == "crash-before-lock" {
			notesync.TestHookBeforeLock = crash
		} else {
			refs.TestHookBeforeRename = crash
		}
		s, _ := r.Notes("")
		_, err = s.Update(Hash(arg), func(old []byte) ([]byte, error) { return append(old, "crash\n"...), nil })
		fmt.Fprintln(os.Stderr, "helper did not crash:", err)
		return 1
	}
	return 2
}

func mustResolve(r *Repo, rev string) Hash {
	h, err := r.Resolve(rev)
	if err != nil {
		panic(err)
	}
	return h
}

// addLine is a merge func adding one line (once).
func addLine(line string) func(old []byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		for _, l := range strings.SplitAfter(string(old), "\n") {
			if strings.TrimSuffix(l, "\n") == line {
				return old, nil
			}
		}
		return append(append([]byte(nil), old...), line+"\n"...), nil
	}
}

// writeAll adds "<tag>:<commit>" to each commit's note using 8 goroutines, each
// with its own Repo.
func writeAll(dir string, ids []Hash, tag string) error {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Open(dir)
			if err != nil {
				errs <- err
				return
			}
			defer r.Close()
			s, _ := r.Notes("")
			for i := g; i < len(ids); i += 8 {
				if _, err := s.Update(ids[i], addLine(tag+":"+string(ids[i]))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// manyCommits makes a repository with n commits on main via git fast-import and
// returns the directory and the commit ids, oldest first.
func manyCommits(t testing.TB, n int, file func(i int) (path, content string)) (string, []Hash) {
	t.Helper()
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	var in bytes.Buffer
	for i := range n {
		p, c := "f.txt", fmt.Sprintf("commit %d\n", i)
		if file != nil {
			p, c = file(i)
		}
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.invalid> %d +0000\ndata 3\nc%d\n", i+1, 1700000000+i, i%10)
		if i > 0 {
			fmt.Fprintf(&in, "from :%d\n", i)
		}
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(c), c)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = testenv.GitEnv()
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	var ids []Hash
	for _, l := range strings.Fields(testenv.Git(t, dir, "rev-list", "--reverse", "main")) {
		ids = append(ids, Hash(l))
	}
	testenv.Git(t, dir, "reset", "-q", "--hard", "main")
	return dir, ids
}

func TestNotesReadWriteInterop(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"f": "1\n"})
	c2 := commitFiles(t, dir, "two", map[string]string{"f": "2\n"})
	c3 := commitFiles(t, dir, "three", map[string]string{"f": "3\n"})
	r := open(t, dir)
	s, err := r.Notes("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Note(c1); !errors.Is(err, ErrNotesRefAbsent) {
		t.Fatalf("Note before any note = %v, want ErrNotesRefAbsent", err)
	}
	testenv.Git(t, dir, "notes", "--ref", "speccoder", "add", "-m", `{"foreign":"tool"}`, c1.String())
	got, err := s.Note(c1)
	if err != nil || string(got) != "{\"foreign\":\"tool\"}\n" {
		t.Fatalf("Note(c1) = %q, %v", got, err)
	}
	if _, err := s.Note(c2); !errors.Is(err, ErrNoNote) || errors.Is(err, ErrNotesRefAbsent) {
		t.Fatalf("Note(c2) = %v, want ErrNoNote", err)
	}

	// Update keeps the foreign line byte for byte.
	if _, err := s.Update(c1, addLine(`{"mine":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(c2, addLine(`{"mine":2}`)); err != nil {
		t.Fatal(err)
	}
	if out := testenv.Git(t, dir, "notes", "--ref", "speccoder", "show", c1.String()); out != "{\"foreign\":\"tool\"}\n{\"mine\":1}\n" {
		t.Errorf("git notes show c1 = %q", out)
	}
	if out := testenv.Git(t, dir, "notes", "--ref", "speccoder", "show", c2.String()); out != "{\"mine\":2}\n" {
		t.Errorf("git notes show c2 = %q", out)
	}
	// The notes ref's reflog holds taskproof's updates after git's own, as
	// `git notes add` logs its own: what a forced fetch overwrites can be
	// found again.
	head, _ := s.Head()
	reflog := testenv.Git(t, dir, "reflog", "show", "--format=%H %gs", "refs/notes/speccoder")
	if lines := strings.Split(strings.TrimSpace(reflog), "\n"); len(lines) != 3 || lines[0] != string(head)+" taskproof: notes update of "+string(c2) {
		t.Errorf("git reflog refs/notes/speccoder:\n%s", reflog)
	}
	// An unchanged note writes no commit.
	if h, err := s.Update(c2, addLine(`{"mine":2}`)); err != nil || h != head {
		t.Errorf("no-op Update = %s, %v; want %s", h, err, head)
	}
	nc, err := r.Commit(head)
	if err != nil || nc.Author.Name != "taskproof" || nc.Committer.Email != "taskproof@users.noreply.invalid" ||
		nc.Message != "Notes added by 'taskproof attest'\n" || len(nc.Parents) != 1 {
		t.Errorf("notes commit = %+v, %v", nc, err)
	}

	// Packed refs: the ref only in packed-refs is read and updated (loose ref written).
	testenv.Git(t, dir, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "notes", "speccoder")); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left the loose ref: %v", err)
	}
	if got, err := s.Note(c2); err != nil || string(got) != "{\"mine\":2}\n" {
		t.Fatalf("Note from packed ref = %q, %v", got, err)
	}
	if _, err := s.Update(c3, addLine("three")); err != nil {
		t.Fatal(err)
	}
	if out := testenv.Git(t, dir, "notes", "--ref", "speccoder", "show", c3.String()); out != "three\n" {
		t.Errorf("git notes show c3 = %q", out)
	}
	if err := s.Remove(c2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Note(c2); !errors.Is(err, ErrNoNote) {
		t.Errorf("Note after Remove = %v", err)
	}
	if err := s.Remove(c2); !errors.Is(err, ErrNoNote) {
		t.Errorf("second Remove = %v, want ErrNoNote", err)
	}
	all, err := s.All()
	if err != nil || len(all) != 2 {
		t.Fatalf("All = %v, %v", all, err)
	}
	testenv.Git(t, dir, "fsck", "--strict", "--no-progress")
	if out := gitOut(t, dir, "notes", "--ref", "speccoder", "list"); strings.Count(out, "\n") != 1 {
		t.Errorf("git notes list:\n%s", out)
	}
}

func TestNotesFanout(t *testing.T) {
	dir, ids := manyCommits(t, 300, nil)
	for _, id := range ids {
		testenv.Git(t, dir, "notes", "--ref", "speccoder", "add", "-m", "git:"+string(id), string(id))
	}
	tree := gitOut(t, dir, "ls-tree", "refs/notes/speccoder")
	if !strings.Contains(tree, "tree") {
		t.Fatalf("git did not fan out 300 notes:\n%.300s", tree)
	}
	r := open(t, dir)
	s, _ := r.Notes("speccoder")
	for _, id := range ids {
		got, err := s.Note(id)
		if err != nil || string(got) != "git:"+string(id)+"\n" {
			t.Fatalf("Note(%s) = %q, %v", id, got, err)
		}
	}
	all, err := s.All()
	if err != nil || len(all) != 300 {
		t.Fatalf("All: %d entries, %v", len(all), err)
	}
	// A note replaced in place stays at its fan-out path; a new one goes into the fan-out.
	extra := commitFiles(t, dir, "extra", map[string]string{"x": "x\n"})
	if _, err := s.Update(ids[0], addLine("mine")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(extra, addLine("new")); err != nil {
		t.Fatal(err)
	}
	paths := gitOut(t, dir, "ls-tree", "-r", "--name-only", "refs/notes/speccoder")
	for _, id := range []Hash{ids[0], extra} {
		if want := string(id[:2]) + "/" + string(id[2:]); !strings.Contains(paths, want) {
			t.Errorf("note for %s not at %s", id, want)
		}
	}
	if out := testenv.Git(t, dir, "notes", "--ref", "speccoder", "show", string(extra)); out != "new\n" {
		t.Errorf("git notes show extra = %q", out)
	}
	testenv.Git(t, dir, "fsck", "--strict", "--no-progress")
}

func TestNotesMixedTreeAndBadBlobs(t *testing.T) {
	dir := newRepo(t)
	a := commitFiles(t, dir, "a", map[string]string{"f": "a\n"})
	b := commitFiles(t, dir, "b", map[string]string{"f": "b\n"})
	c := commitFiles(t, dir, "c", map[string]string{"f": "c\n"})
	blob := func(content string) string {
		cmd := exec.Command("git", "hash-object", "-w", "--stdin")
		cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), strings.NewReader(content)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	mktree := func(lines ...string) string {
		cmd := exec.Command("git", "mktree")
		cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), strings.NewReader(strings.Join(lines, "\n")+"\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	// a: flat; b: two levels of fan-out; c: a NUL-bearing blob, flat.
	sub2 := mktree("100644 blob " + blob("deep\n") + "\t" + string(b[4:]))
	sub1 := mktree("040000 tree " + sub2 + "\t" + string(b[2:4]))
	root := mktree(
		"100644 blob "+blob("flat\n")+"\t"+string(a),
		"040000 tree "+sub1+"\t"+string(b[:2]),
		"100644 blob "+blob("bin\x00ary")+"\t"+string(c),
		"100644 blob "+blob("not a note")+"\tREADME",
	)
	nc := gitOut(t, dir, "commit-tree", "-m", "mixed", root)
	testenv.Git(t, dir, "update-ref", "refs/notes/speccoder", nc)

	r := open(t, dir)
	s, _ := r.Notes("")
	for id, want := range map[Hash]string{a: "flat\n", b: "deep\n"} {
		if got, err := s.Note(id); err != nil || string(got) != want {
			t.Errorf("Note(%s) = %q, %v; want %q", id, got, err, want)
		}
	}
	_, err := s.Note(c)
	var ne *NoteError
	if !errors.Is(err, ErrNoteNotText) || !errors.As(err, &ne) || ne.Path != string(c) {
		t.Errorf("Note(binary) = %v, want ErrNoteNotText at %s", err, c)
	}
	if _, err := s.Update(c, addLine("x")); !errors.Is(err, ErrNoteNotText) {
		t.Errorf("Update over binary note = %v, want ErrNoteNotText", err)
	}
	if err := s.Remove(c); err != nil {
		t.Errorf("Remove(binary note) = %v", err)
	}
	s.MaxNoteSize = 3
	var tl *gitobj.TooLargeError
	if _, err := s.Note(a); !errors.As(err, &tl) || tl.Limit != 3 {
		t.Errorf("Note over MaxNoteSize = %v", err)
	}
	s.MaxNoteSize = 0
	// b is replaced in place at depth 2; the README entry survives.
	if _, err := s.Update(b, addLine("more")); err != nil {
		t.Fatal(err)
	}
	paths := gitOut(t, dir, "ls-tree", "-r", "--name-only", "refs/notes/speccoder")
	if want := string(b[:2]) + "/" + string(b[2:4]) + "/" + string(b[4:]); !strings.Contains(paths, want) || !strings.Contains(paths, "README") {
		t.Errorf("notes tree after update:\n%s\nwant %s and README", paths, want)
	}
	if out := testenv.Git(t, dir, "notes", "--ref", "speccoder", "show", string(b)); out != "deep\nmore\n" {
		t.Errorf("git notes show b = %q", out)
	}
	if _, err := r.Notes("refs/notes/bad..name"); !errors.Is(err, ErrBadRefName) {
		t.Errorf("Notes(bad name) = %v", err)
	}
}

// TestNotesConcurrentWriters: 8 goroutines here and 8 in a second process each add
// their own line to the notes of the same 200 commits; none is lost.
func TestNotesConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	dir, ids := manyCommits(t, 200, nil)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=write", "GITREF_TEST_REPO="+dir, "GITREF_TEST_ARG=proc")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	werr := writeAll(dir, ids, "here")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("second process: %v\n%s", err, stderr.String())
	}
	if werr != nil {
		t.Fatal(werr)
	}
	r := open(t, dir)
	s, _ := r.Notes("")
	for _, id := range ids {
		got, err := s.Note(id)
		if err != nil {
			t.Fatalf("Note(%s): %v", id, err)
		}
		for _, tag := range []string{"here", "proc"} {
			if !strings.Contains(string(got), tag+":"+string(id)+"\n") {
				t.Errorf("note of %s lost the %s line: %q", id, tag, got)
			}
		}
	}
	testenv.Git(t, dir, "fsck", "--strict", "--no-progress")
}

// TestNotesInterruptedWrite kills a writer after it wrote its objects, before
// and after taking the lock: the ref stays readable at the old notes commit, and
// a stale lock is reported by name, never removed.
func TestNotesInterruptedWrite(t *testing.T) {
	for _, mode := range []string{"crash-before-lock", "crash-before-rename"} {
		t.Run(mode, func(t *testing.T) {
			dir := newRepo(t)
			c := commitFiles(t, dir, "c", map[string]string{"f": "1\n"})
			testenv.Git(t, dir, "notes", "--ref", "speccoder", "add", "-m", "before", c.String())
			old := gitOut(t, dir, "rev-parse", "refs/notes/speccoder")
			exe, _ := os.Executable()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"="+mode, "GITREF_TEST_REPO="+dir, "GITREF_TEST_ARG="+c.String())
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			if now := gitOut(t, dir, "rev-parse", "refs/notes/speccoder"); now != old {
				t.Fatalf("ref moved to %s", now)
			}
			r := open(t, dir)
			s, _ := r.Notes("")
			if got, err := s.Note(c); err != nil || string(got) != "before\n" {
				t.Fatalf("Note after crash = %q, %v", got, err)
			}
			testenv.Git(t, dir, "fsck", "--strict", "--no-progress")
			lock := filepath.Join(dir, ".git", "refs", "notes", "speccoder.lock")
			_, statErr := os.Stat(lock)
			if mode == "crash-before-lock" {
				if statErr == nil {
					t.Fatal("lock file left before the lock was taken")
				}
				return
			}
			if statErr != nil {
				t.Fatalf("expected the crashed writer's lock file: %v", statErr)
			}
			s.lock = refs.LockOptions{StaleAge: time.Millisecond, Timeout: time.Second}
			time.Sleep(5 * time.Millisecond)
			_, err = s.Update(c, addLine("after"))
			var le *refs.LockError
			if !errors.As(err, &le) || !le.Stale || le.Path != lock || !errors.Is(err, ErrLocked) {
				t.Fatalf("Update with stale lock = %v, want stale *refs.LockError naming %s", err, lock)
			}
			if _, err := os.Stat(lock); err != nil {
				t.Errorf("stale lock was removed: %v", err)
			}
		})
	}
}

func TestSetRefCAS(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "1", nil)
	c2 := commitFiles(t, dir, "2", nil)
	r := open(t, dir)
	tree := Hash(gitOut(t, dir, "rev-parse", "HEAD^{tree}"))
	rec, err := r.WriteCommit(tree, c2, "skip feat/T001: not needed\n")
	if err != nil {
		t.Fatal(err)
	}
	name := "refs/speccoder/skipped/feat/T001"
	if err := r.SetRef(name, "", rec); err != nil {
		t.Fatal(err)
	}
	if err := r.SetRef(name, "", c1); !errors.Is(err, ErrRefChanged) {
		t.Errorf("SetRef with stale old = %v, want ErrRefChanged", err)
	}
	if err := r.SetRef(name, rec, c1); err != nil {
		t.Fatal(err)
	}
	if got := gitOut(t, dir, "rev-parse", name); got != string(c1) {
		t.Errorf("ref = %s, want %s", got, c1)
	}
	if got := gitOut(t, dir, "log", "-1", "--format=%an <%ae>%n%P%n%s", string(rec)); got != "taskproof <taskproof@users.noreply.invalid>\n"+string(c2)+"\nskip feat/T001: not needed" {
		t.Errorf("record commit = %q", got)
	}
	for _, bad := range []string{"HEAD", "refs/x/../y", "refs/a.lock", "refs/a b", "refs/.x"} {
		if err := r.SetRef(bad, "", c1); !errors.Is(err, ErrBadRefName) {
			t.Errorf("SetRef(%q) = %v, want ErrBadRefName", bad, err)
		}
	}
	testenv.Git(t, dir, "fsck", "--strict", "--no-progress")
}
