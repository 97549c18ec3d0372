package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/taskproof/taskproof/gitref"
)

// Kinds of [SourceRev]: the input a REV:PATH names.
const (
	SourceAllowedSigners = "allowed signers" // TrustSources.AllowedSignersRev
	SourcePolicy         = "policy"          // PolicySource.Rev
)

// SourceRev is a trust or policy input read from a commit: Rev is "REV:PATH" as
// given, Commit what REV resolved to, Kind SourceAllowedSigners or SourcePolicy.
type SourceRev struct {
	Kind   string
	Rev    string
	Commit gitref.Hash
}

// ResolveSourceRev resolves the commit the REV:PATH input v of kind is read
// from; ok is false when v is empty or not REV:PATH (nothing is read from git).
// Errors are git's for an unknown REV.
func ResolveSourceRev(repo *gitref.Repo, kind, v string) (src SourceRev, ok bool, err error) {
	rev, _, cut := strings.Cut(v, ":")
	if v == "" || !cut {
		return SourceRev{}, false, nil
	}
	id, err := repo.Resolve(rev)
	if err != nil {
		return SourceRev{}, false, err
	}
	return SourceRev{Kind: kind, Rev: v, Commit: id}, true, nil
}

// Verified names the commits a verification checks: the range Base..Head
// (Range; Base "" for all of Head's history), or Objects.
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

// rangeName is the range as git writes it.
func (t Verified) rangeName() string {
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

// CheckNotFromVerified refuses ([*FromVerifiedError]) inputs read from a
// commit that t verifies, and, for a range, from any commit of the range: trust
// is the verifier's, never the head's. Sources are checked in order; other
// errors are git's.
func CheckNotFromVerified(repo *gitref.Repo, sources []SourceRev, t Verified) error {
	for _, h := range t.heads() {
		for _, s := range sources {
			if s.Commit == h {
				return &FromVerifiedError{Source: s}
			}
		}
	}
	if !t.Range || len(sources) == 0 {
		return nil
	}
	ids := make([]gitref.Hash, 0, len(sources))
	for _, s := range sources {
		ids = append(ids, s.Commit)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	in, err := repo.InRange(t.Base, t.Head, ids...)
	if err != nil {
		return err
	}
	if len(in) == 0 {
		return nil
	}
	for _, s := range sources {
		if s.Commit == in[0] {
			return &FromVerifiedError{Source: s, Range: t.rangeName()}
		}
	}
	return nil
}

// checkTrustNotFromVerified applies [CheckNotFromVerified] to the inputs
// [LoadTrust] read from git, unless TrustFromVerifiedUnsafe.
func (v *Verifier) checkTrustNotFromVerified(t Verified) error {
	if v.TrustFromVerifiedUnsafe || v.Trust == nil || len(v.Trust.revs) == 0 {
		return nil
	}
	return CheckNotFromVerified(v.Repo, v.Trust.revs, t)
}
