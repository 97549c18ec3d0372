package attest_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
)

// setRawNote replaces commit's note with note, byte for byte.
func setRawNote(t testing.TB, dir string, commit gitref.Hash, note string) {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), strings.NewReader(note)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "notes", "--ref", gitref.DefaultNotesRef, "add", "-f", "-C", strings.TrimSpace(string(out)), string(commit))
}

// Carry refuses, by default and before writing anything, a FROM whose note
// holds a Sigstore bundle: it cannot re-issue one, and carrying the note's
// other lines would leave that tick behind. Without the bundle line the same
// carry goes through.
func TestCarryRefusesBundles(t *testing.T) {
	r := newTickRepo(t)
	repo, notes := r.open(t)
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
		Commit: r.c1, Verdict: predicate.RegressionOnly, Regression: map[string]any{"reason": "planning_work"}, Time: fixedTime,
	}); err != nil {
		t.Fatal(err)
	}
	// side: c1 rebased onto another commit, ticking T001 and T002 again.
	testenv.Git(t, r.dir, "checkout", "-q", "-b", "side", string(r.c0))
	writeFile(t, r.dir, "NOTICE", "side\n")
	commitAll(t, r.dir, "side base")
	writeFile(t, r.dir, "specs/001-calc/tasks.md", tick(tasksOpen, "T001", "T002"))
	writeFile(t, r.dir, "calc.go", "package calc\n")
	side := commitAll(t, r.dir, "add again")

	plain := note(t, r.dir, r.c1)
	bundle := `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{},"dsseEnvelope":{}}`
	lines := strings.Count(plain, "\n")
	setRawNote(t, r.dir, r.c1, plain+bundle+"\n")
	withBundle := note(t, r.dir, r.c1)

	repo, notes = r.open(t)
	if err := attest.CheckNoBundles(notes, r.c1, side); !errors.Is(err, attest.ErrRequest) {
		t.Errorf("CheckNoBundles = %v, want ErrRequest", err)
	}
	_, err := attest.Carry(context.Background(), repo, notes, attest.CarryRequest{From: r.c1, To: side, UnverifiedFromUnsafe: true})
	want := fmt.Sprintf("holds a Sigstore bundle (line %d)", lines+1)
	if !errors.Is(err, attest.ErrRequest) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Carry from a note with a bundle = %v, want ErrRequest saying %q", err, want)
	}
	if got := note(t, r.dir, r.c1); got != withBundle {
		t.Errorf("FROM's note changed:\n%s", got)
	}
	if got := note(t, r.dir, side); got != "" {
		t.Errorf("TO got a note:\n%s", got)
	}

	setRawNote(t, r.dir, r.c1, plain)
	repo, notes = r.open(t)
	if err := attest.CheckNoBundles(notes, r.c1, side); err != nil {
		t.Errorf("CheckNoBundles without a bundle = %v", err)
	}
	res, err := attest.Carry(context.Background(), repo, notes, attest.CarryRequest{From: r.c1, To: side, DryRun: true, UnverifiedFromUnsafe: true})
	if err != nil || len(res.Written) != 2 {
		t.Fatalf("Carry without the bundle = %+v, %v; want T001 and T002", res, err)
	}
}
