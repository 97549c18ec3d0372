package carry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/carry"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
)

// ResolvePairs reads attest carry's arguments: two revisions are one pair;
// two ranges are paired by their ticks (the attested tick commit of the
// original range with its rebased copy); a range and a revision are a
// squash, not pairs; a revision with a range the other way round is
// ErrArguments; a range whose attested ticks are the other range's own
// commits is ErrNothingToCarry.
func TestResolvePairs(t *testing.T) {
	dir := testenv.NewRepo(t)
	c0 := gitref.Hash(testenv.CommitFiles(t, dir, "plan", map[string]string{"specs/001-calc/spec.md": specMD, "specs/001-calc/tasks.md": tasksOpen}))
	c1 := gitref.Hash(testenv.CommitFiles(t, dir, "add", map[string]string{"specs/001-calc/tasks.md": tick(tasksOpen, "T001", "T002"), "calc.go": "package calc\n"}))
	repo, notes := open(t, dir)
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{
		Commit: c1, Verdict: predicate.RegressionOnly, Regression: map[string]any{"reason": "planning_work"}, Time: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
	}); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "checkout", "-q", "-b", "side", string(c0))
	testenv.CommitFiles(t, dir, "side base", map[string]string{"NOTICE": "side\n"})
	side := gitref.Hash(testenv.CommitFiles(t, dir, "add again", map[string]string{"specs/001-calc/tasks.md": tick(tasksOpen, "T001", "T002"), "calc.go": "package calc\n"}))
	repo, notes = open(t, dir)

	plan, err := carry.ResolvePairs(repo, notes, string(c1), "side")
	if err != nil || len(plan.Pairs) != 1 || plan.Pairs[0].From != c1 || plan.Pairs[0].To != side || plan.Pairs[0].Tasks != nil {
		t.Errorf("two revisions: %+v, %v; want the pair %s -> %s", plan, err, c1, side)
	}
	plan, err = carry.ResolvePairs(repo, notes, string(c0)+".."+string(c1), string(c0)+"..side")
	if err != nil || len(plan.Pairs) != 1 || plan.Pairs[0].From != c1 || plan.Pairs[0].To != side || len(plan.Pairs[0].Tasks) != 2 {
		t.Errorf("two ranges: %+v, %v; want %s -> %s for T001 and T002", plan, err, c1, side)
	}
	if !carry.IsSquash(string(c0)+".."+string(c1), "side") || carry.IsSquash("main", "side") || carry.IsSquash("main", string(c0)+"..side") {
		t.Error("IsSquash: want a range and a revision alone")
	}
	if _, err := carry.ResolvePairs(repo, notes, "main", string(c0)+"..side"); !errors.Is(err, carry.ErrArguments) || !strings.Contains(err.Error(), "takes two revisions, two ranges") {
		t.Errorf("a revision and a range: %v, want ErrArguments", err)
	}
	plan, err = carry.ResolvePairs(repo, notes, string(c0)+".."+string(c1), string(c0)+".."+string(c1))
	if !errors.Is(err, carry.ErrNothingToCarry) || plan == nil || len(plan.Kept) != 1 {
		t.Errorf("a range onto itself: %+v, %v; want ErrNothingToCarry with the plan keeping %s", plan, err, c1)
	}
	if _, err := carry.ResolvePairs(repo, notes, strings.Repeat("a", 40), "side"); !errors.Is(err, gitref.ErrUnknownRevision) || !strings.Contains(err.Error(), "another clone") {
		t.Errorf("an object id this clone lacks: %v", err)
	}
}
