package attest

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
)

// SignResult says what signing one commit's note did.
type SignResult struct {
	Commit gitref.Hash `json:"commit"`
	// Signed counts the envelopes a signature was added to.
	Signed int `json:"signed"`
	// Subjects are the subject names whose envelopes were signed.
	Subjects []string `json:"subjects"`
	// AlreadySigned counts the envelopes that carry a signature of every key
	// given already (by its keyid).
	AlreadySigned int `json:"already_signed"`
	// Bundles counts the Sigstore bundles, which hold exactly one signature.
	Bundles int `json:"bundles"`
	// OtherCommits counts the statements about another commit (copied by a
	// rebase): not this commit's attestations, left alone.
	OtherCommits int `json:"other_commits"`
	// Full counts the envelopes that hold as many signatures as an envelope
	// may (docs/format.md#limits).
	Full int `json:"full"`
}

// Why says why envelopes of the note were not signed ("" when none were
// left so): what a "signed 0" means.
func (r *SignResult) Why() string {
	var parts []string
	if r.AlreadySigned > 0 {
		parts = append(parts, fmt.Sprintf("%d envelope(s) already carry this key's signature", r.AlreadySigned))
	}
	if r.Bundles > 0 {
		parts = append(parts, fmt.Sprintf("%d Sigstore bundle(s) hold exactly one signature and take no other", r.Bundles))
	}
	if r.Full > 0 {
		parts = append(parts, fmt.Sprintf("%d envelope(s) hold %d signatures already, as many as an envelope may", r.Full, dsse.MaxSignatures))
	}
	if r.OtherCommits > 0 {
		parts = append(parts, fmt.Sprintf("%d statement(s) are about another commit (copied by a rebase), not this one's", r.OtherCommits))
	}
	if len(parts) == 0 && r.Signed == 0 {
		return "the note holds no statement of taskproof's"
	}
	return strings.Join(parts, "; ")
}

// SignNote adds the signers' signatures, in place, to every envelope of
// commit's note that taskproof owns ([statement.Owned]), that is about commit and
// that lacks one of them (docs/format.md#co-signing): the payload bytes and
// the signatures the envelope holds are kept as they are, so the statements do
// not change and two people can sign one statement. Every other line is kept
// byte for byte. A note with nothing to sign is left alone; the result says
// why. Errors are gitref's (gitref.ErrNoNote when the commit has no note) and
// the signers'.
func SignNote(ctx context.Context, notes *gitref.NotesStore, commit gitref.Hash, signers []signer.Signer, dryRun bool) (*SignResult, error) {
	if len(signers) == 0 {
		return nil, fmt.Errorf("%w: no signer to sign with", ErrRequest)
	}
	for _, s := range signers {
		if _, ok := s.(signer.LineSigner); ok {
			return nil, fmt.Errorf("%w: the %s signer writes a bundle of its own and cannot add a signature to an envelope", ErrRequest, s.Kind())
		}
	}
	var res *SignResult
	merge := func(old []byte) ([]byte, error) {
		res = &SignResult{Commit: commit, Subjects: []string{}}
		var out bytes.Buffer
		for _, line := range noteline.Split(old) {
			signed, err := signLine(ctx, line, commit, signers, res)
			if err != nil {
				return nil, err
			}
			out.Write(signed)
			out.WriteByte('\n')
		}
		if res.Signed == 0 {
			return old, nil
		}
		return out.Bytes(), nil
	}
	// Read the note first: a commit without one is an error (gitref.ErrNoNote),
	// not a note to create.
	old, err := notes.Note(commit)
	if err != nil {
		return nil, err
	}
	if dryRun {
		if _, err := merge(old); err != nil {
			return nil, err
		}
		return res, nil
	}
	if _, err := notes.Update(commit, merge); err != nil {
		return nil, err
	}
	return res, nil
}

// signLine returns line with the signatures of signers it lacks added, when
// it is an envelope taskproof owns about commit, counting in res what it did.
func signLine(ctx context.Context, line []byte, commit gitref.Hash, signers []signer.Signer, res *SignResult) ([]byte, error) {
	l := noteline.Decode(line)
	st, _, ok := statement.FromNoteLine(l)
	if !ok || !statement.Owned(st.PredicateType) {
		return line, nil
	}
	if st.Subjects[0].Digest["gitCommit"] != string(commit) {
		res.OtherCommits++
		return line, nil
	}
	if l.Kind == noteline.KindBundle {
		res.Bundles++
		return line, nil
	}
	var missing []signer.Signer
	for _, sg := range signers {
		if !notemerge.HasSignature(l.Envelope, dsse.Signature{KeyID: sg.KeyID()}) {
			missing = append(missing, sg)
		}
	}
	if len(missing) == 0 {
		res.AlreadySigned++
		return line, nil
	}
	if len(l.Envelope.Signatures)+len(missing) > dsse.MaxSignatures {
		res.Full++
		return line, nil
	}
	signed, err := signer.Sign(ctx, l.Envelope.Payload, missing...)
	if err != nil {
		return nil, err
	}
	env, _, _ := notemerge.WithSignatures(l.Envelope, signed.Signatures)
	b, err := env.MarshalJSON()
	if err != nil {
		return nil, err
	}
	res.Signed++
	res.Subjects = append(res.Subjects, st.Subjects[0].Name)
	return b, nil
}
