package verify

import (
	"fmt"
	"slices"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/trust"
)

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
// matches [trust.ErrTrust].
type FromVerifiedError struct {
	Source trust.SourceRev
	Range  string
}

func (e *FromVerifiedError) Error() string {
	if e.Range == "" {
		return fmt.Sprintf("%s %s is read from %s, the commit being verified: trust and policy must come from elsewhere (e.g. the base branch, origin/main:PATH)", e.Source.Kind, e.Source.Rev, e.Source.Commit)
	}
	return fmt.Sprintf("%s %s is read from %s, a commit of the range being verified (%s): trust and policy must come from outside it (e.g. the base branch, origin/main:PATH)", e.Source.Kind, e.Source.Rev, e.Source.Commit, e.Range)
}

func (e *FromVerifiedError) Unwrap() error { return trust.ErrTrust }

// checkNotFromVerified refuses ([*FromVerifiedError]) inputs read from a
// commit that t verifies, and, for a range, from any commit of the range: trust
// is the verifier's, never the head's. An empty range verifies nothing and
// refuses nothing. Sources are checked in order; other errors are git's.
func checkNotFromVerified(repo *gitref.Repo, sources []trust.SourceRev, t Verified) error {
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
func (v *Verifier) sources() []trust.SourceRev {
	srcs := slices.Clone(v.Trust.FromGit())
	if p := v.Policy; p != nil && p.Commit() != "" {
		srcs = append(srcs, trust.SourceRev{Kind: trust.SourcePolicy, Rev: p.Name(), Commit: gitref.Hash(p.Commit())})
	}
	return srcs
}

// Ready is the first step of verifying t (gate.Branch, Objects, Explain): the
// verifier is complete (validate), and neither its trust nor its policy is
// read from what t verifies (docs/format.md#choices-where-the-brief-leaves-room,
// "Trust and policy come from outside what is verified"), unless
// FromVerifiedUnsafe.
func (v *Verifier) Ready(t Verified) error {
	if err := v.validate(); err != nil {
		return err
	}
	if v.FromVerifiedUnsafe {
		return nil
	}
	return checkNotFromVerified(v.Repo, v.sources(), t)
}

// CheckInputsOutsideWorkTree returns an error naming the first of the gate's
// input files in src and psrc — allowed signers, OpenPGP keyrings, public
// keys, Sigstore trusted root ([trust.CheckOutsideWorkTree], which
// [trust.LoadTrust] runs too), then the policy — that is a file of the
// checked-out head ([trust.HeldByHead]), so the head being verified would
// choose its own trust or policy
// (docs/format.md#choices-where-the-brief-leaves-room, "Trust and policy come
// from outside what is verified"). Run before any input is read, it names a
// trust file before a policy file. It matches [trust.ErrTrust] for trust
// files, policy.ErrPolicy for the policy file; nil for a bare repository.
func CheckInputsOutsideWorkTree(repo *gitref.Repo, src trust.Sources, psrc policy.Source) error {
	if err := trust.CheckOutsideWorkTree(repo, src); err != nil {
		return err
	}
	if trust.HeldByHead(repo, psrc.File) {
		return &policy.Error{File: psrc.File, Msg: "a file of the work tree being verified (HEAD holds it), so the head would choose its own policy; " + trust.OutsideWorkTreeFix}
	}
	return nil
}
