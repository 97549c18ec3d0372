package gate

import (
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/trailer"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// trailerCommit is a commit of the range with its trailers.
type trailerCommit struct {
	ID       gitref.Hash
	Trailers []trailer.Trailer
}

// bugTasks are the bug tasks (<unit>/bug:<slug>) c's Spec-Task trailers name.
func bugTasks(c trailerCommit) []string {
	var bugs []string
	for _, task := range trailer.Values(c.Trailers, verify.TrailerSpecTask) {
		if i := strings.Index(task, "/"+verify.BugTaskPrefix); i > 0 && len(task) > i+1+len(verify.BugTaskPrefix) {
			bugs = append(bugs, task)
		}
	}
	return bugs
}

// bugTicks adds to rep a tick of kind bug per bug task that a commit of the
// range names in a Spec-Task trailer (<unit>/bug:<slug>,
// docs/format.md#bug-tasks; commits: the range's trailerCommits): bug tasks
// are speccoder's trailer_only tasks, no lines of a tasks file, so the tick
// walk cannot see them. One whose commit's note has a statement binding it
// is judged on it like a tick; one without is not_evaluated (not failing),
// as speccoder reports it: no tasks-file line claims it done, and no
// statement about a bug task is ever credited to one.
func (v *verifier) bugTicks(rep *verify.Report, commits []trailerCommit, opts verify.GateOptions) error {
	for _, c := range commits {
		bugs := bugTasks(c)
		if len(bugs) == 0 {
			continue
		}
		rs, err := v.Object(c.ID)
		if err != nil {
			return err
		}
		rep.Objects = append(rep.Objects, rs...)
		for _, task := range bugs {
			tr := verify.TickResult{Kind: verify.KindBug, Commit: c.ID, Task: task, TaskID: task[strings.Index(task, "/")+1:]}
			var o *verify.ObjectResult
			for i := range rs {
				if rs[i].Task == task && rs[i].Kind == verify.ObjectBug {
					o = &rs[i]
					break
				}
			}
			if o == nil {
				tr.Status = verify.StatusNotEvaluated
				tr.Message = "the commit names bug task " + task + " in a " + verify.TrailerSpecTask + " trailer and its note has no statement for it: not evaluated (no tasks-file line claims it)"
				tr.Reasons, tr.Signers = []verify.Reason{}, []trust.Signer{}
			} else {
				tr.Unit = o.Unit
				judge(&tr, o, nil, opts)
			}
			rep.Ticks = append(rep.Ticks, tr)
		}
	}
	return nil
}
