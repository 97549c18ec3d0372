package verify

import (
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/rewrite"
)

// subjectCommitMessage explains a statement about another commit: usually a
// note `git rebase` or `git commit --amend` copied (notes.rewriteRef) from the
// commit it names, whose statements can be re-issued for this one when this
// one is a rewrite of it.
func (v *Verifier) subjectCommitMessage(about string, object gitref.Hash) string {
	if _, err := gitref.ParseHash(about); err != nil {
		return "the statement is about another commit"
	}
	j, err := v.RewriteOf(gitref.Hash(about), object)
	switch {
	case err != nil:
		return fmt.Sprintf("the statement is about another commit (%s), which cannot be compared with this one (%v): a note copied by a rebase or amend? if this commit is a rewrite of it, re-issue it here (taskproof attest carry %s %s); else attest this commit", about, err, about, object)
	case j.Accepted:
		return fmt.Sprintf("the statement is about another commit (%s), of which this one is a rewrite (%s): a note copied by a rebase or amend; re-issue it for this commit: taskproof attest carry %s %s", about, RewriteHow(j), about, object)
	}
	return fmt.Sprintf("the statement is about another commit (%s), of which this one is no rewrite: %s. It never judged this commit's code (attest carry refuses it): attest this commit", about, j.Why)
}

// RewriteOf is rewrite.Judge(from, to), once per pair and Verifier (the
// object checks run in parallel: a sync.Map).
func (v *Verifier) RewriteOf(from, to gitref.Hash) (*rewrite.Judgement, error) {
	if j, ok := v.CachedRewrite(from, to); ok {
		return j, nil
	}
	j, err := rewrite.Judge(v.Repo, from, to)
	if err != nil {
		return nil, err
	}
	v.rewrites.Store([2]gitref.Hash{from, to}, j)
	return j, nil
}

func (v *Verifier) CachedRewrite(from, to gitref.Hash) (*rewrite.Judgement, bool) {
	j, ok := v.rewrites.Load([2]gitref.Hash{from, to})
	if !ok {
		return nil, false
	}
	return j.(*rewrite.Judgement), true
}

// RewriteHow says how an accepted rewrite keeps the judged change.
func RewriteHow(j *rewrite.Judgement) string {
	if j.SameTree {
		return "the same tree"
	}
	if j.Span == 1 {
		return "it makes the same change"
	}
	if j.Span == 2 {
		return "it and the commit before it make the same change"
	}
	return fmt.Sprintf("it and the %d commits before it make the same change", j.Span-1)
}
