package carry_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/carry"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/notesref"
	"github.com/taskproof/taskproof/predicate"
)

// The spec and tasks of the test repository: a spec-kit feature.
const specMD = "# Feature spec\n\n## User Scenarios\n\n### User Story 1 - Add numbers (Priority: P1)\n\nA user adds two numbers.\n\n### User Story 2 - Subtract\n\nA user subtracts.\n"

const tasksOpen = "# Tasks\n\n- [ ] T001 [US1] Write the failing add test\n- [ ] T002 [P] [US1] Implement add\n- [ ] T003 [US2] Implement subtract\n"

// tick returns tasks with the boxes of ids ticked.
func tick(tasks string, ids ...string) string {
	for _, id := range ids {
		tasks = strings.Replace(tasks, "- [ ] "+id+" ", "- [x] "+id+" ", 1)
	}
	return tasks
}

// note reads commit's note with the real git ("" when there is none).
func note(t testing.TB, dir string, commit gitref.Hash) string {
	t.Helper()
	cmd := exec.Command("git", "notes", "--ref", notesref.Default, "show", string(commit))
	cmd.Dir, cmd.Env = dir, testenv.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// open opens the repository at dir and its default notes ref.
func open(t testing.TB, dir string) (*gitref.Repo, *gitref.NotesStore) {
	t.Helper()
	repo, err := gitref.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	notes, err := repo.Notes(notesref.Default)
	if err != nil {
		t.Fatal(err)
	}
	return repo, notes
}

// setRawNote replaces commit's note with note, byte for byte.
func setRawNote(t testing.TB, dir string, commit gitref.Hash, note string) {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), strings.NewReader(note)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "notes", "--ref", notesref.Default, "add", "-f", "-C", strings.TrimSpace(string(out)), string(commit))
}

// Carry refuses, by default and before writing anything, a FROM whose note
// holds a Sigstore bundle: it cannot re-issue one, and carrying the note's
// other lines would leave that tick behind. Without the bundle line the same
// carry goes through.
func TestCarryRefusesBundles(t *testing.T) {
	dir := testenv.NewRepo(t)
	c0 := testenv.CommitFiles(t, dir, "plan", map[string]string{"specs/001-calc/spec.md": specMD, "specs/001-calc/tasks.md": tasksOpen})
	c1 := gitref.Hash(testenv.CommitFiles(t, dir, "add", map[string]string{"specs/001-calc/tasks.md": tick(tasksOpen, "T001", "T002"), "calc.go": "package calc\n"}))
	repo, notes := open(t, dir)
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
		Commit: c1, Verdict: predicate.RegressionOnly, Regression: map[string]any{"reason": "planning_work"}, Time: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
	}); err != nil {
		t.Fatal(err)
	}
	// side: c1 rebased onto another commit, ticking T001 and T002 again.
	testenv.Git(t, dir, "checkout", "-q", "-b", "side", c0)
	testenv.CommitFiles(t, dir, "side base", map[string]string{"NOTICE": "side\n"})
	side := gitref.Hash(testenv.CommitFiles(t, dir, "add again", map[string]string{"specs/001-calc/tasks.md": tick(tasksOpen, "T001", "T002"), "calc.go": "package calc\n"}))

	plain := note(t, dir, c1)
	bundle := `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{},"dsseEnvelope":{}}`
	lines := strings.Count(plain, "\n")
	setRawNote(t, dir, c1, plain+bundle+"\n")
	withBundle := note(t, dir, c1)

	repo, notes = open(t, dir)
	if err := carry.CheckNoBundles(notes, c1, side); !errors.Is(err, attest.ErrRequest) {
		t.Errorf("CheckNoBundles = %v, want ErrRequest", err)
	}
	_, err := carry.Carry(context.Background(), repo, notes, carry.Request{From: c1, To: side, UnverifiedFromUnsafe: true})
	want := fmt.Sprintf("holds a Sigstore bundle (line %d)", lines+1)
	if !errors.Is(err, attest.ErrRequest) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Carry from a note with a bundle = %v, want ErrRequest saying %q", err, want)
	}
	if got := note(t, dir, c1); got != withBundle {
		t.Errorf("FROM's note changed:\n%s", got)
	}
	if got := note(t, dir, side); got != "" {
		t.Errorf("TO got a note:\n%s", got)
	}

	setRawNote(t, dir, c1, plain)
	repo, notes = open(t, dir)
	if err := carry.CheckNoBundles(notes, c1, side); err != nil {
		t.Errorf("CheckNoBundles without a bundle = %v", err)
	}
	res, err := carry.Carry(context.Background(), repo, notes, carry.Request{From: c1, To: side, DryRun: true, UnverifiedFromUnsafe: true})
	if err != nil || len(res.Written) != 2 {
		t.Fatalf("Carry without the bundle = %+v, %v; want T001 and T002", res, err)
	}
}
