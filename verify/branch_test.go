package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
)

// tickRow is a tick result reduced to what the gate decided.
type tickRow struct {
	Commit     gitref.Hash
	TaskID     string
	Status     string
	Reason     string
	SameTreeAs gitref.Hash
}

func rows(rep *Report) []tickRow {
	out := []tickRow{}
	for _, tr := range rep.Ticks {
		out = append(out, tickRow{tr.Commit, tr.TaskID, tr.Status, tr.Reason, tr.SameTreeAs})
	}
	return out
}

func checkGate(t *testing.T, rep *Report, conclusion string, want []tickRow) {
	t.Helper()
	if got := rows(rep); !reflect.DeepEqual(got, want) {
		if len(got) != len(want) {
			t.Errorf("%d ticks, want %d:\n got %+v\nwant %+v", len(got), len(want), got, want)
		} else {
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("tick %d: got %+v, want %+v; reasons %+v", i, got[i], want[i], rep.Ticks[i].Reasons)
				}
			}
		}
	}
	if rep.Conclusion != conclusion {
		t.Errorf("conclusion %s, want %s", rep.Conclusion, conclusion)
	}
	for _, tr := range rep.Ticks {
		if failing := tr.Status != StatusEvidenced && tr.Status != StatusSuperseded; tr.Failing != failing {
			t.Errorf("%s %s: failing %v with status %s", tr.Commit, tr.TaskID, tr.Failing, tr.Status)
		}
	}
}

// TestBranchEditedAfterTick: a ticked task's text changed in a later commit.
func TestBranchEditedAfterTick(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.RegressionOnly, f.signer)
	c2 := f.edit(fxDir+"/tasks.md", "greet Ada", "greet Bob", "reword T002")

	rep := f.branch(f.base, c2, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T002", StatusEdited, ReasonEditedAfterTick, ""},
	})
	if m := rep.Ticks[1].Message; !strings.Contains(m, "greet Ada") || !strings.Contains(m, "greet Bob") {
		t.Errorf("edit message %q does not show both lines", m)
	}
	if rep.Summary[ReasonEditedAfterTick] != 1 || rep.Summary[StatusEvidenced] != 1 {
		t.Errorf("summary %v", rep.Summary)
	}
}

// TestBranchStale: the requirement a tick cites (US1) changed after the tick;
// a change to another story does not make it stale.
func TestBranchStale(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.RegressionOnly, f.signer)
	c2 := f.edit(fxDir+"/spec.md", "Bonjour, Ada !", "Salut, Ada !", "US2: informal French")
	checkGate(t, f.branch(f.base, c2, GateOptions{}), Success, []tickRow{{c1, "T002", StatusEvidenced, "", ""}})

	c3 := f.edit(fxDir+"/spec.md", "sees a friendly greeting", "sees a warm greeting", "US1: warmer")
	rep := f.branch(f.base, c3, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{{c1, "T002", StatusStale, "", ""}})
	tr := rep.Ticks[0]
	if tr.Outcome != OK || tr.Evidence != c1 {
		t.Errorf("outcome %s evidence %s, want ok on %s", tr.Outcome, tr.Evidence, c1)
	}
	if got := codes(tr.Reasons); !reflect.DeepEqual(got, []string{CodeSectionHash}) {
		t.Errorf("codes %v", got)
	}
	// The object itself still verifies: staleness is the gate's finding.
	if rs := f.object(c1); rs[0].Outcome != OK {
		t.Errorf("object outcome %s", rs[0].Outcome)
	}
}

// TestBranchSquashMerge: a feature branch's ticks were attested on its commits,
// then squash-merged; the squash commit carries no notes.
func TestBranchSquashMerge(t *testing.T) {
	f := newFixture(t)
	f.git("switch", "-q", "-c", "feature")
	f1 := f.tick("T002")
	f.attest(f1, predicate.RegressionOnly, f.signer)
	f2 := f.tick("T003")
	f.attest(f2, predicate.RegressionOnly, f.signer)
	f.git("switch", "-q", "main")
	f.git("merge", "-q", "--squash", "feature")
	f.git("commit", "-q", "-m", "feature (squashed)")
	s := f.head()

	rep := f.branch(f.base, s, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{s, "T002", StatusUnverifiable, ReasonCommitUnreachable, ""}, // F1's tree is not S's
		{s, "T003", StatusUnverifiable, ReasonCommitUnreachable, f2}, // F2's tree is S's
	})
	if rep.Summary[ReasonCommitUnreachable] != 2 {
		t.Errorf("summary %v", rep.Summary)
	}
}

// TestBranchTrueMerge: ticks made on a feature branch and merged with a merge
// commit are judged on the feature commits; the merge's own diff against its
// first parent repeats them and is not counted again.
func TestBranchTrueMerge(t *testing.T) {
	f := newFixture(t)
	f.git("switch", "-q", "-c", "feature")
	f1 := f.tick("T002")
	f.attest(f1, predicate.Verified, f.signer)
	f2 := f.tick("T003")
	f.attest(f2, predicate.RegressionOnly, f.signer)
	f.git("switch", "-q", "main")
	m0 := f.commit("docs", map[string]string{"README.md": "greet\n"})
	f.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	m := f.head()

	rep := f.branch(f.base, m, GateOptions{})
	checkGate(t, rep, Success, []tickRow{
		{f1, "T002", StatusEvidenced, "", ""},
		{f2, "T003", StatusEvidenced, "", ""},
	})
	if rep.Summary[StatusEvidenced] != 2 || len(rep.Objects) != 2 {
		t.Errorf("summary %v, %d objects", rep.Summary, len(rep.Objects))
	}

	// A tick made on main after the branch point is judged on main's commit.
	m1 := f.tick("T005")
	rep = f.branch(m0, m1, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{f1, "T002", StatusEvidenced, "", ""},
		{f2, "T003", StatusEvidenced, "", ""},
		{m1, "T005", StatusUnverifiable, ReasonTickedWithoutEvidence, ""},
	})
}

// TestBranchRequireVerified: --require-verified fails regression_only ticks.
func TestBranchRequireVerified(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.Verified, f.signer)
	c2 := f.tick("T003")
	f.attest(c2, predicate.RegressionOnly, f.signer)

	checkGate(t, f.branch(f.base, c2, GateOptions{}), Success, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusEvidenced, "", ""},
	})
	rep := f.branch(f.base, c2, GateOptions{RequireVerified: true})
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusUnverifiable, ReasonNotVerified, ""},
	})
	if rep.Ticks[1].Verdict != "regression_only" {
		t.Errorf("verdict %q", rep.Ticks[1].Verdict)
	}
	orep, err := f.verifier().Objects([]gitref.Hash{c1, c2}, GateOptions{RequireVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	if orep.Conclusion != Failure {
		t.Errorf("Objects with RequireVerified: %s", orep.Conclusion)
	}
	orep, err = f.verifier().Objects([]gitref.Hash{c1}, GateOptions{RequireVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	if orep.Conclusion != Success {
		t.Errorf("Objects of the verified tick with RequireVerified: %s", orep.Conclusion)
	}
}

// TestBranchRanges: nothing to check is neutral; unticks are listed and do not
// fail; base "" is the whole history (the root commit has no ticks).
func TestBranchRanges(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002", "T003")
	f.attest(c1, predicate.RegressionOnly, f.signer)
	c2 := f.commit("docs", map[string]string{"README.md": "greet\n"})
	rep := f.branch(c1, c2, GateOptions{})
	if rep.Conclusion != Neutral || len(rep.Ticks) != 0 {
		t.Errorf("no ticks: conclusion %s, ticks %+v", rep.Conclusion, rep.Ticks)
	}
	c3 := f.edit(fxDir+"/tasks.md", "- [x] T003 ", "- [ ] T003 ", "reopen T003")
	rep = f.branch(c1, c3, GateOptions{})
	if rep.Conclusion != Neutral || len(rep.Unticks) != 1 || rep.Unticks[0].TaskID != "T003" || rep.Summary["unticked"] != 1 {
		t.Errorf("untick: conclusion %s, unticks %+v", rep.Conclusion, rep.Unticks)
	}
	rep = f.branch("", c3, GateOptions{})
	checkGate(t, rep, Success, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c1, "T003", StatusEvidenced, "", ""}, // unticked later, and evidenced
	})
	if rep.Base != "" || rep.Head != c3 || len(rep.Unticks) != 1 {
		t.Errorf("base %q head %s unticks %d", rep.Base, rep.Head, len(rep.Unticks))
	}
}

// TestBranchMergeRetick: T002 is ticked with evidence, reopened and reworded on
// main, and then ticked again inside a merge commit that brings in nothing
// about T002. The merge's tick is new (no parent it merges ticks T002) and has
// no evidence: the gate must judge it, not skip it because an older commit of
// the range ticked the same task.
func TestBranchMergeRetick(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.RegressionOnly, f.signer)
	c2 := f.edit(fxDir+"/tasks.md", "- [x] T002 [US1] Write the acceptance test for greet Ada", "- [ ] T002 [US1] Write the acceptance test for greet Bob", "reopen and reword T002")
	f.git("switch", "-q", "-c", "side")
	f.commit("docs", map[string]string{"README.md": "greet\n"})
	f.git("switch", "-q", "main")
	f.commit("more docs", map[string]string{"CONTRIBUTING.md": "be kind\n"})
	f.git("merge", "-q", "--no-ff", "--no-commit", "side")
	s := f.read(fxDir + "/tasks.md")
	if err := os.WriteFile(filepath.Join(f.dir, fxDir, "tasks.md"), []byte(strings.Replace(s, "- [ ] T002 ", "- [x] T002 ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	f.git("add", "-A")
	f.git("commit", "-q", "-m", "merge side")
	m := f.head()

	rep := f.branch(f.base, m, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		// c1's statement is about T002's old wording, not this line: it is
		// not this tick's evidence elsewhere (no carry to suggest).
		{m, "T002", StatusUnverifiable, ReasonTickedWithoutEvidence, ""},
	})
	if len(rep.Unticks) != 1 || rep.Unticks[0].Commit != c2 {
		t.Errorf("unticks %+v", rep.Unticks)
	}
}
