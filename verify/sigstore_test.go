package verify

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/trust"
)

const (
	sgIssuer   = "https://token.actions.githubusercontent.com"
	sgMain     = "https://github.com/acme/greet/.github/workflows/release.yml@refs/heads/main"
	sgAttacker = "https://github.com/acme/greet/.github/workflows/release.yml@refs/heads/attacker"
)

// setSigstore replaces the fixture's trust with Sigstore trust in env's root.
func (f *fixture) setSigstore(env *sigstoretest.Env, o trust.SigstoreOptions) {
	f.t.Helper()
	o.TrustedRoot = env.Root
	st, err := trust.NewSigstoreTrust(o)
	if err != nil {
		f.t.Fatal(err)
	}
	if f.trust, err = trust.NewTrust(trust.WithSigstore(st)); err != nil {
		f.t.Fatal(err)
	}
}

// bundleLines decodes every line of c's note as a Sigstore bundle.
func (f *fixture) bundleLines(c gitref.Hash) ([][]byte, []*noteline.Bundle) {
	f.t.Helper()
	var raws [][]byte
	var bs []*noteline.Bundle
	for _, raw := range noteline.Split(f.note(c)) {
		b, err := noteline.DecodeBundle(raw)
		if err != nil {
			f.t.Fatalf("note of %s: %v", c, err)
		}
		raws, bs = append(raws, raw), append(bs, b)
	}
	return raws, bs
}

// mutateTVBundle rewrites, as JSON, the bundle line of c's note holding the
// task-verification statement.
func (f *fixture) mutateTVBundle(c gitref.Hash, mutate func(m map[string]any)) {
	f.t.Helper()
	raws, bs := f.bundleLines(c)
	for i, b := range bs {
		st := decodeMap(f.t, b.Envelope.Payload)
		if st["predicateType"] != predicate.PredicateType {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(raws[i], &m); err != nil {
			f.t.Fatal(err)
		}
		mutate(m)
		out, err := json.Marshal(m)
		if err != nil {
			f.t.Fatal(err)
		}
		raws[i] = out
		f.setNoteLines(c, raws)
		return
	}
	f.t.Fatalf("note of %s has no task-verification bundle", c)
}

func TestSigstoreObject(t *testing.T) {
	exactMain := trust.SigstoreOptions{Identity: sgMain, Issuer: sgIssuer}
	cases := []struct {
		name string
		// fulcio issues the signing certificate; logs default to the virtual Rekor.
		fulcio sigstoretest.Fulcio
		noLog  bool
		trust  trust.SigstoreOptions
		// change, when set, rewrites the note after signing.
		change      func(f *fixture, c gitref.Hash)
		outcome     Outcome
		code        string
		messageHas  string
		wantSignerS bool
	}{
		{name: "exact identity", fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}, trust: exactMain, outcome: OK, wantSignerS: true},
		{name: "anchored regexp", fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer},
			trust: trust.SigstoreOptions{IdentityRegexp: `https://github\.com/acme/greet/\.github/workflows/release\.yml@refs/heads/(main)?`, Issuer: sgIssuer}, outcome: OK, wantSignerS: true},
		{name: "e-mail identity", fulcio: sigstoretest.Fulcio{Identity: "dev@example.invalid", Issuer: "https://accounts.example"},
			trust: trust.SigstoreOptions{Identity: "dev@example.invalid", Issuer: "https://accounts.example"}, outcome: OK, wantSignerS: true},
		{name: "wrong identity", fulcio: sigstoretest.Fulcio{Identity: sgAttacker, Issuer: sgIssuer}, trust: exactMain,
			outcome: UntrustedSigner, code: CodeUntrusted, messageHas: `identity "` + sgAttacker + `", want "` + sgMain + `"`},
		{name: "identity matching the regexp only unanchored (optional suffix)", fulcio: sigstoretest.Fulcio{Identity: sgAttacker, Issuer: sgIssuer},
			trust:   trust.SigstoreOptions{IdentityRegexp: `https://github\.com/acme/greet/\.github/workflows/release\.yml@refs/heads/(main)?`, Issuer: sgIssuer},
			outcome: UntrustedSigner, code: CodeUntrusted, messageHas: "does not match the regular expression `"},
		{name: "identity matching the regexp only unanchored (prefix)", fulcio: sigstoretest.Fulcio{Identity: "https://evil.example/" + sgMain, Issuer: sgIssuer},
			trust:   trust.SigstoreOptions{IdentityRegexp: regexp.QuoteMeta(sgMain), Issuer: sgIssuer},
			outcome: UntrustedSigner, code: CodeUntrusted, messageHas: "does not match the regular expression `"},
		{name: "wrong issuer", fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: "https://gitlab.example"}, trust: exactMain,
			outcome: UntrustedSigner, code: CodeUntrusted, messageHas: `issuer "https://gitlab.example", want "` + sgIssuer + `"`},
		{name: "expired certificate without a timestamp",
			fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer, NotBefore: time.Now().Add(-3 * time.Hour)}, noLog: true,
			trust:   trust.SigstoreOptions{Identity: sgMain, Issuer: sgIssuer, TlogThresholdZeroUnsafe: true},
			outcome: UntrustedSigner, code: CodeUntrusted, messageHas: "expired"},
		{name: "no tlog entry under the default threshold", fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}, noLog: true, trust: exactMain,
			outcome: UntrustedSigner, code: CodeUntrusted, messageHas: "transparency log"},
		{name: "two signatures", fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}, trust: exactMain,
			change: func(f *fixture, c gitref.Hash) {
				f.mutateTVBundle(c, func(m map[string]any) {
					de := m["dsseEnvelope"].(map[string]any)
					sigs := de["signatures"].([]any)
					de["signatures"] = append(sigs, sigs[0])
				})
			},
			outcome: Malformed, code: CodeSignature, messageHas: "exactly one signature, found 2"},
		{name: "payload changed after signing", fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}, trust: exactMain,
			change: func(f *fixture, c gitref.Hash) {
				f.mutateTVBundle(c, func(m map[string]any) {
					de := m["dsseEnvelope"].(map[string]any)
					p, _ := base64.StdEncoding.DecodeString(de["payload"].(string))
					de["payload"] = base64.StdEncoding.EncodeToString(bytes.Replace(p, []byte(`"planning_work"`), []byte(`"no_story"`), 1))
				})
			},
			outcome: BadSignature, code: CodeSignature, messageHas: "does not verify"},
		{name: "unknown bundle version", fulcio: sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}, trust: exactMain,
			change: func(f *fixture, c gitref.Hash) {
				f.mutateTVBundle(c, func(m map[string]any) { m["mediaType"] = "application/vnd.dev.sigstore.bundle.v0.4+json" })
			},
			outcome: Malformed, code: CodeLineMalformed, messageHas: "unsupported bundle media type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			env := sigstoretest.New(t)
			fu := tc.fulcio
			var logs []sign.Transparency
			if tc.noLog {
				logs = []sign.Transparency{sigstoretest.NoLog{}}
			}
			c := f.tick("T001")
			f.attest(c, predicate.RegressionOnly, env.Signer(t, &fu, logs...))
			if fu.NotBefore.IsZero() && fu.Calls != 1 {
				t.Errorf("Fulcio asked %d times for one signer, want 1 (the certificate is reused)", fu.Calls)
			}
			if tc.change != nil {
				tc.change(f, c)
			}
			f.setSigstore(env, tc.trust)
			rs := f.object(c)
			if len(rs) != 1 {
				t.Fatalf("got %d results, want 1: %+v", len(rs), rs)
			}
			r := rs[0]
			if r.Outcome != tc.outcome {
				t.Fatalf("outcome %s, want %s; reasons %+v", r.Outcome, tc.outcome, r.Reasons)
			}
			if tc.code != "" {
				found := false
				for _, x := range r.Reasons {
					if x.Code == tc.code && strings.Contains(x.Message, tc.messageHas) {
						found = true
					}
				}
				if !found {
					t.Errorf("no reason %s containing %q in %+v", tc.code, tc.messageHas, r.Reasons)
				}
			}
			if tc.wantSignerS {
				if len(r.Signers) != 1 {
					t.Fatalf("signers %+v, want one", r.Signers)
				}
				s := r.Signers[0]
				if s.Kind != signer.KindSigstore || s.Identity != fu.Identity || s.Issuer != fu.Issuer || s.Principal != fu.Identity ||
					s.TlogIndex == nil || *s.TlogIndex != 0 || len(s.KeyID) != 64 {
					t.Errorf("signer %+v (tlog index %v), want sigstore %s / %s with tlog index 0", s, s.TlogIndex, fu.Identity, fu.Issuer)
				}
			} else if len(r.Signers) != 0 {
				t.Errorf("signers %+v credited on a failure", r.Signers)
			}
		})
	}
}

// The unanchored cases above only test anchoring if the plain regexp would
// have matched.
func TestSigstoreUnanchoredWouldMatch(t *testing.T) {
	for _, c := range []struct{ re, id string }{
		{`https://github\.com/acme/greet/\.github/workflows/release\.yml@refs/heads/(main)?`, sgAttacker},
		{regexp.QuoteMeta(sgMain), "https://evil.example/" + sgMain},
	} {
		if !regexp.MustCompile(c.re).MatchString(c.id) {
			t.Errorf("%s does not match %s even unanchored", c.re, c.id)
		}
	}
}

// A bundle for another commit, stored in this commit's note, is a mismatch
// (docs/format.md#verification-rules), by taskproof's subject check and by
// sigstore-go's (the object's id as the gitCommit artifact digest).
func TestSigstoreBundleForAnotherCommit(t *testing.T) {
	f := newFixture(t)
	env := sigstoretest.New(t)
	c1 := f.tick("T001")
	f.attest(c1, predicate.RegressionOnly, env.Signer(t, &sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}))
	c2 := f.commit("unrelated", map[string]string{"README.md": "hi\n"})
	f.setNote(c2, f.note(c1))
	f.setSigstore(env, trust.SigstoreOptions{Identity: sgMain, Issuer: sgIssuer})
	if r := f.object(c1)[0]; r.Outcome != OK {
		t.Fatalf("c1: outcome %s, want ok: %+v", r.Outcome, r.Reasons)
	}
	r := f.object(c2)[0]
	if r.Outcome != Mismatch {
		t.Fatalf("c2: outcome %s, want mismatch: %+v", r.Outcome, r.Reasons)
	}
	found := false
	for _, x := range r.Reasons {
		if x.Code == CodeSubjectCommit && x.Expected == string(c2) && x.Found == string(c1) {
			found = true
		}
	}
	if !found {
		t.Errorf("no subject_commit reason (expected %s, found %s) in %+v", c2, c1, r.Reasons)
	}
	if !strings.Contains(reasonMessages(r.Reasons), "sigstore-go's subject check") {
		t.Errorf("no reason from sigstore-go's subject check in %+v", r.Reasons)
	}
}

// Every accepted media type spelling verifies (the media type is not signed);
// others are malformed.
func TestSigstoreMediaTypes(t *testing.T) {
	f := newFixture(t)
	env := sigstoretest.New(t)
	c := f.tick("T001")
	f.attest(c, predicate.RegressionOnly, env.Signer(t, &sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}))
	f.setSigstore(env, trust.SigstoreOptions{Identity: sgMain, Issuer: sgIssuer})
	orig := f.note(c)
	for _, tc := range []struct {
		mt string
		ok bool
	}{
		{noteline.BundleMediaType01, true}, {noteline.BundleMediaType02, true}, {noteline.BundleMediaType03, true},
		{noteline.BundleMediaTypeV01, true}, {noteline.BundleMediaTypeV02, true}, {noteline.BundleMediaTypeV03, true},
		{"application/vnd.dev.sigstore.bundle+json;version=0.4", false},
		{"application/vnd.dev.sigstore.bundle.v0.3.1+json", false},
		{"application/vnd.dev.sigstore.bundle.V0.3+json", false},
	} {
		f.setNote(c, orig)
		f.mutateTVBundle(c, func(m map[string]any) { m["mediaType"] = tc.mt })
		r := f.object(c)[0]
		if tc.ok && r.Outcome != OK {
			t.Errorf("%s: outcome %s, want ok: %+v", tc.mt, r.Outcome, r.Reasons)
		}
		if !tc.ok && (r.Outcome != Malformed || len(r.Reasons) == 0 || r.Reasons[0].Code != CodeLineMalformed) {
			t.Errorf("%s: outcome %s, want malformed (line_malformed): %+v", tc.mt, r.Outcome, r.Reasons)
		}
	}
}
