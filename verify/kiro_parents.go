package verify

import (
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// evidenceKiroParents credits Kiro parent tasks with their sub-tasks' evidence
// (docs/format.md#kiro-parent-tasks): Kiro ticks a parent task in the commit
// that ticks its last sub-task, and a writer attests the sub-task it worked on.
// A tick of rep (branch mode) that is ticked_without_evidence becomes
// evidenced, Via naming its sub-tasks, when
//   - its unit is a Kiro spec and its task has sub-tasks in the tasks file at
//     the tick commit (tasks whose specfmt.Task.Parent is its ID, the ID naming
//     one line of the file);
//   - every sub-task is ticked in that file;
//   - at least one sub-task is ticked by the same commit;
//   - every sub-task has an evidenced tick in the range and no failing one;
//   - every sub-task is still ticked in the file at head (the same path): a
//     sub-task unticked later withdraws the credit its evidence gave.
//
// A sub-task that is a parent itself may be evidenced through its own
// sub-tasks first: the pass repeats until nothing changes. Tasks files that
// cannot be read or parsed leave the tick failing.
func (v *Verifier) evidenceKiroParents(rep *Report) {
	type key struct{ dir, id string }
	type state struct{ evidenced, failing bool }
	for changed := true; changed; {
		changed = false
		subs := map[key]*state{}
		rep.eachTick(func(t *TickResult) {
			k := key{t.Unit.Dir, t.TaskID}
			s := subs[k]
			if s == nil {
				s = &state{}
				subs[k] = s
			}
			s.failing = s.failing || t.Failing
			s.evidenced = s.evidenced || t.Status == StatusEvidenced
		})
		rep.eachTick(func(t *TickResult) {
			if t.Unit.Format != specfmt.Kiro || t.Reason != ReasonTickedWithoutEvidence {
				return
			}
			b, err := v.Repo.File(t.Commit, t.Path)
			if err != nil {
				return
			}
			f, err := v.parseTasksCached(t.Unit, b)
			if err != nil {
				return
			}
			if _, err := f.Lookup(t.TaskID); err != nil {
				return // a repeated ID: its sub-tasks cannot be told apart
			}
			var via []string
			ok, sameCommit := true, false
			for _, x := range f.Tasks {
				if x.Parent != t.TaskID {
					continue
				}
				s := subs[key{t.Unit.Dir, x.ID}]
				if !x.Ticked() || s == nil || !s.evidenced || s.failing {
					ok = false
					break
				}
				sameCommit = sameCommit || rep.ticks(t.Commit, t.Unit.Dir, x.ID)
				via = append(via, attest.SubjectName(t.Unit.Feature, x.ID))
			}
			if !ok || !sameCommit || len(via) == 0 || !v.subTasksTickedAtHead(rep, t, f) {
				return
			}
			t.Status, t.Reason, t.Failing, t.Via = StatusEvidenced, "", false, via
			t.Message = fmt.Sprintf("a parent task, evidenced through its sub-tasks %s", strings.Join(via, ", "))
			changed = true
		})
	}
}

// subTasksTickedAtHead reports whether every sub-task of parent tick t in
// its tasks file at the tick commit (at) is ticked in the file at t.Path at
// head. A file head lacks or cannot read leaves the parent uncredited.
func (v *Verifier) subTasksTickedAtHead(rep *Report, t *TickResult, at *specfmt.TasksFile) bool {
	b, err := v.Repo.File(rep.Head, t.Path)
	if err != nil {
		return false
	}
	f, err := v.parseTasksCached(t.Unit, b)
	if err != nil {
		return false
	}
	for _, x := range at.Tasks {
		if x.Parent != t.TaskID {
			continue
		}
		h, err := f.Lookup(x.ID)
		if err != nil || !h.Ticked() {
			return false
		}
	}
	return true
}
