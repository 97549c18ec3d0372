package noteline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/statement"
)

const (
	sgIdentity = "https://github.com/acme/calc/.github/workflows/release.yml@refs/heads/main"
	sgIssuer   = "https://token.actions.githubusercontent.com"
)

// bundleLine is a real Sigstore bundle v0.3 note line: a statement signed by
// the Sigstore signer against a test Fulcio (identity sgIdentity) and Rekor.
func bundleLine(t *testing.T) []byte {
	t.Helper()
	s := sigstoretest.New(t).Signer(t, &sigstoretest.Fulcio{Identity: sgIdentity, Issuer: sgIssuer})
	line, err := s.SignLine(context.Background(), []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"001-x/T001","digest":{"gitCommit":"0000000000000000000000000000000000000000"}}],"predicateType":"https://speccoder.dev/task-verification/v0","predicate":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func TestDecodeBundleRefuses(t *testing.T) {
	good := bundleLine(t)
	var m map[string]any
	if err := json.Unmarshal(good, &m); err != nil {
		t.Fatal(err)
	}
	with := func(mut func(m map[string]any)) []byte {
		var c map[string]any
		_ = json.Unmarshal(good, &c)
		mut(c)
		b, _ := json.Marshal(c)
		return b
	}
	for _, tc := range []struct {
		name string
		line []byte
		want string
	}{
		{"duplicate key", append([]byte(`{"mediaType":"x",`), good[1:]...), "duplicate key"},
		{"case-variant key", bytes.Replace(good, []byte(`"dsseEnvelope"`), []byte(`"DsseEnvelope"`), 1), "only by case"},
		{"unknown version", with(func(m map[string]any) { m["mediaType"] = "application/vnd.dev.sigstore.bundle.v0.4+json" }), "unsupported bundle media type"},
		{"message signature", with(func(m map[string]any) {
			delete(m, "dsseEnvelope")
			m["messageSignature"] = map[string]any{"messageDigest": map[string]any{"algorithm": "SHA2_256", "digest": "AAAA"}, "signature": "AAAA"}
		}), "does not hold a DSSE envelope"},
		{"unknown member", with(func(m map[string]any) { m["extra"] = 1 }), "extra"},
		{"trailing data", append(append([]byte(nil), good...), []byte(` {}`)...), "after"},
		{"invalid UTF-8", append(append([]byte(nil), good[:len(good)-1]...), []byte(",\"x\":\"\xff\"}")...), "UTF-8"},
	} {
		if !noteline.IsBundle(tc.line) {
			t.Errorf("%s: IsBundle false", tc.name)
		}
		_, err := noteline.DecodeBundle(tc.line)
		if !errors.Is(err, dsse.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrMalformed with %q", tc.name, err, tc.want)
		}
	}
	if noteline.IsBundle([]byte(`{"payload":"","payloadType":"x","signatures":[]}`)) {
		t.Error("IsBundle true for a DSSE envelope")
	}
}

func FuzzDecodeBundle(f *testing.F) {
	for _, s := range []string{
		`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`,
		`{"mediaType":"application/vnd.dev.sigstore.bundle+json;version=0.1","dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AA=="}]}}`,
		`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"certificate":{"rawBytes":"AA=="}},"dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AA=="}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := noteline.DecodeBundle(data)
		if err != nil {
			if !errors.Is(err, dsse.ErrMalformed) {
				t.Fatalf("error %v does not match ErrMalformed", err)
			}
			return
		}
		if b.Envelope == nil || len(b.Envelope.Signatures) > dsse.MaxSignatures {
			t.Fatalf("decoded bundle %+v breaks its limits", b)
		}
		statement.FromLine(data)
		attest.ShowNote(data)
	})
}
