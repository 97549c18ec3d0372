package main

import (
	"strings"
	"testing"
)

// The gate's model (docs/format.md#the-gates-model) against the histories
// that passed the gate before it, with no statement for the tick head's
// line comes from, and their honest counterparts; each built with the real
// git and judged by the real binary.

// templateTasks is a spec-kit tasks file as the template writes it: every
// feature's T001 reads the same.
const templateTasks = "# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create project structure per implementation plan\n- [ ] T002 Write the test\n"

func ticked(tasks, id string) string {
	return strings.Replace(tasks, "- [ ] "+id+" ", "- [x] "+id+" ", 1)
}

// TestGateModelDiscardedMove: the base holds feature 001-a with the
// template's T001 ticked. The branch adds feature 002-b and ticks its T001
// with no statement; a side branch deletes 002-b, moves 001-a onto its path
// and unticks T001 there, and is merged with `git merge -s ours`, which
// discards it. Head's 002-b T001 comes from the branch's tick alone (a merge
// whose tree is one parent's is compared with that parent only): it fails
// ticked_without_evidence. A gate that built "unit classes" from every move
// of the walk would pass it: the side's move puts both features in one
// class, its untick supersedes the tick, and 001-a's T001 checked at base
// covers the line. Attesting the tick passes.
func TestGateModelDiscardedMove(t *testing.T) {
	const a, b = "specs/001-a/tasks.md", "specs/002-b/tasks.md"
	for _, attested := range []bool{false, true} {
		r := newGateRepo(t, map[string]string{a: ticked(templateTasks, "T001")})
		r.commit(t, "add 002-b", map[string]string{b: templateTasks})
		tickB := r.tick(t, []string{b}, "T001")
		r.git(t, "switch", "-q", "-c", "side", "HEAD~1")
		r.commit(t, "drop 002-b", map[string]string{b: "", "specs/002-b": ""})
		r.git(t, "mv", "specs/001-a", "specs/002-b")
		r.git(t, "commit", "-q", "-m", "move 001-a to 002-b")
		r.commit(t, "reopen T001", map[string]string{b: templateTasks})
		r.git(t, "switch", "-q", "feature")
		r.git(t, "merge", "-q", "-s", "ours", "-m", "merge side, keeping ours", "side")
		if !attested {
			rep := r.gate(t, 1)
			checkFails(t, rep, b+" ticked_without_evidence")
			if !gateRowAt(rep, tickB, b, "T001", "ticked_without_evidence") {
				t.Errorf("no failing row for the tick %s of %s T001: %s", tickB, b, rep.rows())
			}
			continue
		}
		r.attest(t, tickB)
		if rep := r.gate(t, 0); rep.Conclusion != "success" {
			t.Errorf("attested: %s (%s)", rep.rows(), rep.Conclusion)
		}
	}
}

// TestGateModelUntickOffTheWay: c1 ticks T001 (attested); c2 unticks it
// (its code deleted); c3 ticks it again with no statement; a side branch
// forked at c2 ticks and unticks T001 and is merged with a plain `git merge`.
// Head's line comes from c3 (the side's untick is not in c3's history, so it
// takes nothing of c3's back): it fails, c1's statement of the same line on
// an ancestor named (commit_unreachable) but not counted. A gate that let
// any later untick of the walk supersede a tick would pass it: c3 superseded
// by the side's untick, and c1's statement of the earlier cycle covering the
// line. Attesting c3 passes.
func TestGateModelUntickOffTheWay(t *testing.T) {
	for _, attested := range []bool{false, true} {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks, "src/impl.txt": "v1\n"})
		c1 := r.tick(t, []string{gateUnit}, "T001")
		r.attest(t, c1)
		r.commit(t, "drop the implementation, reopen T001", map[string]string{gateUnit: gateTasks, "src/impl.txt": ""})
		r.git(t, "branch", "side")
		c3 := r.tick(t, []string{gateUnit}, "T001")
		r.git(t, "switch", "-q", "side")
		// (Its own message: the fixed dates would make it c3 itself.)
		r.commit(t, "tick T001 on the side", map[string]string{gateUnit: ticked(gateTasks, "T001")})
		r.commit(t, "reopen T001 again", map[string]string{gateUnit: gateTasks})
		r.git(t, "switch", "-q", "feature")
		r.git(t, "merge", "-q", "--no-edit", "side")
		if !attested {
			// c1's statement binds the same line on an ancestor: the reason
			// is commit_unreachable, and its fix attests c3 (an earlier
			// tick's statement is not carried).
			rep := r.gate(t, 1)
			if !gateRowAt(rep, c3, gateUnit, "T001", "commit_unreachable") {
				t.Errorf("no failing row for the tick %s: %s", c3, rep.rows())
			}
			out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
			if strings.Contains(out, "attest carry") {
				t.Errorf("the fix carries an earlier tick's statement:\n%s", out)
			}
			continue
		}
		r.attest(t, c3)
		if rep := r.gate(t, 0); rep.Conclusion != "success" {
			t.Errorf("attested: %s (%s)", rep.rows(), rep.Conclusion)
		}
	}
}

// kiroModelTasks is a Kiro spec whose parent 1 has two sub-tasks.
const kiroModelTasks = "# Implementation Plan\n\n- [ ] 1. Set up the greeting command\n  - [ ] 1.1 Write the acceptance test\n  - [ ] 1.2 Print Hello, name\n- [ ] 2. Default the name\n"

// TestGateModelKiroDescendants: the branch re-indents open sub-task 1.2
// under 1.1 (an open line: no tick), then ticks 1.1 and parent 1 with only
// 1.1 attested. The parent's descendants are 1.1 and 1.2, and 1.2 is open at
// the parent's tick and at head: the parent is not credited, it fails
// ticked_without_evidence. A gate crediting a parent through its direct
// children would pass it, evidenced via 1.1. Ticking and attesting 1.2 as
// well credits the parent through both.
func TestGateModelKiroDescendants(t *testing.T) {
	const kiro = ".kiro/specs/greet/tasks.md"
	nested := strings.Replace(kiroModelTasks, "  - [ ] 1.2 ", "    - [ ] 1.2 ", 1)
	for _, honest := range []bool{false, true} {
		r := newGateRepo(t, map[string]string{kiro: kiroModelTasks})
		r.commit(t, "nest 1.2 under 1.1", map[string]string{kiro: nested})
		ids := []string{"1.1", "1."}
		if honest {
			ids = []string{"1.2", "1.1", "1."}
		}
		c := r.tick(t, []string{kiro}, ids...)
		if !honest {
			r.attest(t, c, "--task", "1.1")
			rep := r.gate(t, 1)
			if !gateRowAt(rep, c, kiro, "1", "ticked_without_evidence") {
				t.Errorf("parent 1 not failing: %s", rep.rows())
			}
			continue
		}
		r.attest(t, c, "--task", "1.1", "--task", "1.2")
		rep := r.gate(t, 0)
		checkRows(t, rep, "success", kiro+":1.1 evidenced/", kiro+":1.2 evidenced/", kiro+":1 evidenced/")
	}
}

// TestGateModelMergeRechecks: the base ticks T001 (attested) and the branch
// and a side branch fork there; the branch unticks T001 and reworks the
// code; merging the side, the resolution takes the side's tasks file, T001
// checked (and the branch's code: were the merge's tree the side's, the
// branch's changes would be discarded and the line the side's). The branch
// took the tick back, so the merge checks the line again and needs its own
// statement (the base's is an earlier cycle's): it fails, and the fix is to
// attest the merge — not `attest carry` from the base's commit, which carry
// refuses (an ancestor's statements). Attesting the merge passes.
func TestGateModelMergeRechecks(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "main")
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	r.git(t, "branch", "-f", "feature")
	r.git(t, "branch", "side")
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "reopen T001, rework the code", map[string]string{gateUnit: gateTasks, "src/impl.txt": "v2\n"})
	r.git(t, "switch", "-q", "side")
	r.commit(t, "docs", map[string]string{"README.md": "side\n"})
	r.git(t, "switch", "-q", "feature")
	m := r.mergeTicked(t, "side")
	rep := r.gate(t, 1)
	if !gateRowAt(rep, m, gateUnit, "T001", "") {
		t.Errorf("no failing row for the merge %s: %s", m, rep.rows())
	}
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if strings.Contains(out, "attest carry") || !strings.Contains(out, "attest tick") {
		t.Errorf("the fix should attest the merge, not carry an earlier statement:\n%s", out)
	}
	r.attest(t, m)
	if rep := r.gate(t, 0); rep.Conclusion != "success" {
		t.Errorf("merge attested: %s (%s)", rep.rows(), rep.Conclusion)
	}
}

// TestGateModelMergeKeepsTakenBack: the branch ticks T001 (attested); a side
// branch forked there unticks it and reworks the code; the merge keeps the
// branch's T001 checked with the side's code. The side took the tick back,
// so the merge checks the line again: it needs its own statement, and since
// its first parent has the line checked, `attest tick` finds no tick on it:
// the fix says to untick and tick again in commits of their own, which
// passes once that tick is attested.
func TestGateModelMergeKeepsTakenBack(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	r.git(t, "switch", "-q", "-c", "side")
	r.commit(t, "reopen T001, rework the code", map[string]string{gateUnit: gateTasks, "src/impl.txt": "v2\n"})
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "docs", map[string]string{"README.md": "x\n"})
	m := r.mergeTicked(t, "side")
	rep := r.gate(t, 1)
	if !gateRowAt(rep, m, gateUnit, "T001", "") {
		t.Errorf("no failing row for the merge %s: %s", m, rep.rows())
	}
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(out, "untick it in") || strings.Contains(out, "attest carry") {
		t.Errorf("the fix should untick and tick again:\n%s", out)
	}
	r.commit(t, "reopen T001", map[string]string{gateUnit: gateTasks})
	c := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c)
	if rep := r.gate(t, 0); rep.Conclusion != "success" {
		t.Errorf("ticked again and attested: %s (%s)", rep.rows(), rep.Conclusion)
	}
}

// TestGateModelEditDropped: a side branch rewords T001 after its tick; the
// merge keeps the branch's line. No line head holds comes from the edit: it
// is superseded, and the gate passes on the tick's statement.
func TestGateModelEditDropped(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	r.git(t, "switch", "-q", "-c", "side")
	r.commit(t, "reword T001", map[string]string{gateUnit: strings.Replace(ticked(gateTasks, "T001"), "Create the skeleton", "Create the whole skeleton", 1)})
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "docs", map[string]string{"README.md": "x\n"})
	r.mergeTicked(t, "side")
	rep := r.gate(t, 0)
	checkRows(t, rep, "success", gateUnit+":T001 evidenced/", gateUnit+":T001 superseded/")
}

// TestGateModelMergeTickBroughtIn: a merge on a side branch ticks T001 in
// its own resolution (open on both of its sides) and is attested; a later
// merge brings the side in. Head's line comes from the side's merge, which
// is evidenced: the gate passes (it failed commit_unreachable, the later
// merge taken as the tick).
func TestGateModelMergeTickBroughtIn(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "-c", "side")
	r.git(t, "switch", "-q", "-c", "side2")
	r.commit(t, "side2 docs", map[string]string{"README.md": "side2\n"})
	r.git(t, "switch", "-q", "side")
	r.commit(t, "side docs", map[string]string{"NOTES.md": "side\n"})
	m1 := r.mergeTicked(t, "side2")
	r.attest(t, m1)
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "docs", map[string]string{"CHANGES.md": "feature\n"})
	r.git(t, "merge", "-q", "--no-edit", "side")
	rep := r.gate(t, 0)
	checkRows(t, rep, "success", gateUnit+":T001 evidenced/")
	if len(rep.Ticks) != 1 || rep.Ticks[0].Commit != m1 {
		t.Errorf("the tick is not the side's merge %s: %+v", m1, rep.Ticks)
	}
}

// TestGateModelBaseTicksAgain: the branch forks with T001 checked (the
// base's attested tick) and moves the unit to specs/003-x; the base then
// unticks T001 and ticks it again (attested), and the branch merges the
// base. Head's line comes through the branch from the first tick, which the
// base took back, and through the base from its second: the base, holding
// the line with its own origin, carries it (model: Origins), and the base
// holds it (model: Requirements, through the move): the gate passes. Had the base not
// ticked it again, head would hold what the base reopened: it fails.
func TestGateModelBaseTicksAgain(t *testing.T) {
	for _, again := range []bool{true, false} {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		r.git(t, "switch", "-q", "main")
		c1 := r.tick(t, []string{gateUnit}, "T001")
		r.attest(t, c1)
		r.git(t, "branch", "-f", "feature")
		r.commit(t, "reopen T001", map[string]string{gateUnit: gateTasks, "src/impl.txt": "v2\n"})
		if again {
			c3 := r.commit(t, "T001 again", map[string]string{gateUnit: ticked(gateTasks, "T001")})
			r.attest(t, c3)
		}
		r.git(t, "switch", "-q", "feature")
		r.git(t, "mv", "specs/001-x", "specs/003-x")
		r.git(t, "commit", "-q", "-m", "rename the unit")
		r.git(t, "merge", "-q", "--no-edit", "main")
		moved := "specs/003-x/tasks.md"
		if got, _ := r.run(t, 0, "ticks", "main..HEAD"); again && strings.Contains(got, "untick") {
			t.Errorf("the merge unticks: %s", got)
		}
		if !again {
			// The merge applies the base's untick to the moved file: head
			// holds T001 open, nothing to justify.
			if b := r.git(t, "show", "HEAD:"+moved); !strings.Contains(b, "- [ ] T001") {
				t.Fatalf("the merge kept T001 checked:\n%s", b)
			}
			continue
		}
		if rep := r.gate(t, 0); rep.Conclusion == "failure" {
			t.Errorf("merged the base: %s (%s)", rep.rows(), rep.Conclusion)
		}
	}
}

// TestGateModelSideDeletes: a side branch deletes the tasks file; the merge
// keeps it, T001 checked from its attested tick. Deleting takes nothing
// back (only unticking does): the line comes from the tick, and the gate
// passes.
func TestGateModelSideDeletes(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	r.git(t, "switch", "-q", "-c", "side")
	r.commit(t, "drop the unit", map[string]string{gateUnit: ""})
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "docs", map[string]string{"README.md": "x\n"})
	r.mergeTicked(t, "side")
	checkRows(t, r.gate(t, 0), "success", gateUnit+":T001 evidenced/")
}

// mergeTicked merges branch into the checked-out one, resolving the merge
// with the unit's T001 checked (its other lines as gateTasks has them), and
// returns the merge.
func (r *gateRepo) mergeTicked(t *testing.T, branch string) string {
	t.Helper()
	r.git(t, "merge", "-q", "--no-commit", branch)
	r.write(t, map[string]string{gateUnit: ticked(gateTasks, "T001")})
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "--no-edit")
	return r.git(t, "rev-parse", "HEAD")
}

// gateRowAt reports whether rep has a failing row for commit's task id in
// path (with reason, when not "").
func gateRowAt(rep gateReport, commit, path, id, reason string) bool {
	for _, tk := range rep.Ticks {
		if tk.Failing && tk.Commit == commit && tk.Path == path && tk.TaskID == id && (reason == "" || tk.Reason == reason) {
			return true
		}
	}
	return false
}
