package attest_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/internal/sigstoretest"
)

// TestDecodeLine reads one line of each kind, real Sigstore bundles included.
func TestDecodeLine(t *testing.T) {
	r := newTickRepo(t)
	tickSigstore(t, r, sigstoretest.New(t))
	bundleLine := attest.SplitNote([]byte(note(t, r.dir, r.c1)))[0]
	foreignBundle := bytes.Replace(bundleLine, []byte(`"payloadType":"`+attest.PayloadType+`"`), []byte(`"payloadType":"text/plain"`), 1)
	if bytes.Equal(foreignBundle, bundleLine) {
		t.Fatalf("bundle line has no payloadType to replace: %s", bundleLine)
	}
	envLine, err := (&attest.Envelope{PayloadType: attest.PayloadType, Payload: []byte("{}"), Signatures: []attest.Signature{{KeyID: "k", Sig: []byte("s")}}}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		line    []byte
		kind    attest.LineKind
		bundle  bool
		payload string // the envelope's payload, for kinds that have one
	}{
		{"envelope", envLine, attest.LineEnvelope, false, "{}"},
		{"envelope CRLF", append(append([]byte{}, envLine...), '\r'), attest.LineEnvelope, false, "{}"},
		{"unsigned envelope", []byte(`{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[]}`), attest.LineEnvelope, false, "{}"},
		{"bundle", bundleLine, attest.LineBundle, true, ""},
		{"foreign envelope", []byte(`{"payload":"aGk=","payloadType":"text/plain","signatures":[]}`), attest.LineForeign, false, "hi"},
		{"foreign bundle", foreignBundle, attest.LineForeign, true, ""},
		{"malformed envelope", []byte(`{"payload":"not base64!","payloadType":"application/vnd.in-toto+json","signatures":[]}`), attest.LineMalformed, false, ""},
		{"duplicate key", []byte(`{"payload":"e30=","payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[]}`), attest.LineMalformed, false, ""},
		{"malformed bundle", []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{}}`), attest.LineMalformed, false, ""},
		{"unknown bundle version", bytes.Replace(bundleLine, []byte("bundle.v0.3+json"), []byte("bundle.v0.9+json"), 1), attest.LineMalformed, false, ""},
		{"not JSON", []byte("hello"), attest.LineMalformed, false, ""},
		{"blank", []byte(" \t"), attest.LineBlank, false, ""},
		{"empty", nil, attest.LineBlank, false, ""},
		{"CR only", []byte("\r"), attest.LineBlank, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := attest.DecodeLine(tt.line)
			if l.Kind != tt.kind {
				t.Fatalf("kind %v (%v), want %v", l.Kind, l.Err, tt.kind)
			}
			checkLine(t, l)
			if (l.Bundle != nil) != tt.bundle {
				t.Errorf("bundle %v, want %v", l.Bundle != nil, tt.bundle)
			}
			if tt.bundle && (l.Bundle.Identity != sgIdentity || l.Envelope != l.Bundle.Envelope) {
				t.Errorf("bundle identity %q, envelope %p of bundle's %p", l.Bundle.Identity, l.Envelope, l.Bundle.Envelope)
			}
			if tt.payload != "" && string(l.Envelope.Payload) != tt.payload {
				t.Errorf("payload %q, want %q", l.Envelope.Payload, tt.payload)
			}
			if tt.kind == attest.LineForeign && !errors.Is(l.Err, attest.ErrPayloadType) {
				t.Errorf("foreign line's error %v does not match ErrPayloadType", l.Err)
			}
		})
	}
}

// ShowNote shows each kind of line as far as it decodes: a bundle's signer,
// a foreign line's payloadType and signatures, why a line is malformed.
func TestShowNoteLineKinds(t *testing.T) {
	r := newTickRepo(t)
	tickSigstore(t, r, sigstoretest.New(t))
	bundleLine := attest.SplitNote([]byte(note(t, r.dir, r.c1)))[0]
	foreignBundle := bytes.Replace(bundleLine, []byte(`"payloadType":"`+attest.PayloadType+`"`), []byte(`"payloadType":"text/plain"`), 1)
	lines := [][]byte{
		bundleLine,
		foreignBundle,
		[]byte(`{"payload":"aGk=","payloadType":"text/plain","signatures":[{"keyid":"k","sig":"AA=="}]}` + "\r"),
		[]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{}}`),
		[]byte(" "),
	}
	shown := attest.ShowNote(bytes.Join(lines, []byte("\n")))
	if len(shown) != len(lines) {
		t.Fatalf("%d lines shown, want %d", len(shown), len(lines))
	}
	b := shown[0]
	if b.Error != "" || b.Bundle == nil || b.Bundle.Identity != sgIdentity || b.Bundle.TlogIndex == nil || b.PayloadType != attest.PayloadType ||
		len(b.Signatures) != 1 || b.Signatures[0].Kind != attest.KindSigstore || len(b.Subjects) != 1 || len(b.Statement) == 0 {
		t.Errorf("bundle line shown as %+v", b)
	}
	fb := shown[1]
	if fb.Bundle == nil || fb.PayloadType != "text/plain" || len(fb.Signatures) != 1 || fb.Signatures[0].Kind != attest.KindSigstore || len(fb.Subjects) != 1 {
		t.Errorf("foreign bundle line shown as %+v", fb)
	}
	fe := shown[2]
	if fe.Bundle != nil || fe.PayloadType != "text/plain" || len(fe.Signatures) != 1 || fe.Signatures[0].KeyID != "k" || fe.Signatures[0].Kind != attest.KindRaw || fe.Error == "" {
		t.Errorf("foreign envelope line shown as %+v", fe)
	}
	for _, l := range shown[3:] {
		if l.Error == "" || l.Bundle != nil || l.PayloadType != "" || len(l.Signatures) != 0 {
			t.Errorf("line %d shown as %+v, want its error only", l.Line, l)
		}
	}
}

// checkLine checks what every Line promises, whatever its input.
func checkLine(t *testing.T, l attest.Line) {
	t.Helper()
	switch l.Kind {
	case attest.LineEnvelope, attest.LineBundle:
		if l.Err != nil || l.Envelope == nil || l.Envelope.CheckPayloadType() != nil {
			t.Fatalf("%v line: err %v, envelope %+v", l.Kind, l.Err, l.Envelope)
		}
		if (l.Kind == attest.LineBundle) != (l.Bundle != nil) {
			t.Fatalf("%v line with bundle %v", l.Kind, l.Bundle != nil)
		}
	case attest.LineForeign:
		if l.Envelope == nil || !errors.Is(l.Err, attest.ErrPayloadType) || !errors.Is(l.Err, attest.ErrMalformed) {
			t.Fatalf("foreign line: err %v, envelope %+v", l.Err, l.Envelope)
		}
	case attest.LineMalformed, attest.LineBlank:
		if l.Envelope != nil || l.Bundle != nil || !errors.Is(l.Err, attest.ErrMalformed) {
			t.Fatalf("%v line: err %v, envelope %+v, bundle %v", l.Kind, l.Err, l.Envelope, l.Bundle != nil)
		}
	default:
		t.Fatalf("unknown kind %d", l.Kind)
	}
	if l.Bundle != nil && l.Envelope != l.Bundle.Envelope {
		t.Fatalf("the envelope is not the bundle's")
	}
	if l.Envelope != nil && len(l.Envelope.Signatures) > attest.MaxSignatures {
		t.Fatalf("%d signatures", len(l.Envelope.Signatures))
	}
}

// FuzzDecodeLine: DecodeLine never panics, keeps its promises (checkLine), and
// reads every line as the decoders it joins do: a line IsBundle claims is
// DecodeBundle's, any other non-blank line DecodeEnvelope's, with the same
// error; the payloadType decides envelope or bundle against foreign.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"keyid":"k","sig":"AA=="}]}`,
		`{"payload":"aGk=","payloadType":"text/plain","signatures":[]}`,
		`{"payload":"aGk","payloadType":"application/vnd.in-toto+json","signatures":[]}` + "\r",
		`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"certificate":{"rawBytes":"AA=="}},"dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AA=="}]}}`,
		`{"m\u0065diaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`,
		`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json",`,
		" ",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		l := attest.DecodeLine(line)
		checkLine(t, l)
		raw := bytes.TrimSuffix(line, []byte("\r"))
		var env *attest.Envelope
		var err error
		isBundle := attest.IsBundle(raw)
		if isBundle {
			var b *attest.Bundle
			if b, err = attest.DecodeBundle(raw); err == nil {
				env = b.Envelope
			}
		} else {
			env, err = attest.DecodeEnvelope(raw)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if l.Kind != attest.LineBlank {
				t.Fatalf("blank line %q is %v", line, l.Kind)
			}
			return
		}
		if err != nil {
			if l.Kind != attest.LineMalformed || l.Err.Error() != err.Error() {
				t.Fatalf("%q: DecodeLine says %v (%v), the decoder %v", line, l.Kind, l.Err, err)
			}
			return
		}
		if (l.Bundle != nil) != isBundle || l.Envelope == nil || !bytes.Equal(l.Envelope.Payload, env.Payload) || l.Envelope.PayloadType != env.PayloadType {
			t.Fatalf("%q: DecodeLine says %v, bundle %v; the decoder read %+v", line, l.Kind, l.Bundle != nil, env)
		}
		if foreign := env.CheckPayloadType() != nil; foreign != (l.Kind == attest.LineForeign) {
			t.Fatalf("%q: kind %v, payloadType %q", line, l.Kind, env.PayloadType)
		}
	})
}
