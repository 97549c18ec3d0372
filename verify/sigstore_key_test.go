package verify

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/internal/testkeys"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/trust"
)

// keyBundleNote rewrites c's note (DSSE lines) as Sigstore bundles signed by
// kp with sigstore-go's signing path — a bundle whose verification material is
// kp's public key, as `cosign attest-blob --key … --new-bundle-format`
// writes — logged in logs (none: no transparency log entry).
func (f *fixture) keyBundleNote(c gitref.Hash, kp sign.Keypair, logs ...sign.Transparency) {
	f.t.Helper()
	var out [][]byte
	for _, l := range f.lines(c) {
		pb, err := sign.Bundle(&sign.DSSEData{Data: l.env.Payload, PayloadType: dsse.PayloadType}, kp, sign.BundleOptions{TransparencyLogs: logs})
		if err != nil {
			f.t.Fatal(err)
		}
		line, err := (&bundle.Bundle{Bundle: pb}).MarshalJSON()
		if err != nil {
			f.t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, line); err != nil {
			f.t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	f.setNoteLines(c, out)
}

// keypairKey is kp's public key as a trusted raw key.
func keypairKey(t *testing.T, kp sign.Keypair) *trust.RawKey {
	t.Helper()
	p, err := kp.GetPublicKeyPem()
	if err != nil {
		t.Fatal(err)
	}
	k, err := trust.ParseRawKey([]byte(p))
	if err != nil {
		t.Fatal(err)
	}
	k.Source = "key.pem"
	return k
}

// TestSigstoreKeyBundle: a bundle signed with a trusted raw key verifies as
// an envelope signed by it (kind raw, the key credited); its transparency log
// entries are checked with the Sigstore trust's root and thresholds, and
// refused when no trusted root can check them; an unknown key, a payload
// changed after signing and a log entry of another log fail.
func TestSigstoreKeyBundle(t *testing.T) {
	env := sigstoretest.New(t)
	ecdsaKP := func(t *testing.T) sign.Keypair {
		kp, err := sign.NewEphemeralKeypair(nil)
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	rsaKP := func(t *testing.T) sign.Keypair {
		kp, err := sign.NewEphemeralKeypair(&sign.EphemeralKeypairOptions{Algorithm: protocommon.PublicKeyDetails_PKIX_RSA_PKCS1V15_2048_SHA256})
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	keysOnly := func(t *testing.T, o trust.SigstoreOptions) *trust.SigstoreTrust {
		o.TrustedRoot = env.Root
		st, err := trust.NewSigstoreTrust(o)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	cases := []struct {
		name    string
		kp      func(*testing.T) sign.Keypair
		logged  bool
		sig     func(*testing.T) *trust.SigstoreTrust // nil: no Sigstore trust
		other   bool                                  // trust another key
		change  func(f *fixture, c gitref.Hash)
		outcome Outcome
		has     string
		tlog    bool // the credited signer reports tlog index 0
	}{
		{name: "no log entry, key only", kp: ecdsaKP, outcome: OK},
		{name: "rsa pkcs1v15, no log entry", kp: rsaKP, outcome: OK},
		{name: "logged, key and trusted root", kp: ecdsaKP, logged: true, sig: func(t *testing.T) *trust.SigstoreTrust { return keysOnly(t, trust.SigstoreOptions{}) }, outcome: OK, tlog: true},
		{name: "logged, key alone", kp: ecdsaKP, logged: true, outcome: UntrustedSigner, has: "need a Sigstore trusted root"},
		{name: "not logged under the default threshold", kp: ecdsaKP, sig: func(t *testing.T) *trust.SigstoreTrust { return keysOnly(t, trust.SigstoreOptions{}) },
			outcome: UntrustedSigner, has: "transparency log"},
		{name: "not logged, threshold 0", kp: ecdsaKP, sig: func(t *testing.T) *trust.SigstoreTrust {
			return keysOnly(t, trust.SigstoreOptions{TlogThresholdZeroUnsafe: true})
		}, outcome: OK},
		{name: "logged, trusted root of another log", kp: ecdsaKP, logged: true, sig: func(t *testing.T) *trust.SigstoreTrust {
			o := trust.SigstoreOptions{TrustedRoot: sigstoretest.New(t).Root}
			st, err := trust.NewSigstoreTrust(o)
			if err != nil {
				t.Fatal(err)
			}
			return st
		}, outcome: UntrustedSigner, has: "transparency log"},
		{name: "another key", kp: ecdsaKP, other: true, outcome: UntrustedSigner, has: "no trusted raw key verifies it"},
		{name: "payload changed after signing", kp: ecdsaKP, change: func(f *fixture, c gitref.Hash) {
			f.mutateTVBundle(c, func(m map[string]any) {
				de := m["dsseEnvelope"].(map[string]any)
				p, _ := base64.StdEncoding.DecodeString(de["payload"].(string))
				de["payload"] = base64.StdEncoding.EncodeToString(bytes.Replace(p, []byte(`"planning_work"`), []byte(`"no_story"`), 1))
			})
		}, outcome: BadSignature, has: "names"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			c := f.tick("T001")
			f.attest(c, predicate.RegressionOnly, f.signer)
			kp := tc.kp(t)
			var logs []sign.Transparency
			if tc.logged {
				logs = append(logs, env.Rekor())
			}
			f.keyBundleNote(c, kp, logs...)
			if tc.change != nil {
				tc.change(f, c)
			}
			key := keypairKey(t, kp)
			trusted := key
			if tc.other {
				trusted = keypairKey(t, ecdsaKP(t))
			}
			opts := []trust.Option{trust.WithRawKeys(trusted)}
			if tc.sig != nil {
				opts = append(opts, trust.WithSigstore(tc.sig(t)))
			}
			var err error
			if f.trust, err = trust.NewTrust(opts...); err != nil {
				t.Fatal(err)
			}
			r := f.object(c)[0]
			if r.Outcome != tc.outcome {
				t.Fatalf("outcome %s, want %s: %+v", r.Outcome, tc.outcome, r.Reasons)
			}
			if tc.has != "" && !strings.Contains(reasonMessages(r.Reasons), tc.has) {
				t.Errorf("reasons %+v lack %q", r.Reasons, tc.has)
			}
			if tc.outcome != OK {
				return
			}
			if len(r.Signers) != 1 || r.Signers[0].Kind != signer.KindRaw || r.Signers[0].KeyID != key.KeyID || r.Signers[0].Principal != "key.pem" ||
				(r.Signers[0].TlogIndex != nil) != tc.tlog {
				t.Fatalf("signers %+v, want the raw key %s (tlog reported: %v)", r.Signers, key.KeyID, tc.tlog)
			}
			// The same key signing an envelope is the same signer.
			payload := []byte(`{"_type":"https://in-toto.io/Statement/v1"}`)
			sig, _, err := kp.SignData(context.Background(), testkeys.PAE(payload))
			if err != nil {
				t.Fatal(err)
			}
			tr, err := trust.NewTrust(trust.WithRawKeys(key))
			if err != nil {
				t.Fatal(err)
			}
			sigs, err := trust.VerifySignatures(&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: payload, Signatures: []dsse.Signature{{KeyID: key.KeyID, Sig: sig}}}, tr, now)
			if err != nil || sigs.Status != OK || len(sigs.Signers) != 1 {
				t.Fatalf("the key's envelope: %+v, %v", sigs, err)
			}
			if ks := trust.SignerKeys([]trust.Signer{r.Signers[0], sigs.Signers[0]}); ks[0] != ks[1] {
				t.Errorf("the bundle's signer and the key's envelope signer count as two keys: %v", ks)
			}
		})
	}
}

// TestSigstoreKeyBundleForAnotherCommit: a key-signed bundle copied to
// another commit's note is a mismatch, by taskproof's subject check and by
// sigstore-go's (both named).
func TestSigstoreKeyBundleForAnotherCommit(t *testing.T) {
	env := sigstoretest.New(t)
	f := newFixture(t)
	c1 := f.tick("T001")
	f.attest(c1, predicate.RegressionOnly, f.signer)
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		t.Fatal(err)
	}
	f.keyBundleNote(c1, kp, env.Rekor())
	c2 := f.commit("unrelated", map[string]string{"README.md": "hi\n"})
	f.setNote(c2, f.note(c1))
	st, err := trust.NewSigstoreTrust(trust.SigstoreOptions{TrustedRoot: env.Root})
	if err != nil {
		t.Fatal(err)
	}
	if f.trust, err = trust.NewTrust(trust.WithRawKeys(keypairKey(t, kp)), trust.WithSigstore(st)); err != nil {
		t.Fatal(err)
	}
	if r := f.object(c1)[0]; r.Outcome != OK {
		t.Fatalf("c1: %s %+v", r.Outcome, r.Reasons)
	}
	r := f.object(c2)[0]
	if r.Outcome != Mismatch {
		t.Fatalf("c2: outcome %s, want mismatch: %+v", r.Outcome, r.Reasons)
	}
	var own, sg bool
	for _, x := range r.Reasons {
		own = own || x.Code == CodeSubjectCommit && x.Found == string(c1)
		sg = sg || x.Code == CodeSubjectCommit && strings.Contains(x.Message, "sigstore-go's subject check")
	}
	if !own || !sg {
		t.Errorf("reasons %+v: want taskproof's subject_commit (found %s) and sigstore-go's", r.Reasons, c1)
	}
}

func reasonMessages(rs []Reason) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Message + "\n")
	}
	return b.String()
}
