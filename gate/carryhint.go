package gate

import (
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/rewrite"
	"github.com/taskproof/taskproof/verify"
)

// The gate offers `attest carry` only where attest carry would accept it:
// where the tick commit is a rewrite of the commit holding the evidence
// (rewrite.Judge, docs/format.md#after-a-rebase-or-squash). Elsewhere it
// leads with `attest tick`, naming what differs.

// maxCarryCandidates bounds the commits holding a tick's evidence elsewhere
// that the gate judges as the origin of a rewrite.
const maxCarryCandidates = 5

// judgeCarry decides the fix of a commit_unreachable tick whose evidence is
// on other commits and is no earlier tick's: the carry from the first of
// them (tr.Evidence first) the tick commit is a rewrite of, else attest tick.
func (g *gate) judgeCarry(tr *verify.TickResult, tick gitref.Hash) error {
	candidates := []gitref.Hash{tr.Evidence}
	for _, c := range tr.EvidenceOn {
		if c != tr.Evidence && len(candidates) < maxCarryCandidates {
			candidates = append(candidates, c)
		}
	}
	var first *rewrite.Judgement
	for _, c := range candidates {
		j, err := g.v.RewriteOf(c, tick)
		if err != nil {
			return err
		}
		if j.Accepted {
			tr.Evidence, tr.HintKey = c, verify.HintCarry
			tr.Message = fmt.Sprintf("evidence for %s is on %s, not on the tick commit, which is a rewrite of %s (%s); re-issue it here: taskproof attest carry %s %s",
				tr.Task, evidenceNames(tr), c, verify.RewriteHow(j), c, tick)
			return nil
		}
		if first == nil {
			first = j
		}
	}
	tr.HintKey = verify.ReasonTickedWithoutEvidence
	tr.Message = fmt.Sprintf("evidence for %s is on %s, not on the tick commit, which is no rewrite of it: %s. Those statements never judged this commit's code (attest carry refuses them): attest this tick",
		tr.Task, evidenceNames(tr), first.Why)
	return nil
}

// judgeCopiedNote leads a tick whose statement is about another commit (a
// note a rebase or amend copied: subject_commit) with attest tick when the
// tick commit is no rewrite of that commit (the reason's message says so).
func (g *gate) judgeCopiedNote(tr *verify.TickResult, o *verify.ObjectResult) {
	if !tr.Failing {
		return
	}
	for _, r := range o.Reasons {
		if r.Code != verify.CodeSubjectCommit {
			continue
		}
		if j, ok := g.v.CachedRewrite(gitref.Hash(r.Found), o.Object); ok && !j.Accepted {
			tr.HintKey = verify.ReasonTickedWithoutEvidence
		}
	}
}

func evidenceNames(tr *verify.TickResult) string {
	names := make([]string, len(tr.EvidenceOn))
	for i, c := range tr.EvidenceOn {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}
