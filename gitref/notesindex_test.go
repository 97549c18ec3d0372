package gitref

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestNotesIndexMatchesAll checks that NotesIndex.Read reads every note as
// ReadEntry reads All's entry for it (same bytes, same error), in a notes
// tree mixing flat notes, two levels of fan-out, a commit with notes at two
// paths, a binary note and an entry that is no note; and that commits
// without a note, or not written as All writes them, have none.
func TestNotesIndexMatchesAll(t *testing.T) {
	dir := newRepo(t)
	a := commitFiles(t, dir, "a", map[string]string{"f": "a\n"})
	b := commitFiles(t, dir, "b", map[string]string{"f": "b\n"})
	c := commitFiles(t, dir, "c", map[string]string{"f": "c\n"})
	d := commitFiles(t, dir, "d", map[string]string{"f": "d\n"})
	none := commitFiles(t, dir, "none", map[string]string{"f": "none\n"})
	run := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	blob := func(content string) string { return run(content, "hash-object", "-w", "--stdin") }
	mktree := func(lines ...string) string { return run(strings.Join(lines, "\n")+"\n", "mktree") }
	sub2 := mktree("100644 blob " + blob("deep\n") + "\t" + string(b[4:]))
	sub1 := mktree("040000 tree " + sub2 + "\t" + string(b[2:4]))
	subD := mktree("100644 blob " + blob("d fanned\n") + "\t" + string(d[2:]))
	lines := []string{
		"100644 blob " + blob("flat\n") + "\t" + string(a),
		"100644 blob " + blob("bin\x00ary") + "\t" + string(c),
		"100644 blob " + blob("d flat") + "\t" + string(d),
		"100644 blob " + blob("not a note") + "\tREADME",
	}
	if b[:2] == d[:2] {
		t.Skip("b and d share their first byte") // one fan-out directory each
	}
	lines = append(lines, "040000 tree "+sub1+"\t"+string(b[:2]), "040000 tree "+subD+"\t"+string(d[:2]))
	nc := run("", "commit-tree", "-m", "mixed", mktree(lines...))
	testenv.Git(t, dir, "update-ref", "refs/notes/speccoder", nc)

	s, _ := open(t, dir).Notes("")
	all, err := s.All()
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.store().Index()
	if err != nil {
		t.Fatal(err)
	}
	read, err := s.NoteReader(noteScanMin)
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(all) || len(all) != 4 {
		t.Fatalf("Index holds %d commits, All lists %d (want 4)", x.Len(), len(all))
	}
	for _, e := range all {
		if e.Commit == d && len(e.Paths) != 2 {
			t.Fatalf("All lists %s at %v, not at two paths", d, e.Paths)
		}
		want, werr := s.ReadEntry(e)
		got, ok, gerr := x.Read(e.Commit)
		if !ok || string(got) != string(want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Errorf("%s: Read = %q, %v, %v; ReadEntry = %q, %v", e.Commit, got, ok, gerr, want, werr)
		}
		if got, err := read(e.Commit); string(got) != string(want) || fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Errorf("%s: NoteReader's = %q, %v; ReadEntry = %q, %v", e.Commit, got, err, want, werr)
		}
	}
	for _, id := range []Hash{none, Hash(strings.ToUpper(string(a))), "a"} {
		if got, ok, err := x.Read(id); ok || got != nil || err != nil {
			t.Errorf("Read(%s) = %q, %v, %v; want no note", id, got, ok, err)
		}
		if got, err := read(id); got != nil || !errors.Is(err, ErrNoNote) {
			t.Errorf("NoteReader's (%s) = %q, %v; want ErrNoNote", id, got, err)
		}
	}
}
