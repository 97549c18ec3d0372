package attest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/verify"
)

const (
	sgIdentity = "https://github.com/acme/calc/.github/workflows/release.yml@refs/heads/main"
	sgIssuer   = "https://token.actions.githubusercontent.com"
)

// tickSigstore attests T001 and T002 of r.c1 with a Sigstore signer.
func tickSigstore(t *testing.T, r *tickRepo, env *sigstoretest.Env) []attest.Written {
	t.Helper()
	repo, notes := r.open(t)
	s := env.Signer(t, &sigstoretest.Fulcio{Identity: sgIdentity, Issuer: sgIssuer})
	w, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Verdict: predicate.RegressionOnly,
		Regression: map[string]any{"reason": "planning_work"}, Signers: []attest.Signer{s}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Sign, store as a note, read back: every line is a one-line bundle owned for
// its subject, shown with its identity, and re-ticking replaces (not adds) it.
func TestSigstoreTickWritesBundles(t *testing.T) {
	r := newTickRepo(t)
	env := sigstoretest.New(t)
	w := tickSigstore(t, r, env)
	if len(w) != 2 || !w[0].Signed || len(w[0].Signers) != 1 || w[0].Signers[0].Kind != attest.KindSigstore || w[0].Signers[0].KeyID != sgIdentity {
		t.Fatalf("written %+v, want two tasks signed by sigstore %s", w, sgIdentity)
	}
	first := note(t, r.dir, r.c1)
	lines := attest.SplitNote([]byte(first))
	if len(lines) != 4 { // two tasks × (task-verification + VSA)
		t.Fatalf("note has %d lines, want 4:\n%s", len(lines), first)
	}
	for i, l := range lines {
		b, err := attest.DecodeBundle(l)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if b.MediaType != attest.BundleMediaTypeV03 || b.Identity != sgIdentity || b.Issuer != sgIssuer || b.TlogIndex != 0 {
			t.Errorf("line %d: bundle %s identity %q issuer %q tlog %d", i+1, b.MediaType, b.Identity, b.Issuer, b.TlogIndex)
		}
		if err := b.Envelope.CheckPayloadType(); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
		name, typ, ok := attest.LineSubject(l)
		if !ok || !strings.HasPrefix(name, "001-calc/T00") || !attest.OwnedTypes[typ] {
			t.Errorf("line %d: LineSubject = %q %q %v, want an owned line", i+1, name, typ, ok)
		}
	}
	shown := attest.ShowNote([]byte(first))
	if shown[0].Bundle == nil || shown[0].Bundle.Identity != sgIdentity || shown[0].Bundle.Issuer != sgIssuer ||
		shown[0].Bundle.TlogIndex == nil || *shown[0].Bundle.TlogIndex != 0 || shown[0].Signatures[0].Kind != attest.KindSigstore {
		t.Errorf("ShowNote line 1 = %+v", shown[0])
	}
	// Re-ticking replaces the task's owned bundle lines.
	tickSigstore(t, r, env)
	if second := note(t, r.dir, r.c1); len(attest.SplitNote([]byte(second))) != 4 || second == first {
		t.Errorf("re-tick: note has %d lines (want 4, replaced)", len(attest.SplitNote([]byte(second))))
	}
	// And taskproof verify accepts them with the trusted root from a file.
	repo, notes := r.open(t)
	trust, _, err := verify.LoadTrust(repo, verify.TrustSources{NoGitConfig: true, TrustedRoot: env.WriteTrustedRoot(t, t.TempDir()),
		CertIdentity: sgIdentity, CertOIDCIssuer: sgIssuer})
	if err != nil {
		t.Fatal(err)
	}
	v := &verify.Verifier{Repo: repo, Notes: notes, Trust: trust}
	rs, err := v.Object(r.c1)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rs {
		if res.Outcome != verify.OK || len(res.Signers) != 1 || res.Signers[0].Identity != sgIdentity {
			t.Errorf("%s: outcome %s signers %+v reasons %+v", res.Task, res.Outcome, res.Signers, res.Reasons)
		}
	}
}

func TestSigstoreSignerRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    attest.SigstoreOptions
		want string
	}{
		{"no fulcio", attest.SigstoreOptions{RekorURL: "https://rekor.test", IDToken: "x"}, "no Fulcio URL"},
		{"no token", attest.SigstoreOptions{FulcioURL: "https://fulcio.test", RekorURL: "https://rekor.test"}, "no OIDC identity token"},
		{"no rekor", attest.SigstoreOptions{FulcioURL: "https://fulcio.test", IDToken: "x"}, "no Rekor URL"},
	} {
		_, err := attest.NewSigstoreSigner(tc.o)
		if !errors.Is(err, attest.ErrSigstore) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrSigstore with %q", tc.name, err, tc.want)
		}
	}
	env := sigstoretest.New(t)
	s := env.Signer(t, &sigstoretest.Fulcio{Identity: sgIdentity, Issuer: sgIssuer})
	if _, err := s.Sign([]byte("pae")); !errors.Is(err, attest.ErrSigstore) {
		t.Errorf("Sign: err %v, want ErrSigstore", err)
	}
	// A bundle carries one signature: the sigstore signer is not combined.
	r := newTickRepo(t)
	key, _ := sshKey(t, "")
	repo, notes := r.open(t)
	_, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Verdict: predicate.RegressionOnly,
		Regression: map[string]any{"reason": "planning_work"}, Signers: []attest.Signer{s, sshSigner(t, key)}})
	if !errors.Is(err, attest.ErrRequest) || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("sigstore + ssh: err %v, want ErrRequest (cannot be combined)", err)
	}
}

func TestDecodeBundleRefuses(t *testing.T) {
	r := newTickRepo(t)
	env := sigstoretest.New(t)
	tickSigstore(t, r, env)
	good := attest.SplitNote([]byte(note(t, r.dir, r.c1)))[0]
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
		if !attest.IsBundle(tc.line) {
			t.Errorf("%s: IsBundle false", tc.name)
		}
		_, err := attest.DecodeBundle(tc.line)
		if !errors.Is(err, attest.ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrMalformed with %q", tc.name, err, tc.want)
		}
	}
	if attest.IsBundle([]byte(`{"payload":"","payloadType":"x","signatures":[]}`)) {
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
		b, err := attest.DecodeBundle(data)
		if err != nil {
			if !errors.Is(err, attest.ErrMalformed) {
				t.Fatalf("error %v does not match ErrMalformed", err)
			}
			return
		}
		if b.Envelope == nil || len(b.Envelope.Signatures) > attest.MaxSignatures {
			t.Fatalf("decoded bundle %+v breaks its limits", b)
		}
		attest.LineSubject(data)
		attest.ShowNote(data)
	})
}
