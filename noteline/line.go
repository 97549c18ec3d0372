package noteline

import (
	"bytes"

	"github.com/taskproof/taskproof/dsse"
)

// Kind is what one note line holds, as [Decode] reads it.
type Kind int

// The kinds of note line (docs/format.md#note-lines).
const (
	// KindMalformed is a line that is neither a DSSE envelope nor a Sigstore
	// bundle within the limits: Line.Err says why.
	KindMalformed Kind = iota
	// KindBlank is a line of whitespace only. Readers of statements skip it;
	// Line.Err is what decoding it as an envelope says, for displays that
	// show every line.
	KindBlank
	// KindEnvelope is a DSSE envelope whose payloadType is [dsse.PayloadType].
	KindEnvelope
	// KindBundle is a Sigstore bundle whose dsseEnvelope has payloadType
	// [dsse.PayloadType].
	KindBundle
	// KindForeign is a well-formed DSSE envelope, or Sigstore bundle, with
	// another payloadType: another tool's line. Writers keep it byte for byte;
	// the verifier reports it (docs/format.md#note-lines).
	// Line.Err is its [*dsse.PayloadTypeError].
	KindForeign
)

// String returns the kind's name: "malformed", "blank", "envelope", "bundle"
// or "foreign".
func (k Kind) String() string {
	switch k {
	case KindBlank:
		return "blank"
	case KindEnvelope:
		return "envelope"
	case KindBundle:
		return "bundle"
	case KindForeign:
		return "foreign"
	}
	return "malformed"
}

// Line is one decoded note line. Nothing in it is verified.
type Line struct {
	Kind Kind
	// Envelope is the DSSE envelope the line holds (a bundle's dsseEnvelope);
	// nil for a malformed or blank line.
	Envelope *dsse.Envelope
	// Bundle is the Sigstore bundle, for a bundle line (of kind KindBundle,
	// or KindForeign when its payloadType is another); nil otherwise.
	Bundle *Bundle
	// Err is why the line is not taskproof's to read: it matches
	// [dsse.ErrMalformed] for every kind but KindEnvelope and KindBundle (nil
	// there), and also [dsse.ErrPayloadType] for KindForeign.
	Err error
}

// Decode decodes one untrusted note line (docs/format.md#note-lines): a
// Sigstore bundle when [IsBundle] says it claims to be one (read with
// [DecodeBundle]), else a DSSE envelope ([dsse.DecodeEnvelope]), both within the
// limits of docs/format.md#limits; then the payloadType is checked
// ([dsse.Envelope.CheckPayloadType]). One "\r" at the end (a CRLF note) is not part
// of the line. Nothing is verified, no statement is decoded: see
// statement.Decode for the envelope's payload.
func Decode(line []byte) Line {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(bytes.TrimSpace(line)) == 0 {
		_, err := dsse.DecodeEnvelope(line)
		return Line{Kind: KindBlank, Err: err}
	}
	var l Line
	if mayBeBundle(line) && IsBundle(line) {
		b, err := DecodeBundle(line)
		if err != nil {
			return Line{Err: err}
		}
		l = Line{Kind: KindBundle, Envelope: b.Envelope, Bundle: b}
	} else {
		env, err := dsse.DecodeEnvelope(line)
		if err != nil {
			return Line{Err: err}
		}
		l = Line{Kind: KindEnvelope, Envelope: env}
	}
	if err := l.Envelope.CheckPayloadType(); err != nil {
		l.Kind, l.Err = KindForeign, err
	}
	return l
}

// mayBeBundle is false for a note line IsBundle is certain to refuse, without
// decoding it (IsBundle parses the whole line with encoding/json; a DSSE line
// is most of the notes): one naming no "mediaType" anywhere, not even through
// a \u escape. IsBundle wants a top-level member named exactly mediaType, or,
// for a line that is not JSON, the text "mediaType" quoted; only a \u escape
// can spell a letter of a member name differently.
func mayBeBundle(line []byte) bool {
	return bytes.Contains(line, []byte("mediaType")) || bytes.Contains(line, []byte(`\u`))
}

// Carried reports whether one of lines holds what line holds: line itself, or,
// for a DSSE envelope, an envelope of the same payload and payloadType that
// carries every signature of line (the same keyid and signature bytes) — the
// envelope a co-signer added a signature to (docs/format.md#co-signing). A
// line so carried was not removed from a note, only signed again.
func Carried(line []byte, lines [][]byte) bool {
	line = bytes.TrimSuffix(line, []byte("\r"))
	var env *dsse.Envelope
	for _, o := range lines {
		o = bytes.TrimSuffix(o, []byte("\r"))
		if bytes.Equal(o, line) {
			return true
		}
		if env == nil {
			l := Decode(line)
			if l.Kind != KindEnvelope {
				return false
			}
			env = l.Envelope
		}
		if !bytes.Contains(o, []byte(`"signatures"`)) {
			continue
		}
		ol := Decode(o)
		if ol.Kind == KindEnvelope && ol.Envelope.PayloadType == env.PayloadType && bytes.Equal(ol.Envelope.Payload, env.Payload) && carriesAll(ol.Envelope, env.Signatures) {
			return true
		}
	}
	return false
}

// carriesAll reports whether env holds every one of sigs.
func carriesAll(env *dsse.Envelope, sigs []dsse.Signature) bool {
	for _, s := range sigs {
		found := false
		for _, o := range env.Signatures {
			if o.KeyID == s.KeyID && bytes.Equal(o.Sig, s.Sig) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
