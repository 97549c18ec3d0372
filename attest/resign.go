package attest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/signer"
)

// SignResult says how many unsigned envelopes of one commit's note were signed.
type SignResult struct {
	Commit gitref.Hash `json:"commit"`
	Signed int         `json:"signed"`
	// Subjects are the subject names whose envelopes were signed.
	Subjects []string `json:"subjects"`
}

// SignNote signs, in place, every envelope of commit's note that taskproof owns
// ([OwnedTypes]) and that has no signature (docs/format.md#signatures-dsse-v1):
// the payload bytes are kept as they are, so the statements do not change;
// every other line is kept byte for byte. A note with nothing to sign is left
// alone. Errors are gitref's (gitref.ErrNoNote when the commit has no note) and
// the signers'.
func SignNote(ctx context.Context, notes *gitref.NotesStore, commit gitref.Hash, signers []signer.Signer, dryRun bool) (*SignResult, error) {
	if len(signers) == 0 {
		return nil, fmt.Errorf("%w: no signer to sign with", ErrRequest)
	}
	res := &SignResult{Commit: commit, Subjects: []string{}}
	merge := func(old []byte) ([]byte, error) {
		res.Signed, res.Subjects = 0, res.Subjects[:0]
		var out bytes.Buffer
		for _, line := range noteline.Split(old) {
			// Only a DSSE envelope takes more signatures: a Sigstore bundle
			// holds exactly one.
			if l := noteline.Decode(line); l.Kind == noteline.KindEnvelope && len(l.Envelope.Signatures) == 0 {
				if st, err := DecodeStatement(l.Envelope.Payload); err == nil && OwnedTypes[st.PredicateType] {
					signed, err := signer.Sign(ctx, l.Envelope.Payload, signers...)
					if err != nil {
						return nil, err
					}
					b, err := signed.MarshalJSON()
					if err != nil {
						return nil, err
					}
					line = b
					res.Signed++
					res.Subjects = append(res.Subjects, st.Subjects[0].Name)
				}
			}
			out.Write(line)
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
