package verify

import (
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/rewrite"
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
func (g *gate) judgeCarry(tr *TickResult, tick gitref.Hash) error {
	candidates := []gitref.Hash{tr.Evidence}
	for _, c := range tr.EvidenceOn {
		if c != tr.Evidence && len(candidates) < maxCarryCandidates {
			candidates = append(candidates, c)
		}
	}
	var first *rewrite.Judgement
	for _, c := range candidates {
		j, err := g.v.rewriteOf(c, tick)
		if err != nil {
			return err
		}
		if j.Accepted {
			tr.Evidence, tr.hintKey = c, hintCarry
			tr.Message = fmt.Sprintf("evidence for %s is on %s, not on the tick commit, which is a rewrite of %s (%s); re-issue it here: taskproof attest carry %s %s",
				tr.Task, evidenceNames(tr), c, rewriteHow(j), c, tick)
			return nil
		}
		if first == nil {
			first = j
		}
	}
	tr.hintKey = ReasonTickedWithoutEvidence
	tr.Message = fmt.Sprintf("evidence for %s is on %s, not on the tick commit, which is no rewrite of it: %s. Those statements never judged this commit's code (attest carry refuses them): attest this tick",
		tr.Task, evidenceNames(tr), first.Why)
	return nil
}

// judgeCopiedNote leads a tick whose statement is about another commit (a
// note a rebase or amend copied: subject_commit) with attest tick when the
// tick commit is no rewrite of that commit (the reason's message says so).
func (g *gate) judgeCopiedNote(tr *TickResult, o *ObjectResult) {
	if !tr.Failing {
		return
	}
	for _, r := range o.Reasons {
		if r.Code != CodeSubjectCommit {
			continue
		}
		if j, ok := g.v.cachedRewrite(gitref.Hash(r.Found), o.Object); ok && !j.Accepted {
			tr.hintKey = ReasonTickedWithoutEvidence
		}
	}
}

// subjectCommitMessage explains a statement about another commit: usually a
// note `git rebase` or `git commit --amend` copied (notes.rewriteRef) from the
// commit it names, whose statements can be re-issued for this one when this
// one is a rewrite of it.
func (v *Verifier) subjectCommitMessage(about string, object gitref.Hash) string {
	if _, err := gitref.ParseHash(about); err != nil {
		return "the statement is about another commit"
	}
	j, err := v.rewriteOf(gitref.Hash(about), object)
	switch {
	case err != nil:
		return fmt.Sprintf("the statement is about another commit (%s), which cannot be compared with this one (%v): a note copied by a rebase or amend? if this commit is a rewrite of it, re-issue it here (taskproof attest carry %s %s); else attest this commit", about, err, about, object)
	case j.Accepted:
		return fmt.Sprintf("the statement is about another commit (%s), of which this one is a rewrite (%s): a note copied by a rebase or amend; re-issue it for this commit: taskproof attest carry %s %s", about, rewriteHow(j), about, object)
	}
	return fmt.Sprintf("the statement is about another commit (%s), of which this one is no rewrite: %s. It never judged this commit's code (attest carry refuses it): attest this commit", about, j.Why)
}

// rewriteOf is rewrite.Judge(from, to), once per pair and Verifier (the
// object checks run in parallel: a sync.Map).
func (v *Verifier) rewriteOf(from, to gitref.Hash) (*rewrite.Judgement, error) {
	if j, ok := v.cachedRewrite(from, to); ok {
		return j, nil
	}
	j, err := rewrite.Judge(v.Repo, from, to)
	if err != nil {
		return nil, err
	}
	v.rewrites.Store([2]gitref.Hash{from, to}, j)
	return j, nil
}

func (v *Verifier) cachedRewrite(from, to gitref.Hash) (*rewrite.Judgement, bool) {
	j, ok := v.rewrites.Load([2]gitref.Hash{from, to})
	if !ok {
		return nil, false
	}
	return j.(*rewrite.Judgement), true
}

// rewriteHow says how an accepted rewrite keeps the judged change.
func rewriteHow(j *rewrite.Judgement) string {
	if j.SameTree {
		return "the same tree"
	}
	if j.Span == 1 {
		return "it makes the same change"
	}
	return fmt.Sprintf("it and the %d commits before it make the same change", j.Span-1)
}

func evidenceNames(tr *TickResult) string {
	names := make([]string, len(tr.EvidenceOn))
	for i, c := range tr.EvidenceOn {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}
