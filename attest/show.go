package attest

import (
	"encoding/json"

	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
)

// ShownLine is one note line as `attest show` prints it: decoded as far as it
// goes, nothing verified. Error says why decoding stopped.
type ShownLine struct {
	Line          int                        `json:"line"`
	Error         string                     `json:"error,omitempty"`
	PayloadType   string                     `json:"payloadType,omitempty"`
	PredicateType string                     `json:"predicateType,omitempty"`
	Subjects      []statement.DecodedSubject `json:"subject,omitempty"`
	Signatures    []ShownSignature           `json:"signatures"`
	Statement     json.RawMessage            `json:"statement,omitempty"`
	// Bundle describes a Sigstore bundle line (unverified); nil for DSSE lines.
	Bundle *ShownBundle `json:"bundle,omitempty"`
}

// ShownBundle is what a Sigstore bundle line says about its signer, unverified:
// the media type, the certificate identity and OIDC issuer (or, for a bundle
// signed with a key, the key's hint), and the index of its first transparency
// log entry (nil when it has none).
type ShownBundle struct {
	MediaType string `json:"mediaType"`
	Identity  string `json:"identity"`
	Issuer    string `json:"issuer"`
	KeyHint   string `json:"public_key_hint,omitempty"`
	TlogIndex *int64 `json:"tlog_index,omitempty"`
}

// ShownSignature summarises one signature: its kind told from its bytes and the
// keyid hint the envelope wrote (unverified).
type ShownSignature struct {
	Kind  signer.Kind `json:"kind"`
	KeyID string      `json:"keyid"`
	Bytes int         `json:"bytes"`
}

// ShowNote decodes every line of a note for display (`taskproof attest show`).
// Nothing is verified: use verify for that.
func ShowNote(note []byte) []ShownLine {
	var out []ShownLine
	for i, raw := range noteline.Split(note) {
		l := ShownLine{Line: i + 1, Signatures: []ShownSignature{}}
		dl := noteline.Decode(raw)
		if b := dl.Bundle; b != nil {
			l.Bundle = &ShownBundle{MediaType: b.MediaType, Identity: b.Identity, Issuer: b.Issuer, KeyHint: b.KeyHint}
			if b.TlogIndex >= 0 {
				i := b.TlogIndex
				l.Bundle.TlogIndex = &i
			}
		}
		// A foreign line (another payloadType) is shown as far as it decodes.
		env := dl.Envelope
		if env == nil {
			l.Error = dl.Err.Error()
			out = append(out, l)
			continue
		}
		l.PayloadType = env.PayloadType
		for _, s := range env.Signatures {
			kind := keys.SignatureKind(s.Sig)
			switch {
			case l.Bundle != nil && dl.Bundle.Leaf == nil:
				kind = signer.KindRaw // verified as the envelope of a raw key
			case l.Bundle != nil:
				kind = signer.KindSigstore
			}
			l.Signatures = append(l.Signatures, ShownSignature{Kind: kind, KeyID: s.KeyID, Bytes: len(s.Sig)})
		}
		st, err := statement.Decode(env.Payload)
		if err != nil {
			l.Error = err.Error()
			out = append(out, l)
			continue
		}
		l.PredicateType, l.Subjects, l.Statement = st.PredicateType, st.Subjects, env.Payload
		out = append(out, l)
	}
	return out
}
