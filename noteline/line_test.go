package noteline_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/noteline"
)

// TestDecodeLine reads one line of each kind, real Sigstore bundles included.
func TestDecodeLine(t *testing.T) {
	bline := bundleLine(t)
	foreignBundle := bytes.Replace(bline, []byte(`"payloadType":"`+dsse.PayloadType+`"`), []byte(`"payloadType":"text/plain"`), 1)
	if bytes.Equal(foreignBundle, bline) {
		t.Fatalf("bundle line has no payloadType to replace: %s", bline)
	}
	envLine, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: []byte("{}"), Signatures: []dsse.Signature{{KeyID: "k", Sig: []byte("s")}}}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		line    []byte
		kind    noteline.Kind
		bundle  bool
		payload string // the envelope's payload, for kinds that have one
	}{
		{"envelope", envLine, noteline.KindEnvelope, false, "{}"},
		{"envelope CRLF", append(append([]byte{}, envLine...), '\r'), noteline.KindEnvelope, false, "{}"},
		{"unsigned envelope", []byte(`{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[]}`), noteline.KindEnvelope, false, "{}"},
		{"bundle", bline, noteline.KindBundle, true, ""},
		{"foreign envelope", []byte(`{"payload":"aGk=","payloadType":"text/plain","signatures":[]}`), noteline.KindForeign, false, "hi"},
		{"foreign bundle", foreignBundle, noteline.KindForeign, true, ""},
		{"malformed envelope", []byte(`{"payload":"not base64!","payloadType":"application/vnd.in-toto+json","signatures":[]}`), noteline.KindMalformed, false, ""},
		{"duplicate key", []byte(`{"payload":"e30=","payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[]}`), noteline.KindMalformed, false, ""},
		{"malformed bundle", []byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{}}`), noteline.KindMalformed, false, ""},
		{"unknown bundle version", bytes.Replace(bline, []byte("bundle.v0.3+json"), []byte("bundle.v0.9+json"), 1), noteline.KindMalformed, false, ""},
		{"not JSON", []byte("hello"), noteline.KindMalformed, false, ""},
		{"blank", []byte(" \t"), noteline.KindBlank, false, ""},
		{"empty", nil, noteline.KindBlank, false, ""},
		{"CR only", []byte("\r"), noteline.KindBlank, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := noteline.Decode(tt.line)
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
			if tt.kind == noteline.KindForeign && !errors.Is(l.Err, dsse.ErrPayloadType) {
				t.Errorf("foreign line's error %v does not match ErrPayloadType", l.Err)
			}
		})
	}
}

// checkLine checks what every Line promises, whatever its input.
func checkLine(t *testing.T, l noteline.Line) {
	t.Helper()
	switch l.Kind {
	case noteline.KindEnvelope, noteline.KindBundle:
		if l.Err != nil || l.Envelope == nil || l.Envelope.CheckPayloadType() != nil {
			t.Fatalf("%v line: err %v, envelope %+v", l.Kind, l.Err, l.Envelope)
		}
		if (l.Kind == noteline.KindBundle) != (l.Bundle != nil) {
			t.Fatalf("%v line with bundle %v", l.Kind, l.Bundle != nil)
		}
	case noteline.KindForeign:
		if l.Envelope == nil || !errors.Is(l.Err, dsse.ErrPayloadType) || !errors.Is(l.Err, dsse.ErrMalformed) {
			t.Fatalf("foreign line: err %v, envelope %+v", l.Err, l.Envelope)
		}
	case noteline.KindMalformed, noteline.KindBlank:
		if l.Envelope != nil || l.Bundle != nil || !errors.Is(l.Err, dsse.ErrMalformed) {
			t.Fatalf("%v line: err %v, envelope %+v, bundle %v", l.Kind, l.Err, l.Envelope, l.Bundle != nil)
		}
	default:
		t.Fatalf("unknown kind %d", l.Kind)
	}
	if l.Bundle != nil && l.Envelope != l.Bundle.Envelope {
		t.Fatalf("the envelope is not the bundle's")
	}
	if l.Envelope != nil && len(l.Envelope.Signatures) > dsse.MaxSignatures {
		t.Fatalf("%d signatures", len(l.Envelope.Signatures))
	}
}

// FuzzDecodeLine: Decode never panics, keeps its promises (checkLine), and
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
		l := noteline.Decode(line)
		checkLine(t, l)
		raw := bytes.TrimSuffix(line, []byte("\r"))
		var env *dsse.Envelope
		var err error
		isBundle := noteline.IsBundle(raw)
		if isBundle {
			var b *noteline.Bundle
			if b, err = noteline.DecodeBundle(raw); err == nil {
				env = b.Envelope
			}
		} else {
			env, err = dsse.DecodeEnvelope(raw)
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if l.Kind != noteline.KindBlank {
				t.Fatalf("blank line %q is %v", line, l.Kind)
			}
			return
		}
		if err != nil {
			if l.Kind != noteline.KindMalformed || l.Err.Error() != err.Error() {
				t.Fatalf("%q: Decode says %v (%v), the decoder %v", line, l.Kind, l.Err, err)
			}
			return
		}
		if (l.Bundle != nil) != isBundle || l.Envelope == nil || !bytes.Equal(l.Envelope.Payload, env.Payload) || l.Envelope.PayloadType != env.PayloadType {
			t.Fatalf("%q: Decode says %v, bundle %v; the decoder read %+v", line, l.Kind, l.Bundle != nil, env)
		}
		if foreign := env.CheckPayloadType() != nil; foreign != (l.Kind == noteline.KindForeign) {
			t.Fatalf("%q: kind %v, payloadType %q", line, l.Kind, env.PayloadType)
		}
	})
}

// TestCarried: a line is carried by itself, or by an envelope of its payload
// holding all of its signatures; not by one lacking a signature, of another
// payload or payloadType, or by a line that is not an envelope.
func TestCarried(t *testing.T) {
	env := func(payload string, sigs ...string) []byte {
		e := &dsse.Envelope{PayloadType: dsse.PayloadType, Payload: []byte(payload), Signatures: []dsse.Signature{}}
		for _, s := range sigs {
			e.Signatures = append(e.Signatures, dsse.Signature{KeyID: "k" + s, Sig: []byte(s)})
		}
		b, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	alice, both := env("{}", "a"), env("{}", "b", "a")
	foreign := []byte(`{"payload":"e30=","payloadType":"text/plain","signatures":[{"keyid":"ka","sig":"YQ=="}]}`)
	for _, c := range []struct {
		name  string
		line  []byte
		lines [][]byte
		want  bool
	}{
		{"itself", alice, [][]byte{alice}, true},
		{"co-signed", alice, [][]byte{[]byte("x"), both}, true},
		{"unsigned, then signed", env("{}"), [][]byte{alice}, true},
		{"a signature lost", both, [][]byte{alice}, false},
		{"another signature", alice, [][]byte{env("{}", "b")}, false},
		{"another payload", alice, [][]byte{env(`{"a":1}`, "a", "b")}, false},
		{"another payloadType", alice, [][]byte{foreign}, false},
		{"not an envelope", []byte("hello"), [][]byte{both}, false},
		{"none", alice, nil, false},
	} {
		if got := noteline.Carried(c.line, c.lines); got != c.want {
			t.Errorf("%s: Carried = %v, want %v", c.name, got, c.want)
		}
	}
}
