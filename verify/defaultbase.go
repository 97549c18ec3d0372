package verify

import (
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
)

// DefaultBases are the revisions a merge gate's base defaults to, the first
// that names a commit (docs/format.md#default-base): the remote's default
// branch, then the usual names, remote before local (a pull-request checkout is
// detached and has no local branch but its own).
var DefaultBases = []string{"refs/remotes/origin/HEAD", "origin/main", "origin/master", "main", "master"}

// DefaultBaseError is a failure to choose the default base: Candidate is the
// one of [DefaultBases] at fault ("" when none exists), Err the cause (a
// broken ref, wrapping gitref.ErrBadRef, or a failed walk; for none,
// gitref.ErrUnknownRevision).
type DefaultBaseError struct {
	Candidate string
	Err       error
}

func (e *DefaultBaseError) Error() string {
	if e.Candidate == "" {
		return fmt.Sprintf("%v: none of the default bases exists (tried %s)", e.Err, strings.Join(DefaultBases, ", "))
	}
	return fmt.Sprintf("default base %s: %v", e.Candidate, e.Err)
}

func (e *DefaultBaseError) Unwrap() error { return e.Err }

// DefaultBase resolves the first of [DefaultBases] that names a commit and
// leaves head a range to check: a candidate that head is (or that has head in
// its history: origin/HEAD naming the branch being verified) is passed over
// for the next, and taken only when every candidate is such (the range is then
// empty). A candidate whose ref file is broken is an error, not skipped
// (docs/format.md#default-base). Errors are [*DefaultBaseError].
func DefaultBase(repo *gitref.Repo, head gitref.Hash) (gitref.Hash, error) {
	var first gitref.Hash
	for _, b := range DefaultBases {
		id, err := repo.Resolve(b)
		if errors.Is(err, gitref.ErrBadRef) {
			return "", &DefaultBaseError{Candidate: b, Err: err}
		}
		if err != nil {
			continue
		}
		in, err := repo.InRange(id, head, head)
		if err != nil {
			return "", &DefaultBaseError{Candidate: b, Err: err}
		}
		if len(in) > 0 {
			return id, nil
		}
		if first == "" {
			first = id
		}
	}
	if first != "" {
		return first, nil
	}
	return "", &DefaultBaseError{Err: gitref.ErrUnknownRevision}
}
