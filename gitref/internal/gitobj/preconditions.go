package gitobj

import (
	"errors"
	"fmt"
)

// ErrShallow: the repository is a shallow clone and what is asked reaches
// past its edge (commits whose parents were not fetched).
var ErrShallow = errors.New("shallow clone")

// UnshallowHint says how to get a shallow clone's whole history.
const UnshallowHint = "fetch the whole history: `git fetch --unshallow` (GitHub Actions: actions/checkout with `fetch-depth: 0`; GitLab CI: `GIT_DEPTH: 0`)"

// MissingObjectError reports an object the repository's refs or objects name
// that is not in the repository: a shallow clone's cut history, a partial
// clone, a damaged repository. It matches ErrMissingObject and ErrNotFound,
// and ErrShallow when the repository is a shallow clone.
type MissingObjectError struct {
	Kind    string // "commit", "tree", "blob", or "object"
	ID      Hash
	Shallow bool // the repository is a shallow clone
	// Partial is the promisor remote of a partial clone (git clone
	// --filter), "" for none: its objects may be missing by design.
	Partial string
}

func (e *MissingObjectError) Error() string {
	if e.Shallow {
		return fmt.Sprintf("%s %s: not found: the repository is a shallow clone and the object is beyond its edge; %s", e.Kind, e.ID, UnshallowHint)
	}
	if e.Partial != "" {
		return fmt.Sprintf("%s %s: not found: the repository is a partial clone (its promisor remote %s filtered objects out) and taskproof does not fetch missing objects; fetch everything (`git -c remote.%s.partialclonefilter= fetch --refetch %s`, then `git config --unset remote.%s.partialclonefilter`) or clone without --filter", e.Kind, e.ID, e.Partial, e.Partial, e.Partial, e.Partial)
	}
	return fmt.Sprintf("%s %s: not found: the repository lacks an object its history names (`git fsck` lists what is missing); fetch it again (`git fetch --refetch`) or clone the repository again", e.Kind, e.ID)
}

// Unwrap returns ErrNotFound and ErrMissingObject (and ErrShallow).
func (e *MissingObjectError) Unwrap() []error {
	if e.Shallow {
		return []error{ErrNotFound, ErrMissingObject, ErrShallow}
	}
	return []error{ErrNotFound, ErrMissingObject}
}

// ShallowError reports a commit at the edge of a shallow clone (listed in
// .git/shallow: its parents were not fetched) that a command needs the
// parents of. It matches ErrShallow.
type ShallowError struct {
	Commit Hash
	Need   string // what needs the parents, e.g. "it is a commit of the range main..HEAD"
}

func (e *ShallowError) Error() string {
	return fmt.Sprintf("the repository is a shallow clone: commit %s is at its edge (its parents were not fetched) and %s; %s", e.Commit, e.Need, UnshallowHint)
}

// Unwrap returns ErrShallow.
func (e *ShallowError) Unwrap() error { return ErrShallow }
