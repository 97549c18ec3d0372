package dsse

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	env := &Envelope{
		PayloadType: PayloadType,
		Payload:     []byte(`{"_type":"https://in-toto.io/Statement/v1","x":"<&>"}`),
		Signatures:  []Signature{{KeyID: "SHA256:abc", Sig: []byte{0xfb, 0xff, 0x01}}, {Sig: []byte("x")}},
	}
	b, err := env.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"payload":"` + base64.StdEncoding.EncodeToString(env.Payload) + `","payloadType":"application/vnd.in-toto+json","signatures":[{"keyid":"SHA256:abc","sig":"+/8B"},{"keyid":"","sig":"eA=="}]}`
	if string(b) != want {
		t.Fatalf("MarshalJSON:\n got %s\nwant %s", b, want)
	}
	got, err := DecodeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.PayloadType != env.PayloadType || !bytes.Equal(got.Payload, env.Payload) || len(got.Signatures) != 2 ||
		got.Signatures[0].KeyID != "SHA256:abc" || !bytes.Equal(got.Signatures[0].Sig, []byte{0xfb, 0xff, 0x01}) {
		t.Fatalf("round trip: got %+v", got)
	}
	if !bytes.Equal(got.PAE(), []byte(fmt.Sprintf("DSSEv1 28 %s %d %s", PayloadType, len(env.Payload), env.Payload))) {
		t.Fatalf("PAE = %q", got.PAE())
	}
}

func envJSON(payload, sigs string) string {
	return `{"payload":"` + payload + `","payloadType":"application/vnd.in-toto+json","signatures":` + sigs + `}`
}

func TestDecodeEnvelope(t *testing.T) {
	// "hi?" = 0x68 0x69 0x3f -> std "aGk/", url "aGk_"; 0xfb 0xff -> "+/8=" / "-_8=".
	tests := []struct {
		name      string
		in        string
		payload   string
		sig       []byte
		nsigs     int
		wantField string // non-empty: must be malformed with this field
	}{
		{name: "std padded", in: envJSON("aGk/", `[{"keyid":"k","sig":"+/8="}]`), payload: "hi?", sig: []byte{0xfb, 0xff}, nsigs: 1},
		{name: "std unpadded", in: envJSON("aGk/", `[{"keyid":"k","sig":"+/8"}]`), payload: "hi?", sig: []byte{0xfb, 0xff}, nsigs: 1},
		{name: "url padded", in: envJSON("aGk_", `[{"keyid":"k","sig":"-_8="}]`), payload: "hi?", sig: []byte{0xfb, 0xff}, nsigs: 1},
		{name: "url unpadded", in: envJSON("aGk_", `[{"sig":"-_8"}]`), payload: "hi?", sig: []byte{0xfb, 0xff}, nsigs: 1},
		{name: "zero signatures", in: envJSON("aGk_", `[]`), payload: "hi?", nsigs: 0},
		{name: "unknown keys ignored", in: `{"payload":"aGk_","payloadType":"t","signatures":[],"extra":{"a":[1,2]}}`, payload: "hi?"},
		{name: "mixed alphabets", in: envJSON("aGk/", `[{"sig":"-/8="}]`), wantField: "signatures[0].sig"},
		{name: "mixed alphabets payload", in: envJSON("+-8=", `[]`), wantField: "payload"},
		{name: "newline in base64", in: envJSON(`aG\nk/`, `[]`), wantField: "payload"},
		{name: "garbage base64", in: envJSON("a*b", `[]`), wantField: "payload"},
		{name: "bad padding", in: envJSON("aGk/=", `[]`), wantField: "payload"},
		{name: "non-zero trailing bits", in: envJSON("aGl", `[]`), wantField: "payload"},
		{name: "empty sig", in: envJSON("aGk/", `[{"sig":""}]`), wantField: "signatures[0].sig"},
		{name: "missing sig", in: envJSON("aGk/", `[{"keyid":"k"}]`), wantField: "signatures[0].sig"},
		{name: "keyid not string", in: envJSON("aGk/", `[{"keyid":1,"sig":"eA"}]`), wantField: "signatures[0].keyid"},
		{name: "signature not object", in: envJSON("aGk/", `["eA"]`), wantField: "signatures[0]"},
		{name: "signatures null", in: envJSON("aGk/", `null`), wantField: "signatures"},
		{name: "signatures missing", in: `{"payload":"aGk/","payloadType":"t"}`, wantField: "signatures"},
		{name: "payload null", in: `{"payload":null,"payloadType":"t","signatures":[]}`, wantField: "payload"},
		{name: "payloadType missing", in: `{"payload":"aGk/","signatures":[]}`, wantField: "payloadType"},
		{name: "duplicate key", in: `{"payload":"aGk/","payload":"aGk_","payloadType":"t","signatures":[]}`, wantField: "payload"},
		{name: "duplicate key via escape", in: `{"payload":"aGk/","payl\u006fad":"aGk_","payloadType":"t","signatures":[]}`, wantField: "payload"},
		{name: "case variant key", in: `{"payload":"aGk/","PayloadType":"t","payloadType":"t","signatures":[]}`, wantField: "PayloadType"},
		{name: "case variant nested", in: envJSON("aGk/", `[{"SIG":"eA","sig":"eA"}]`), wantField: "SIG"},
		{name: "duplicate nested", in: envJSON("aGk/", `[{"sig":"eA","sig":"eQ"}]`), wantField: "sig"},
		{name: "trailing data", in: envJSON("aGk/", `[]`) + `{}`, wantField: ""},
		{name: "array top", in: `[]`, wantField: ""},
		{name: "not json", in: `{"payload":`, wantField: ""},
		{name: "empty", in: ``, wantField: ""},
		{name: "invalid utf-8", in: "{\"payload\":\"aGk/\",\"payloadType\":\"\xff\",\"signatures\":[]}", wantField: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := DecodeEnvelope([]byte(tt.in))
			malformed := tt.wantField != "" || tt.payload == ""
			if malformed {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("err = %v, want ErrMalformed", err)
				}
				var me *MalformedError
				if !errors.As(err, &me) || me.Field != tt.wantField {
					t.Fatalf("err = %#v, want field %q", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if string(env.Payload) != tt.payload || len(env.Signatures) != tt.nsigs {
				t.Fatalf("got payload %q, %d signatures", env.Payload, len(env.Signatures))
			}
			if tt.sig != nil && !bytes.Equal(env.Signatures[0].Sig, tt.sig) {
				t.Fatalf("sig = %x, want %x", env.Signatures[0].Sig, tt.sig)
			}
		})
	}
}

func TestDecodeEnvelopeLimits(t *testing.T) {
	sigs := strings.Repeat(`{"sig":"eA"},`, MaxSignatures)
	if _, err := DecodeEnvelope([]byte(envJSON("aGk/", "["+strings.TrimSuffix(sigs, ",")+"]"))); err != nil {
		t.Fatalf("%d signatures: %v", MaxSignatures, err)
	}
	if _, err := DecodeEnvelope([]byte(envJSON("aGk/", "["+sigs+`{"sig":"eA"}]`))); !errors.Is(err, ErrMalformed) {
		t.Fatalf("%d signatures: err = %v, want ErrMalformed", MaxSignatures+1, err)
	}
	atLimit := base64.RawURLEncoding.EncodeToString(make([]byte, MaxPayloadSize))
	if _, err := DecodeEnvelope([]byte(envJSON(atLimit, "[]"))); err != nil {
		t.Fatalf("payload of MaxPayloadSize: %v", err)
	}
	over := base64.StdEncoding.EncodeToString(make([]byte, MaxPayloadSize+1))
	if _, err := DecodeEnvelope([]byte(envJSON(over, "[]"))); !errors.Is(err, ErrMalformed) {
		t.Fatalf("payload over MaxPayloadSize: err = %v", err)
	}
	deep := `{"payload":"aGk/","payloadType":"t","signatures":[],"x":` + strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth) + `}`
	if _, err := DecodeEnvelope([]byte(deep)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("depth %d: err = %v, want ErrMalformed", MaxJSONDepth+1, err)
	}
	shallow := `{"payload":"aGk/","payloadType":"t","signatures":[],"x":` + strings.Repeat("[", MaxJSONDepth-1) + strings.Repeat("]", MaxJSONDepth-1) + `}`
	if _, err := DecodeEnvelope([]byte(shallow)); err != nil {
		t.Fatalf("depth %d: %v", MaxJSONDepth, err)
	}
}

func TestCheckPayloadType(t *testing.T) {
	for _, tt := range []struct {
		pt string
		ok bool
	}{
		{PayloadType, true},
		{"application/vnd.in-toto+JSON", false},
		{"application/vnd.dsse.envelope.v1+json", false},
		{"", false},
	} {
		err := (&Envelope{PayloadType: tt.pt}).CheckPayloadType()
		if tt.ok != (err == nil) {
			t.Errorf("CheckPayloadType(%q) = %v", tt.pt, err)
		}
		if !tt.ok && (!errors.Is(err, ErrPayloadType) || !errors.Is(err, ErrMalformed)) {
			t.Errorf("CheckPayloadType(%q) = %v, want ErrPayloadType and ErrMalformed", tt.pt, err)
		}
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(envJSON("aGk/", `[{"keyid":"k","sig":"+/8="}]`)))
	f.Add([]byte(envJSON("aGk_", `[]`)))
	f.Add([]byte(`{"payload":"aGk/","payload":"aGk_","payloadType":"t","signatures":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := DecodeEnvelope(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not match ErrMalformed: %v", err)
			}
			return
		}
		// Whatever decodes re-encodes to an envelope that decodes the same.
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeEnvelope(b)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		if again.PayloadType != env.PayloadType || !bytes.Equal(again.Payload, env.Payload) || len(again.Signatures) != len(env.Signatures) {
			t.Fatalf("round trip changed the envelope")
		}
		for i := range env.Signatures {
			if again.Signatures[i].KeyID != env.Signatures[i].KeyID || !bytes.Equal(again.Signatures[i].Sig, env.Signatures[i].Sig) {
				t.Fatalf("round trip changed signature %d", i)
			}
		}
	})
}

// FuzzBase64Classes checks DecodeBase64's one-pass scan against the
// character sets it stands for.
func FuzzBase64Classes(f *testing.F) {
	for _, s := range []string{"", "aGVsbG8=", "a+b/", "a-b_", "a+_", "ab\ncd", "ab cd\t", "\r", "é+", "\x00-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		std, url, space := base64Classes(s)
		if std != strings.ContainsAny(s, "+/") || url != strings.ContainsAny(s, "-_") || space != strings.ContainsAny(s, "\r\n \t") {
			t.Fatalf("base64Classes(%q) = %v, %v, %v", s, std, url, space)
		}
	})
}
