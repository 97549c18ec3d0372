package verify

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/notesref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// Task lines that repeat an ID in the fixture's tasks file (one under each user
// story), and the lines added to it for them.
const (
	dupT007US1 = "- [ ] T007 [US1] Greet in capitals"
	dupT007US2 = "- [ ] T007 [US2] Add --lang es"
	dupT008US1 = "- [ ] T008 [US1] Trim the name"
	dupT008US2 = "- [ ] T008 [US2] Add --lang it"
)

// withRepeats is the fixture's tasks file with T007 and T008 written twice, once
// under each user story.
func withRepeats(tasks string) string {
	tasks = strings.Replace(tasks, "- [ ] T004 [US1] Default the name to world\n", "- [ ] T004 [US1] Default the name to world\n"+dupT007US1+"\n"+dupT008US1+"\n", 1)
	return strings.Replace(tasks, "- [ ] T006 [US2] Add --lang de\n", "- [ ] T006 [US2] Add --lang de\n"+dupT007US2+"\n"+dupT008US2+"\n", 1)
}

// tickLines ticks the given open task lines of tasks.md (each written once) in
// one commit.
func (f *fixture) tickLines(lines ...string) gitref.Hash {
	f.t.Helper()
	s := f.read(fxDir + "/tasks.md")
	for _, l := range lines {
		if strings.Count(s, l+"\n") != 1 {
			f.t.Fatalf("%q is not in tasks.md once", l)
		}
		s = strings.Replace(s, l+"\n", strings.Replace(l, "[ ]", "[x]", 1)+"\n", 1)
	}
	return f.commit("tick "+strings.Join(lines, ", "), map[string]string{fxDir + "/tasks.md": s})
}

// tvByLine returns the task-verification statements of c's note by their
// task.line_hash, and the note's line count.
func (f *fixture) tvByLine(c gitref.Hash) (map[string]map[string]any, int) {
	f.t.Helper()
	out := map[string]map[string]any{}
	ls := f.lines(c)
	for _, l := range ls {
		if l.predType == predicate.PredicateType {
			p := pred(l.statement)
			out[p["task"].(map[string]any)["line_hash"].(string)] = p
		}
	}
	return out, len(ls)
}

// TestRepeatedTaskIDLines: a task ID written on two lines of one tasks file
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also
// when its task ID repeats") is ticked line by line: each ticked line is a tick
// of its own, attested with that line's line_hash, title and section, and
// evidenced by the statement binding it — ticked in one commit or in two, and
// re-attested without losing the other line's statements. A statement maps to
// its tick by subject name and line hash, never by name alone.
func TestRepeatedTaskIDLines(t *testing.T) {
	f := newFixture(t)
	c0 := f.commit("T007 and T008 twice", map[string]string{fxDir + "/tasks.md": withRepeats(f.read(fxDir + "/tasks.md"))})
	h := func(open string) string { return predicate.LineHash(open) }

	// Both T007 lines in one commit.
	cA := f.tickLines(dupT007US1, dupT007US2)
	ws := f.attest(cA, predicate.RegressionOnly, f.signer)
	if len(ws) != 2 || ws[0].Subject != fxFeature+"/T007" || ws[1].Subject != fxFeature+"/T007" {
		t.Fatalf("attest %s: %+v", cA, ws)
	}
	tvs, n := f.tvByLine(cA)
	if n != 4 || len(tvs) != 2 {
		t.Fatalf("note of %s: %d lines, task-verification statements for %d lines; want 4 lines, 2", cA, n, len(tvs))
	}
	for _, tt := range []struct{ line, title, section string }{
		{dupT007US1, "Greet in capitals", "US1"},
		{dupT007US2, "Add --lang es", "US2"},
	} {
		p := tvs[h(tt.line)]
		if p == nil {
			t.Fatalf("no statement binds %q", tt.line)
		}
		task, spec := p["task"].(map[string]any), p["spec"].(map[string]any)
		if task["id"] != "T007" || task["title"] != tt.title || spec["section"] != tt.section {
			t.Errorf("%q: task %v spec %v; want T007 %q in %s", tt.line, task, spec, tt.title, tt.section)
		}
	}
	// Re-attesting replaces each line's own statements and keeps the other's.
	f.attest(cA, predicate.RegressionOnly, f.signer)
	if tvs, n = f.tvByLine(cA); n != 4 || len(tvs) != 2 {
		t.Errorf("re-attested %s: %d lines, %d task lines; want 4, 2", cA, n, len(tvs))
	}
	// The text report tells the two objects apart by their line_hash.
	orep, err := f.verifier().Objects([]gitref.Hash{cA}, GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := writeReport(&text, "text", orep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{dupT007US1, dupT007US2} {
		if want := "(line_hash " + h(line)[:12] + ")"; !strings.Contains(text.String(), want) {
			t.Errorf("text report does not show %s:\n%s", want, text.String())
		}
	}
	rs := f.object(cA)
	if len(rs) != 2 || rs[0].Outcome != OK || rs[1].Outcome != OK || rs[0].LineHash == rs[1].LineHash {
		t.Errorf("object %s: %+v", cA, rs)
	}

	// Both T008 lines in two commits.
	cB1 := f.tickLines(dupT008US2)
	f.attest(cB1, predicate.RegressionOnly, f.signer)
	cB2 := f.tickLines(dupT008US1)
	f.attest(cB2, predicate.RegressionOnly, f.signer)

	checkGate(t, f.branch(c0, cB2, GateOptions{}), Success, []tickRow{
		{cA, "T007", StatusEvidenced, "", ""},
		{cA, "T007", StatusEvidenced, "", ""},
		{cB1, "T008", StatusEvidenced, "", ""},
		{cB2, "T008", StatusEvidenced, "", ""},
	})

	// A statement of one line is not evidence for the other: without the
	// US2 line's statements, its tick has none (the US1 line's still holds).
	ls := f.lines(cA)
	var kept [][]byte
	for i, line := range statement.LineHashes(lineStatements(t, ls)) {
		if line == h(dupT007US1) {
			kept = append(kept, ls[i].raw)
		}
	}
	if len(kept) != 2 {
		t.Fatalf("note of %s: %d lines of the US1 tick, want 2", cA, len(kept))
	}
	f.setNoteLines(cA, kept)
	rep := f.branch(c0, cB2, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{cA, "T007", StatusEvidenced, "", ""},
		{cA, "T007", StatusUnverifiable, ReasonTickedWithoutEvidence, ""},
		{cB1, "T008", StatusEvidenced, "", ""},
		{cB2, "T008", StatusEvidenced, "", ""},
	})
	if tr := rep.Ticks[1]; !strings.Contains(tr.Message, "other task lines") {
		t.Errorf("US2 tick message %q, want it to say the note's statements bind other lines", tr.Message)
	}
	f.attest(cA, predicate.RegressionOnly, f.signer)

	// The US2 line's task-verification statement made unreadable (its payload
	// is not JSON): the note is malformed, and so is each tick it is for — the
	// US2 tick too, although no readable statement names its line.
	ls = f.lines(cA)
	var broken, whole [][]byte
	for i, line := range statement.LineHashes(lineStatements(t, ls)) {
		raw := ls[i].raw
		if st, _, _ := statement.FromLine(raw); line == h(dupT007US2) && st.PredicateType == predicate.PredicateType {
			raw = []byte(`{"payload":"e25vdCBqc29u","payloadType":"application/vnd.in-toto+json","signatures":[]}`)
		}
		broken, whole = append(broken, raw), append(whole, ls[i].raw)
	}
	f.setNoteLines(cA, broken)
	rep = f.branch(c0, cB2, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{cA, "T007", StatusUnverifiable, string(Malformed), ""},
		{cA, "T007", StatusUnverifiable, string(Malformed), ""},
		{cB1, "T008", StatusEvidenced, "", ""},
		{cB2, "T008", StatusEvidenced, "", ""},
	})
	if got := codes(rep.Ticks[1].Reasons); !slices.Contains(got, CodeStatement) {
		t.Errorf("US2 tick of a note whose US2 statement does not parse: codes %v, want %s", got, CodeStatement)
	}
	f.setNoteLines(cA, whole) // attest keeps a line it cannot read: put the note back

	// A statement whose line_hash is no line of the repeated ID: line_hash
	// mismatch at the object, and no evidence for the tick it was for.
	f.resign(cB1, func(st map[string]any) {
		pred(st)["task"].(map[string]any)["line_hash"] = h("- [ ] T008 [US2] Add --lang it!")
	}, f.signer)
	rs = f.object(cB1)
	if len(rs) != 1 || rs[0].Outcome != Mismatch || !slices.Contains(codes(rs[0].Reasons), CodeLineHash) {
		t.Errorf("object %s with a line_hash of no T008 line: %+v", cB1, rs)
	}
	checkGate(t, f.branch(c0, cB2, GateOptions{}), Failure, []tickRow{
		{cA, "T007", StatusEvidenced, "", ""},
		{cA, "T007", StatusEvidenced, "", ""},
		{cB1, "T008", StatusUnverifiable, ReasonTickedWithoutEvidence, ""},
		{cB2, "T008", StatusEvidenced, "", ""},
	})
	f.attest(cB1, predicate.RegressionOnly, f.signer)

	// The US2 T007 line edited at head while head repeats T007: that tick
	// cannot be told apart at head (malformed, duplicate_task_id) and head's
	// line comes from the edit, not from it (superseded,
	// docs/format.md#the-gates-model); the edit fails as every edit without
	// a statement of its own does; the US1 line's tick stays evidenced.
	cE := f.edit(fxDir+"/tasks.md", "- [x] T007 [US2] Add --lang es\n", "- [x] T007 [US2] Add --lang es and pt\n", "reword T007")
	rep = f.branch(c0, cE, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{cA, "T007", StatusEvidenced, "", ""},
		{cA, "T007", StatusSuperseded, "", ""},
		{cB1, "T008", StatusEvidenced, "", ""},
		{cB2, "T008", StatusEvidenced, "", ""},
		{cE, "T007", StatusEdited, ReasonEditedAfterTick, ""},
	})
	if tr := rep.Ticks[1]; tr.Outcome != Malformed || !slices.Contains(codes(tr.Reasons), CodeDuplicateTaskID) {
		t.Errorf("edited T007 at head: outcome %s, codes %v; want malformed with %s", tr.Outcome, codes(tr.Reasons), CodeDuplicateTaskID)
	}
}

// TestRepeatedTaskID: where a repeated ID cannot name one line, the tick fails
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also
// when its task ID repeats"). A tick stays evidenced when a second line with
// its ID comes at head and its own line is unchanged; it is unverifiable
// (malformed, duplicate_task_id) when head adds a line that reads the same as
// the ticked one, and its statement copied to that commit is malformed at the
// object. A tick of one of two lines that read the same is malformed (attest
// refuses it: attest/duplicate_test.go). A unique ID whose note holds
// statements of two lines is malformed (duplicate). The file's other tasks
// attest and verify normally throughout.
func TestRepeatedTaskID(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.RegressionOnly, f.signer)
	// c2 adds a second, open "T002" line: not a tick, but T002 now repeats;
	// the ticked line is unchanged, so the tick is still told apart at head.
	f.commit("another T002", map[string]string{fxDir + "/tasks.md": f.read(fxDir+"/tasks.md") + "- [ ] T002 Greet a second time\n"})
	// c3 ticks T003 in the file that repeats T002: attested and evidenced.
	c3 := f.tick("T003")
	f.attest(c3, predicate.RegressionOnly, f.signer)
	checkGate(t, f.branch(f.base, c3, GateOptions{}), Success, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c3, "T003", StatusEvidenced, "", ""},
	})

	// c4 adds an open line that reads as the ticked T002 line (line_hash reads
	// the box as open): at head the two cannot be told apart.
	const ticked = "- [x] T002 [US1] Write the acceptance test for greet Ada\n"
	tickedAt := strings.Count(f.read(fxDir + "/tasks.md")[:strings.Index(f.read(fxDir+"/tasks.md"), ticked)], "\n") + 1
	c4 := f.commit("T002 again", map[string]string{fxDir + "/tasks.md": f.read(fxDir+"/tasks.md") + strings.Replace(ticked, "[x]", "[ ]", 1)})
	copyAt := strings.Count(f.read(fxDir+"/tasks.md"), "\n")
	rep := f.branch(f.base, c4, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusUnverifiable, string(Malformed), ""},
		{c3, "T003", StatusEvidenced, "", ""},
	})
	tr := rep.Ticks[0]
	if got := codes(tr.Reasons); tr.Outcome != Malformed || !slices.Contains(got, CodeDuplicateTaskID) {
		t.Errorf("T002 at head: outcome %s, codes %v; want malformed with %s", tr.Outcome, got, CodeDuplicateTaskID)
	}
	if r := tr.Reasons[len(tr.Reasons)-1]; !strings.Contains(r.Message, `duplicate task id "T002" on lines`) || r.Found != fmt.Sprintf("lines %d and %d", tickedAt, copyAt) {
		t.Errorf("T002 reason %+v, want lines %d and %d", r, tickedAt, copyAt)
	}
	// The object check: c3's T003 is ok; c1's note copied onto c4 (where two
	// T002 lines read as the statement's) is malformed whatever else differs.
	if rs := f.object(c3); len(rs) != 1 || rs[0].Outcome != OK {
		t.Errorf("object %s: %+v", c3, rs)
	}
	f.git("notes", "--ref", notesref.Default, "copy", string(c1), string(c4))
	rs := f.object(c4)
	if len(rs) != 1 || rs[0].Outcome != Malformed || !slices.Contains(codes(rs[0].Reasons), CodeDuplicateTaskID) {
		t.Errorf("object %s with T002 read the same twice: %+v", c4, rs)
	}

	// Two open lines that read the same, one of them ticked: the tick is
	// malformed, naming both lines.
	const bye = "- [ ] T009 [US2] Say goodbye\n"
	f.commit("T009 twice", map[string]string{fxDir + "/tasks.md": f.read(fxDir+"/tasks.md") + bye + bye})
	last := strings.Count(f.read(fxDir+"/tasks.md"), "\n")
	c6 := f.commit("tick T009", map[string]string{fxDir + "/tasks.md": strings.Replace(f.read(fxDir+"/tasks.md"), bye, strings.Replace(bye, "[ ]", "[x]", 1), 1)})
	rep = f.branch(c4, c6, GateOptions{})
	checkGate(t, rep, Failure, []tickRow{{c6, "T009", StatusUnverifiable, string(Malformed), ""}})
	if r := rep.Ticks[0].Reasons; len(r) != 1 || r[0].Code != CodeDuplicateTaskID || r[0].Found != fmt.Sprintf("lines %d and %d", last-1, last) {
		t.Errorf("T009 reasons %+v, want %s on lines %d and %d", r, CodeDuplicateTaskID, last-1, last)
	}

	// A unique ID (T003) whose note holds statements of two task lines: at most
	// one can be about it, and the note is malformed (duplicate).
	ls, i := f.tvLine(c3)
	st := ls[i].statement
	pred(st)["task"].(map[string]any)["line_hash"] = predicate.LineHash("- [ ] T003 [US1] Print Hello!")
	var lines [][]byte
	for _, l := range ls {
		lines = append(lines, l.raw)
	}
	f.setNoteLines(c3, append(lines, signLine(t, canon(t, st), f.signer)))
	rs = f.object(c3)
	if len(rs) != 2 || rs[0].Outcome != Malformed || rs[1].Outcome != Malformed || !slices.Contains(codes(rs[0].Reasons), CodeDuplicate) {
		t.Errorf("object %s with statements of two T003 lines: %+v", c3, rs)
	}
	checkGate(t, f.branch(f.base, c3, GateOptions{}), Failure, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c3, "T003", StatusUnverifiable, string(Malformed), ""},
	})
}

// lineStatements reads each note line's statement and payload, for
// statement.LineHashes.
func lineStatements(t *testing.T, ls []noteLine) ([]*statement.Statement, [][]byte) {
	t.Helper()
	stmts := make([]*statement.Statement, len(ls))
	payloads := make([][]byte, len(ls))
	for i, l := range ls {
		st, payload, ok := statement.FromLine(l.raw)
		if !ok {
			t.Fatalf("note line %d: not a statement", i+1)
		}
		stmts[i], payloads[i] = st, payload
	}
	return stmts, payloads
}
