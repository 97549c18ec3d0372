package verify

import (
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/fanout"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/verify/internal/memo"
)

// CheckedObject is one commit's Object results and, for each result that
// verified (ok or unsigned), staleAtHead's reason (nil: current at head).
type CheckedObject struct {
	Results []ObjectResult
	Stale   []*Reason
}

// CheckObjects runs Object (with the commit's tasks from hints, its note
// read by readNote: NoteReader's), then staleAtHead on each result that
// verified, for every commit of commits on all cores (fanout.Each: the Repo is safe for concurrent use, and so are the
// Verifier's memos). The results are keyed by commit and do not depend on the
// workers' order; the error (a git precondition, as Object's) is that of the
// earliest commit in commits that failed.
func (v *Verifier) CheckObjects(commits []gitref.Hash, hints map[gitref.Hash]TaskHints, head gitref.Hash, readNote func(gitref.Hash) ([]byte, error)) (map[gitref.Hash]*CheckedObject, error) {
	out := make([]*CheckedObject, len(commits))
	err := fanout.Each(len(commits), 0, func(i int) error {
		rs, err := v.object(commits[i], hints[commits[i]], readNote)
		if err != nil {
			return err
		}
		co := &CheckedObject{Results: rs, Stale: make([]*Reason, len(rs))}
		for j := range rs {
			if rs[j].Outcome == OK || rs[j].Outcome == Unsigned {
				co.Stale[j] = v.staleAtHead(&rs[j], head)
			}
			rs[j].Statement = statementHeader(rs[j].Statement)
		}
		out[i] = co
		return nil
	})
	if err != nil {
		return nil, err
	}
	m := make(map[gitref.Hash]*CheckedObject, len(commits))
	for i, c := range commits {
		m[c] = out[i]
	}
	return m, nil
}

// statementHeader returns a copy of st without its predicate's JSON tree (nil
// for nil): what the policy reads of a Statement (policyInput) once the
// predicate is decoded into ObjectResult.Predicate. The merge gate keeps one
// result per tick until the policy has run; the tree is most of a statement.
func statementHeader(st *statement.Statement) *statement.Statement {
	if st == nil {
		return nil
	}
	return &statement.Statement{Type: st.Type, Subjects: st.Subjects, PredicateType: st.PredicateType}
}

// noteScanMin is the fewest commits for which CheckObjects lists the notes
// tree once (NotesStore.All) instead of looking each commit's note up.
const noteScanMin = 256

// NoteReader returns how CheckObjects reads the notes of n commits: for many,
// the notes tree is indexed once (NotesStore.Index, in fixed-size ids: a long
// range's index stays small) and each note read from its entry (Note's
// checks), which saves decoding the fan-out trees again for every commit; a
// commit the index does not name has no note (an error wrapping
// gitref.ErrNoNote, as Note's). For few, NotesStore.Note.
func (v *Verifier) NoteReader(n int) (func(gitref.Hash) ([]byte, error), error) {
	if n < noteScanMin {
		return v.Notes.Note, nil
	}
	idx, err := v.Notes.Index()
	if err != nil {
		return nil, err
	}
	return func(c gitref.Hash) ([]byte, error) {
		note, ok, err := idx.Read(c)
		if !ok {
			return nil, fmt.Errorf("commit %s: %w", c, gitref.ErrNoNote)
		}
		return note, err
	}, nil
}

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
