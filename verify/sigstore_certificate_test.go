package verify

import (
	"crypto/x509"
	"reflect"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/trust"
)

// TestSigstoreLeafProfile: a certificate chaining to the trusted Fulcio CA,
// with the trusted identity and issuer, still needs the code-signing leaf
// profile; the honest certificate passes.
func TestSigstoreLeafProfile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile func(*x509.Certificate)
		want    string // "" passes
	}{
		{name: "Fulcio's profile", profile: nil},
		{name: "a CA certificate", profile: func(c *x509.Certificate) {
			c.BasicConstraintsValid, c.IsCA = true, true
		}, want: "is a CA certificate"},
		{name: "may sign certificates", profile: func(c *x509.Certificate) {
			c.KeyUsage |= x509.KeyUsageCertSign
		}, want: "keyCertSign"},
		{name: "key agreement only", profile: func(c *x509.Certificate) {
			c.KeyUsage = x509.KeyUsageKeyAgreement
		}, want: "lacks the digitalSignature key usage"},
		{name: "no key usage extension", profile: func(c *x509.Certificate) {
			c.KeyUsage = 0
		}, want: "lacks the digitalSignature key usage"},
		{name: "no code-signing extended key usage", profile: func(c *x509.Certificate) {
			c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		}, want: "codeSigning"},
		{name: "any extended key usage", profile: func(c *x509.Certificate) {
			c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageAny}
		}, want: "codeSigning"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			env := sigstoretest.New(t)
			c := f.tick("T001")
			f.attest(c, predicate.RegressionOnly, env.Signer(t, &sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer, Profile: tc.profile}))
			f.setSigstore(env, trust.SigstoreOptions{Identity: sgMain, Issuer: sgIssuer})
			r := f.object(c)[0]
			if tc.want == "" {
				if r.Outcome != OK {
					t.Fatalf("outcome %s, want ok: %+v", r.Outcome, r.Reasons)
				}
				return
			}
			if r.Outcome != UntrustedSigner || len(r.Signers) != 0 {
				t.Fatalf("outcome %s signers %+v, want untrusted_signer and none: %+v", r.Outcome, r.Signers, r.Reasons)
			}
			found := false
			for _, x := range r.Reasons {
				found = found || (x.Code == CodeUntrusted && strings.Contains(x.Message, tc.want))
			}
			if !found {
				t.Errorf("no untrusted reason naming %q in %+v", tc.want, r.Reasons)
			}
		})
	}
}

// TestSigstoreTlogIndexVerified: the log index reported is that of the entry
// that verified, also when an entry of a log the trusted root does not name
// comes first, and also when it is 0.
func TestSigstoreTlogIndexVerified(t *testing.T) {
	for _, tc := range []struct {
		name          string
		unknownFirst  bool
		withUnknown   bool
		trustedIndex  int64
		wantIndex     int64
		zeroThreshold bool
	}{
		{name: "one entry at index 0", trustedIndex: 0, wantIndex: 0},
		{name: "an unknown log's entry first", withUnknown: true, unknownFirst: true, wantIndex: 0},
		{name: "an unknown log's entry last", withUnknown: true, wantIndex: 0},
		{name: "an unknown log's entry first, threshold 0", withUnknown: true, unknownFirst: true, wantIndex: 0, zeroThreshold: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			env := sigstoretest.New(t)
			env.LogIndex = tc.trustedIndex
			logs := []sign.Transparency{env.Rekor()}
			if tc.withUnknown {
				other := sigstoretest.New(t)
				other.LogIndex = 41
				if tc.unknownFirst {
					logs = append([]sign.Transparency{other.Rekor()}, logs...)
				} else {
					logs = append(logs, other.Rekor())
				}
			}
			c := f.tick("T001")
			f.attest(c, predicate.RegressionOnly, env.Signer(t, &sigstoretest.Fulcio{Identity: sgMain, Issuer: sgIssuer}, logs...))
			_, bs := f.bundleLines(c)
			if tc.withUnknown {
				first := bs[0].TlogIndex
				if want := map[bool]int64{true: 41, false: 0}[tc.unknownFirst]; first != want {
					t.Fatalf("the bundle's first entry has index %d, want %d (the test's premise)", first, want)
				}
			}
			o := trust.SigstoreOptions{Identity: sgMain, Issuer: sgIssuer}
			if tc.zeroThreshold {
				o.TlogThresholdZeroUnsafe = true
			}
			f.setSigstore(env, o)
			r := f.object(c)[0]
			if r.Outcome != OK || len(r.Signers) != 1 {
				t.Fatalf("outcome %s signers %+v: %+v", r.Outcome, r.Signers, r.Reasons)
			}
			if got := r.Signers[0].TlogIndex; got == nil || *got != tc.wantIndex {
				t.Fatalf("tlog index %s, want %d", dumpValue(reflect.ValueOf(got)), tc.wantIndex)
			}
			// Through the gate, spooled and in memory (f.branch compares both
			// field by field), tlog_index 0 included.
			rep := f.branch(f.base, c, GateOptions{})
			if len(rep.Ticks) != 1 || len(rep.Ticks[0].Signers) != 1 || rep.Ticks[0].Signers[0].TlogIndex == nil || *rep.Ticks[0].Signers[0].TlogIndex != tc.wantIndex {
				t.Fatalf("gate ticks %+v, want one signer with tlog index %d", rep.Ticks, tc.wantIndex)
			}
		})
	}
}
