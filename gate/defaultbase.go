package gate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
)

// defaultBases are the revisions a merge gate's base defaults to
// (docs/format.md#default-base): the remote's default branch, then the usual
// names, remote before local (a pull-request checkout is detached and has no
// local branch but its own). Each is read as the full ref it stands for
// (refs/remotes/origin/main, refs/heads/main): a tag of that name is never
// taken.
var defaultBases = []string{"refs/remotes/origin/HEAD", "origin/main", "origin/master", "main", "master"}

// defaultBaseLevels are defaultBases after origin/HEAD with their full refs,
// remote-tracking branches before local ones; within a level two candidates
// are ambiguous.
var defaultBaseLevels = [][2][2]string{
	{{"origin/main", "refs/remotes/origin/main"}, {"origin/master", "refs/remotes/origin/master"}},
	{{"main", "refs/heads/main"}, {"master", "refs/heads/master"}},
}

// ErrBaseHoldsHead is matched by the refusal of a default base that is
// head or has head in its history (the pull request's base branch, or every
// candidate): the range to verify is empty, and the empty range would pass.
// The base exists, so it is no unknown revision; it is a git precondition of
// the checkout all the same (exit 4), fixed by naming --base.
var ErrBaseHoldsHead = errors.New("the range to verify is empty")

// DefaultBaseError is a failure to choose the default base: Candidate is the
// default base at fault ("" when none exists or several do), Err the cause (a
// broken ref, wrapping gitref.ErrBadRef; a plain origin/HEAD, a pull
// request's base branch not fetched or a failed walk; a base that holds head,
// [ErrBaseHoldsHead]; for none, or several, gitref.ErrUnknownRevision). Ambiguous names the candidates that could each
// be the base when origin/HEAD does not decide.
type DefaultBaseError struct {
	Candidate string
	Ambiguous []string
	Err       error
}

func (e *DefaultBaseError) Error() string {
	switch {
	case len(e.Ambiguous) > 0:
		return fmt.Sprintf("%v: the default base is ambiguous: %s all exist, name different commits, and refs/remotes/origin/HEAD does not say which is the default branch", e.Err, strings.Join(e.Ambiguous, ", "))
	case e.Candidate == "":
		return fmt.Sprintf("%v: none of the default bases exists (tried %s)", e.Err, strings.Join(defaultBases, ", "))
	}
	return fmt.Sprintf("default base %s: %v", e.Candidate, e.Err)
}

func (e *DefaultBaseError) Unwrap() error { return e.Err }

// DefaultBase chooses the base of head's range (docs/format.md#default-base).
// prBase is the branch a pull request goes into, as the CI names it
// (GitHub Actions' GITHUB_BASE_REF; "" when unknown): when given,
// refs/remotes/origin/<prBase> is the base, and its absence is an error (a
// *gitref.NotFetchedError), and so is a base that is head or has head in its
// history (the empty range would pass). Otherwise refs/remotes/origin/HEAD, when it is a
// symbolic ref to a branch of origin (a plain one is an error: a pushed branch
// named HEAD becomes one); then origin/main or origin/master, then main or
// master, each read as its full ref. A candidate that head is (or that has head
// in its history: origin/HEAD naming the branch being verified) is passed over
// for the next; two candidates of one level that are not, naming different
// commits, are ambiguous (an error); when every candidate is passed over it
// is an error too (the base branch itself, or a base never fetched: the empty
// range would pass). A candidate whose ref
// file is broken is an error, not skipped. Errors are [*DefaultBaseError].
func DefaultBase(repo *gitref.Repo, head gitref.Hash, prBase string) (gitref.Hash, error) {
	if prBase != "" {
		id, err := prBaseRef(repo, prBase)
		if err != nil {
			return "", err
		}
		// The branch the changes go into holds head: nothing of the pull
		// request would be verified, and the empty range would pass.
		in, err := repo.InRange(id, head, head)
		if err != nil {
			return "", &DefaultBaseError{Candidate: "origin/" + prBase, Err: err}
		}
		if len(in) == 0 {
			return "", &DefaultBaseError{Candidate: "origin/" + prBase, Err: fmt.Errorf("the pull request's base branch is HEAD or has it in its history: %w, and verifying nothing would pass (the checkout is not the pull request's head or merge commit)", ErrBaseHoldsHead)}
		}
		return id, nil
	}
	var first gitref.Hash
	var firstName string
	// leaves reports whether base leaves head a range to check.
	leaves := func(name string, base gitref.Hash) (bool, error) {
		in, err := repo.InRange(base, head, head)
		if err != nil {
			return false, &DefaultBaseError{Candidate: name, Err: err}
		}
		if first == "" {
			first, firstName = base, name
		}
		return len(in) > 0, nil
	}
	id, full, err := repo.RemoteHead("origin")
	if err != nil {
		return "", &DefaultBaseError{Candidate: defaultBases[0], Err: err}
	}
	if full != "" {
		if ok, err := leaves(defaultBases[0], id); err != nil || ok {
			return id, err
		}
	}
	for _, level := range defaultBaseLevels {
		var found []string
		var ids []gitref.Hash
		for _, c := range level {
			id, _, err := repo.ResolveTrusted(c[1])
			if errors.Is(err, gitref.ErrBadRef) {
				return "", &DefaultBaseError{Candidate: c[0], Err: err}
			}
			if err != nil {
				continue
			}
			ok, err := leaves(c[0], id)
			if err != nil {
				return "", err
			}
			if ok {
				found, ids = append(found, c[0]), append(ids, id)
			}
		}
		switch {
		case len(found) == 2 && ids[0] != ids[1]:
			return "", &DefaultBaseError{Ambiguous: found, Err: gitref.ErrUnknownRevision}
		case len(found) > 0:
			return ids[0], nil
		}
	}
	if first != "" {
		// Every candidate is head or has head in its history: the gate run on
		// the base branch itself, or the branch the changes go into was never
		// fetched (a CI checkout of the pull request's branch alone, whatever
		// its refspecs say). The two cannot be told apart, and the empty range
		// would pass: the base must be named.
		return "", &DefaultBaseError{Candidate: firstName, Err: fmt.Errorf("every default base is HEAD or has it in its history: %w: this is the base branch itself, or the branch the changes go into was not fetched, and verifying nothing would pass (on the base branch itself, --base HEAD verifies nothing)", ErrBaseHoldsHead)}
	}
	return "", &DefaultBaseError{Err: gitref.ErrUnknownRevision}
}

// prBaseRef resolves refs/remotes/origin/<branch>, the base a CI names.
func prBaseRef(repo *gitref.Repo, branch string) (gitref.Hash, error) {
	name := "origin/" + branch
	ref := "refs/remotes/" + name
	cur, err := repo.ReadRef(ref)
	if err == nil && cur == "" {
		err = &gitref.NotFetchedError{Rev: name, Ref: ref, Remote: "origin", Branch: branch}
	}
	if err != nil {
		return "", &DefaultBaseError{Candidate: name, Err: err}
	}
	id, _, err := repo.ResolveTrusted(ref)
	if err != nil {
		return "", &DefaultBaseError{Candidate: name, Err: err}
	}
	return id, nil
}
