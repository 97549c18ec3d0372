package verify

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
)

// TestRepeatedTaskID: a tasks file that writes one task ID on two lines makes
// only that ID ambiguous (README "Choices", item 10). The other tasks of the
// file attest and verify normally; an attestation of the repeated ID is
// malformed (duplicate_task_id) at the object, and a tick whose ID has come to
// repeat at head is unverifiable (malformed, duplicate_task_id) at the gate.
func TestRepeatedTaskID(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.RegressionOnly, f.signer)
	// c2 adds a second, open "T002" line: not a tick, but T002 now repeats.
	c2 := f.commit("another T002", map[string]string{fxDir + "/tasks.md": f.read(fxDir+"/tasks.md") + "- [ ] T002 Greet a second time\n"})
	dupLines := strings.Count(f.read(fxDir+"/tasks.md"), "\n") // the new line's number
	// c3 ticks T003 in the file that repeats T002: attested and evidenced.
	c3 := f.tick("T003")
	f.attest(c3, predicate.RegressionOnly, f.signer)

	rep := f.branch(f.base, c3, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusUnverifiable, string(Malformed), ""},
		{c3, "T003", StatusEvidenced, "", ""},
	})
	tr := rep.Ticks[0]
	if got := codes(tr.Reasons); tr.Outcome != Malformed || !slices.Contains(got, CodeDuplicateTaskID) {
		t.Errorf("T002 at head: outcome %s, codes %v; want malformed with %s", tr.Outcome, got, CodeDuplicateTaskID)
	}
	if r := tr.Reasons[len(tr.Reasons)-1]; !strings.Contains(r.Message, `duplicate task id "T002" on lines`) || !strings.HasSuffix(r.Found, " "+strconv.Itoa(dupLines)) {
		t.Errorf("T002 reason %+v, want the two lines (second %d)", r, dupLines)
	}
	// Before c2, T002 is not repeated at head: evidenced.
	checkGate(t, f.branch(f.base, c1, GateOptions{}), Success, []tickRow{{c1, "T002", StatusEvidenced, "", ""}})

	// The object check: c3's T003 is ok; c1's note copied onto c2 (where T002
	// repeats) is malformed for the repeated ID whatever else differs.
	if rs := f.object(c3); len(rs) != 1 || rs[0].Outcome != OK {
		t.Errorf("object %s: %+v", c3, rs)
	}
	f.git("notes", "--ref", gitref.DefaultNotesRef, "copy", string(c1), string(c2))
	rs := f.object(c2)
	if len(rs) != 1 || rs[0].Outcome != Malformed || !slices.Contains(codes(rs[0].Reasons), CodeDuplicateTaskID) {
		t.Errorf("object %s with T002 repeated: %+v", c2, rs)
	}
}
