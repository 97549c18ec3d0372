package verify

import (
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

// RangeName is the range as git writes it ("BASE..HEAD", or "all of HEAD's
// history" for an empty Base).
func (t Verified) RangeName() string { return trust.RangeName(t.Base, t.Head) }

// FromVerifiedError is [trust.FromVerifiedError]: a trust or policy input
// read from what is verified.
type FromVerifiedError = trust.FromVerifiedError

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
	if t.Range {
		return trust.CheckNotFromRange(v.Repo, v.sources(), t.Base, t.Head)
	}
	return trust.CheckNotFromCommits(v.sources(), t.Objects)
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
