package verify

import (
	"fmt"
	"slices"

	"github.com/taskproof/taskproof/gitref"
)

// Kinds of [SourceRev]: the input a REV:PATH names.
const (
	SourceAllowedSigners = "allowed signers" // TrustSources.AllowedSignersRev
	SourcePolicy         = "policy"          // PolicySource.Rev
)

// SourceRev is a trust or policy input read from a commit: Rev is "REV:PATH" as
// given, Commit what REV resolved to, Kind SourceAllowedSigners or SourcePolicy.
// [LoadTrust] and [LoadPolicy] record it; a [Verifier] refuses to verify it.
type SourceRev struct {
	Kind   string
	Rev    string
	Commit gitref.Hash
}

// Verified names the commits a verification checks: the range Base..Head
// (Range; Base "" for all of Head's history), or Objects. [Verifier.Verify]
// verifies them.
type Verified struct {
	Range      bool
	Base, Head gitref.Hash
	Objects    []gitref.Hash
}

// heads are the commits being verified whose trees an input must not come from.
func (t Verified) heads() []gitref.Hash {
	if t.Range {
		return []gitref.Hash{t.Head}
	}
	return t.Objects
}

// RangeName is the range as git writes it ("BASE..HEAD", or "all of HEAD's
// history" for an empty Base).
func (t Verified) RangeName() string {
	if t.Base == "" {
		return "all of " + string(t.Head) + "'s history"
	}
	return string(t.Base) + ".." + string(t.Head)
}

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

// checkNotFromVerified refuses ([*FromVerifiedError]) inputs read from a
// commit that t verifies, and, for a range, from any commit of the range: trust
// is the verifier's, never the head's. An empty range verifies nothing and
// refuses nothing. Sources are checked in order; other errors are git's.
func checkNotFromVerified(repo *gitref.Repo, sources []SourceRev, t Verified) error {
	if len(sources) == 0 {
		return nil
	}
	var in []gitref.Hash // of the sources' commits, those in the range (one walk, with head)
	if t.Range {
		ids := make([]gitref.Hash, 0, len(sources)+1)
		ids = append(ids, t.Head)
		for _, s := range sources {
			ids = append(ids, s.Commit)
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		var err error
		if in, err = repo.InRange(t.Base, t.Head, ids...); err != nil {
			return err
		}
		if !slices.Contains(in, t.Head) {
			// An empty range (head is the base or one of its ancestors: the
			// gate run on the base branch itself) verifies nothing, so no
			// input judges anything (docs/format.md#default-base).
			return nil
		}
		in = slices.DeleteFunc(in, func(h gitref.Hash) bool { return h == t.Head })
	}
	for _, h := range t.heads() {
		for _, s := range sources {
			if s.Commit == h {
				return &FromVerifiedError{Source: s}
			}
		}
	}
	if len(in) == 0 {
		return nil
	}
	for _, s := range sources {
		if s.Commit == in[0] {
			return &FromVerifiedError{Source: s, Range: t.RangeName()}
		}
	}
	return nil
}

// sources are the inputs of the verifier's trust and policy read from git, in
// that order.
func (v *Verifier) sources() []SourceRev {
	srcs := slices.Clone(v.Trust.revs)
	if p := v.Policy; p != nil && p.Commit() != "" {
		srcs = append(srcs, SourceRev{Kind: SourcePolicy, Rev: p.Name(), Commit: gitref.Hash(p.Commit())})
	}
	return srcs
}

// ready is the first step of verifying t (Branch, Objects, Explain): the
// verifier is complete (validate), and neither its trust nor its policy is
// read from what t verifies (docs/format.md#choices-where-the-brief-leaves-room,
// "Trust and policy come from outside what is verified"), unless
// FromVerifiedUnsafe.
func (v *Verifier) ready(t Verified) error {
	if err := v.validate(); err != nil {
		return err
	}
	if v.FromVerifiedUnsafe {
		return nil
	}
	return checkNotFromVerified(v.Repo, v.sources(), t)
}

// Verify runs the merge gate over t's range (Verifier.Branch) or verifies t's
// objects (Verifier.Objects).
func (v *Verifier) Verify(t Verified, opts GateOptions) (*Report, error) {
	if t.Range {
		return v.Branch(t.Base, t.Head, opts)
	}
	return v.Objects(t.Objects, opts)
}

// VerifySpooled is Verify with a range's report spooled
// (Verifier.BranchSpooled); the caller must Close the report.
func (v *Verifier) VerifySpooled(t Verified, opts GateOptions) (*Report, error) {
	if t.Range {
		return v.BranchSpooled(t.Base, t.Head, opts)
	}
	return v.Objects(t.Objects, opts)
}
