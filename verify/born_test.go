package verify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
)

// TestBranchBornTicks: a task added already ticked to an existing tasks file is
// a tick the gate judges (ticked_without_evidence until attested, then
// evidenced); a tick that also rewrites the task's text is evidenced by the
// attestation of the text as ticked; the ticked tasks of tasks files new in
// their commit fail as born_ticked without evidence, and are listed in
// born_ticked (a merge's repeat of them once only), not failing, where the
// verifier's policy allows them. JSON and text reports list them.
func TestBranchBornTicks(t *testing.T) {
	f := newFixture(t)
	tasks := fxDir + "/tasks.md"
	c1 := f.edit(tasks, "- [ ] T006 [US2] Add --lang de\n", "- [ ] T006 [US2] Add --lang de\n- [x] T007 [US2] Add --lang es\n", "add T007, done")
	c2 := f.edit(tasks, "- [ ] T002 [US1] Write the acceptance test for greet Ada", "- [x] T002 [US1] Write the acceptance test for greet Ada and Bob", "T002 done, reworded")
	c3 := f.commit("import unit 002", map[string]string{"specs/002-import/tasks.md": "- [x] T001 Imported\n- [ ] T002 Still open\n"})
	f.git("switch", "-q", "-c", "feature")
	s1 := f.commit("unit 003", map[string]string{"specs/003-side/tasks.md": "- [x] T001 Side\n"})
	f.git("switch", "-q", "main")
	f.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	m := f.head()

	// The Born tick without evidence is not let through; the reworded tick's
	// attestation covers its text as ticked.
	f.attest(c2, predicate.Verified, f.signer)
	rep := f.branch(f.base, m, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T007", StatusUnverifiable, ReasonTickedWithoutEvidence, ""},
		{c2, "T002", StatusEvidenced, "", ""},
		{c3, "T001", StatusBornTicked, ReasonTickedWithoutEvidence, ""},
		{s1, "T001", StatusBornTicked, ReasonTickedWithoutEvidence, ""},
	})

	f.attest(c1, predicate.RegressionOnly, f.signer)
	// The ticked tasks of the new tasks files have no evidence: they fail as
	// born_ticked, unless the verifier's policy allows them there.
	rep = f.branch(f.base, m, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T007", StatusEvidenced, "", ""},
		{c2, "T002", StatusEvidenced, "", ""},
		{c3, "T001", StatusBornTicked, ReasonTickedWithoutEvidence, ""},
		{s1, "T001", StatusBornTicked, ReasonTickedWithoutEvidence, ""},
	})
	pol, err := policy.Parse([]byte("version = 1\n[born_ticked]\nallow = [\"specs/002-import/**\", \"specs/003-*/tasks.md\"]\n"), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	f.policy = pol
	rep = f.branch(f.base, m, GateOptions{})
	checkGate(t, rep, Success, []tickRow{
		{c1, "T007", StatusEvidenced, "", ""},
		{c2, "T002", StatusEvidenced, "", ""},
	})
	type born struct {
		commit gitref.Hash
		path   string
		line   int
		task   string
	}
	var got []born
	for _, b := range rep.BornTicked {
		got = append(got, born{b.Commit, b.Path, b.Line, b.Task})
		if b.Status != StatusBornTicked || b.Failing || b.Message == "" {
			t.Errorf("born_ticked entry %+v", b)
		}
	}
	want := []born{
		{c3, "specs/002-import/tasks.md", 1, "002-import/T001"},
		{s1, "specs/003-side/tasks.md", 1, "003-side/T001"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("born_ticked = %+v, want %+v (the merge's repeat of %s not listed)", got, want, s1)
	}
	if rep.Summary[StatusBornTicked] != 2 || rep.Summary[StatusEvidenced] != 2 {
		t.Errorf("summary %v", rep.Summary)
	}

	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		BornTicked []struct {
			Commit, Path, Task, Status string
			Failing                    bool
		} `json:"born_ticked"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.BornTicked) != 2 || doc.BornTicked[0].Status != "born_ticked" ||
		doc.BornTicked[0].Path != "specs/002-import/tasks.md" || doc.BornTicked[0].Failing {
		t.Errorf("JSON born_ticked = %+v (%v)\n%s", doc.BornTicked, err, buf.String())
	}
	buf.Reset()
	if err := writeReport(&buf, "text", rep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, line := range []string{
		"2 task(s) ticked in tasks files new in their commit (allowed by the verifier's policy, no evidence required):\n",
		"  " + printable.Short(string(c3)) + " specs/002-import/tasks.md:1 002-import/T001 born ticked\n",
		"  " + printable.Short(string(s1)) + " specs/003-side/tasks.md:1 003-side/T001 born ticked\n",
		"conclusion: success\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("text report lacks %q:\n%s", line, text)
		}
	}

	// Objects mode: born_ticked is an empty list, not null.
	orep, err := f.verifier().Objects([]gitref.Hash{c1}, GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := WriteJSON(&buf, orep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"born_ticked": []`) || orep.Conclusion != Success {
		t.Errorf("objects report (%s):\n%s", orep.Conclusion, buf.String())
	}
}

// TestBranchMergedUnitNotBornAgain: a side branch adds a unit with open tasks
// and ticks one (attested); the merge sees the unit's file as new against its
// first parent, with the task ticked. That born_ticked repeat is the side
// commit's tick, judged there: the gate passes.
func TestBranchMergedUnitNotBornAgain(t *testing.T) {
	f := newFixture(t)
	f.git("switch", "-q", "-c", "side")
	f.commit("unit 002", map[string]string{"specs/002-side/tasks.md": "- [ ] T001 Side\n- [ ] T002 Other\n"})
	s2 := f.edit("specs/002-side/tasks.md", "- [ ] T001 Side", "- [x] T001 Side", "T001 done")
	f.attest(s2, predicate.RegressionOnly, f.signer)
	f.git("switch", "-q", "main")
	f.commit("docs", map[string]string{"README.md": "x\n"})
	f.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	rep := f.branch(f.base, f.head(), GateOptions{})
	checkGate(t, rep, Success, []tickRow{{s2, "T001", StatusEvidenced, "", ""}})
}
