package verify

import (
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/verify/internal/memo"
)

// memo returns the Verifier's memos, made on first use.
func (v *Verifier) memo() *memo.Memos {
	if m := v.memos.Load(); m != nil {
		return m
	}
	v.memos.CompareAndSwap(nil, memo.New())
	return v.memos.Load()
}

// ParseTasksCached is specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
// through the Verifier's memos, for files read again and again (head's). The
// returned file must not be modified.
func (v *Verifier) ParseTasksCached(u specfmt.Unit, content []byte) (*specfmt.TasksFile, error) {
	return v.memo().ParseTasks(u, content)
}

// ParseTasksOnce is ParseTasksCached for a file read once: a parse the memos
// hold is used, another is not kept.
func (v *Verifier) ParseTasksOnce(u specfmt.Unit, content []byte) (*specfmt.TasksFile, error) {
	return v.memo().ParseTasksOnce(u, content)
}

// TasksAt is the tasks file at path of commit, read and parsed as unit's,
// through the Verifier's memos. The error is File's or ParseTasks's. The
// returned file must not be modified.
func (v *Verifier) TasksAt(commit gitref.Hash, path string, unit specfmt.Unit) (*specfmt.TasksFile, error) {
	return v.memo().TasksAt(v.Repo, commit, path, unit)
}
