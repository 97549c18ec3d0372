package gate

import (
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/fanout"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/verify"
)

// checkedObject is one commit's Object results and, for each result that
// verified (ok or unsigned), StaleAtHead's reason (nil: current at head).
type checkedObject struct {
	results []verify.ObjectResult
	stale   []*verify.Reason
}

// checkObjects runs CheckObject (with the commit's tasks from hints, its note
// read by readNote: noteReader's), then StaleAtHead on each result that
// verified, for every commit of commits on all cores (fanout.Each: the Repo is safe for concurrent use, and so are the
// Verifier's memos). The results are keyed by commit and do not depend on the
// workers' order; the error (a git precondition, as Object's) is that of the
// earliest commit in commits that failed.
func (v *verifier) checkObjects(commits []gitref.Hash, hints map[gitref.Hash]verify.TaskHints, head gitref.Hash, readNote func(gitref.Hash) ([]byte, error)) (map[gitref.Hash]*checkedObject, error) {
	out := make([]*checkedObject, len(commits))
	err := fanout.Each(len(commits), 0, func(i int) error {
		rs, err := v.CheckObject(commits[i], hints[commits[i]], readNote)
		if err != nil {
			return err
		}
		co := &checkedObject{results: rs, stale: make([]*verify.Reason, len(rs))}
		for j := range rs {
			if rs[j].Outcome == verify.OK || rs[j].Outcome == verify.Unsigned {
				co.stale[j] = v.StaleAtHead(&rs[j], head)
			}
			rs[j].Statement = statementHeader(rs[j].Statement)
		}
		out[i] = co
		return nil
	})
	if err != nil {
		return nil, err
	}
	m := make(map[gitref.Hash]*checkedObject, len(commits))
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
