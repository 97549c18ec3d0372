package trust

import (
	"fmt"
	"slices"

	"github.com/taskproof/taskproof/gitref"
)

// FromVerifiedError: a trust or policy input is read from a commit being
// verified (Range ""), or from a commit of the range being verified (Range
// names it): whoever wrote that commit chose the trust that judges it. It
// matches [ErrTrust].
type FromVerifiedError struct {
	Source SourceRev
	Range  string
}

func (e *FromVerifiedError) Error() string {
	if e.Range == "" {
		return fmt.Sprintf("%s %s is read from %s, the commit being verified: trust and policy must come from elsewhere (e.g. the base branch, origin/main:PATH)", e.Source.Kind, e.Source.Rev, e.Source.Commit)
	}
	return fmt.Sprintf("%s %s is read from %s, a commit of the range being verified (%s): trust and policy must come from outside it (e.g. the base branch, origin/main:PATH)", e.Source.Kind, e.Source.Rev, e.Source.Commit, e.Range)
}

func (e *FromVerifiedError) Unwrap() error { return ErrTrust }

// RangeName is the range base..head as git writes it ("BASE..HEAD", or "all
// of HEAD's history" for an empty base).
func RangeName(base, head gitref.Hash) string {
	if base == "" {
		return "all of " + string(head) + "'s history"
	}
	return string(base) + ".." + string(head)
}

// CheckNotFromCommits refuses ([*FromVerifiedError]) inputs read from one
// of the commits being verified: trust is the verifier's, never the head's.
// Sources are checked in order.
func CheckNotFromCommits(sources []SourceRev, commits []gitref.Hash) error {
	for _, h := range commits {
		for _, s := range sources {
			if s.Commit == h {
				return &FromVerifiedError{Source: s}
			}
		}
	}
	return nil
}

// CheckNotFromRange refuses ([*FromVerifiedError]) inputs read from head,
// the commit being verified, or from any commit of the range base..head. An
// empty range verifies nothing and refuses nothing. Sources are checked in
// order; other errors are git's.
func CheckNotFromRange(repo *gitref.Repo, sources []SourceRev, base, head gitref.Hash) error {
	if len(sources) == 0 {
		return nil
	}
	// Of the sources' commits, those in the range: one walk, with head.
	ids := make([]gitref.Hash, 0, len(sources)+1)
	ids = append(ids, head)
	for _, s := range sources {
		ids = append(ids, s.Commit)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	in, err := repo.InRange(base, head, ids...)
	if err != nil {
		return err
	}
	if !slices.Contains(in, head) {
		// An empty range (head is the base or one of its ancestors: the
		// gate run on the base branch itself) verifies nothing, so no
		// input judges anything (docs/format.md#default-base).
		return nil
	}
	in = slices.DeleteFunc(in, func(h gitref.Hash) bool { return h == head })
	if err := CheckNotFromCommits(sources, []gitref.Hash{head}); err != nil || len(in) == 0 {
		return err
	}
	for _, s := range sources {
		if s.Commit == in[0] {
			return &FromVerifiedError{Source: s, Range: RangeName(base, head)}
		}
	}
	return nil
}
