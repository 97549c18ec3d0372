package carry

import (
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/errkind"
)

// ErrArguments is matched by the error of [ResolvePairs] for FROM and TO
// arguments of different kinds that are no squash either (a revision and a
// range).
var ErrArguments = errors.New("attest carry's FROM and TO are of different kinds")

// IsSquash reports whether attest carry's FROM and TO are a range and one
// revision: the range's commits squash-merged into that commit ([Squash]).
func IsSquash(from, to string) bool {
	return strings.Contains(from, "..") && !strings.Contains(to, "..")
}

// ResolvePairs reads attest carry's FROM and TO arguments: two revisions (one
// pair, Tasks nil) or two ranges, paired by the tasks they tick
// ([PairRanges]). The plan's Pairs are those left to carry, Done a range's
// pairs carried already (a carry run again). A range that leaves nothing to
// carry fails with [ErrNothingToCarry], the plan returned with the error all
// the same (its Unattested commits are worth a warning); a revision with a
// range that is no squash ([IsSquash]) fails with [ErrArguments].
func ResolvePairs(repo *gitref.Repo, notes *gitref.NotesStore, from, to string) (*Plan, error) {
	fromRange, toRange := strings.Contains(from, ".."), strings.Contains(to, "..")
	if !fromRange && !toRange {
		f, err := repo.Resolve(from)
		if errors.Is(err, gitref.ErrUnknownRevision) && len(from) == 40 {
			return nil, fmt.Errorf("%w (a note fetched from another clone can name a commit only that clone has: run the carry there, or fetch the commit first)", err)
		}
		if err != nil {
			return nil, err
		}
		t, err := repo.Resolve(to)
		if err != nil {
			return nil, err
		}
		return &Plan{Pairs: []Pair{{From: f, To: t}}}, nil
	}
	if !fromRange || !toRange {
		return nil, errkind.New(ErrArguments, fmt.Sprintf("attest carry takes two revisions, two ranges (FROM-BASE..FROM-HEAD TO-BASE..TO-HEAD), or a range and the commit it was squashed into (BASE..HEAD SQUASH), not %q and %q", from, to))
	}
	fb, fh, err := repo.ResolveRange(from)
	if err != nil {
		return nil, err
	}
	tb, th, err := repo.ResolveRange(to)
	if err != nil {
		return nil, err
	}
	plan, err := PairRanges(repo, notes, fb, fh, tb, th)
	if err != nil {
		return nil, err
	}
	switch {
	case len(plan.Pairs) > 0 || len(plan.Done) > 0:
		return plan, nil
	case len(plan.Kept) > 0:
		return plan, fmt.Errorf("%w: the attested tick commits of %s are commits of %s as they are (%d of them): their statements are already where the gate looks", ErrNothingToCarry, from, to, len(plan.Kept))
	}
	return plan, fmt.Errorf("%w: no commit of %s holds statements to carry to %s", ErrNothingToCarry, from, to)
}
