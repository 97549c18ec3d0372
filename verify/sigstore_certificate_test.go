package verify

import (
	"crypto/x509"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/predicate"
)

// TestIdentityPatternCompile: a pattern is compiled on its own, then
// anchored; what does not parse alone, or parses differently anchored, is
// refused, and what is accepted matches whole identities only.
func TestIdentityPatternCompile(t *testing.T) {
	env := sigstoretest.New(t)
	for _, tc := range []struct {
		name, pattern string
		refused       string   // the error names this; "" accepted
		match, reject []string // identities the applied pattern matches, and does not
	}{
		{name: "group closed early (alternation escaping the anchors)", pattern: `A)|(.*B`, refused: "does not parse on its own"},
		{name: "fork identity through a closed group", pattern: `https://github\.com/acme/greet/.*)|(.*`, refused: "does not parse on its own"},
		{name: "unbalanced open group", pattern: `(?:a`, refused: "does not parse on its own"},
		{name: "unbalanced close", pattern: `(a)|b)`, refused: "does not parse on its own"},
		{name: "trailing backslash", pattern: `acme\`, refused: "does not parse on its own"},
		{name: "unclosed class", pattern: `[a-`, refused: "does not parse on its own"},
		{name: "unterminated \\Q quotes the anchoring", pattern: `\Qacme`, refused: "does not parse anchored"},
		{name: "Perl flag x is not RE2", pattern: `(?x) a`, refused: "does not parse on its own"},
		{name: "alternation stays inside the anchors", pattern: `a|b`, match: []string{"a", "b"}, reject: []string{"ab", "xa", "bx", "a|b", ""}},
		{name: "empty branch", pattern: `x|`, match: []string{"x", ""}, reject: []string{"xx", "y"}},
		{name: "groups", pattern: `(a)(b)?`, match: []string{"a", "ab"}, reject: []string{"b", "abb"}},
		{name: "escaped parenthesis", pattern: `a\)|\(b`, match: []string{"a)", "(b"}, reject: []string{"a", "b", "a)|(b"}},
		{name: "parenthesis in a class", pattern: `[)]|[(]`, match: []string{")", "("}, reject: []string{")(", ""}},
		{name: "quoted metacharacters", pattern: `\Qa)|(.*\E`, match: []string{"a)|(.*"}, reject: []string{"a", "anything"}},
		{name: "multi-line flag stays inside the group", pattern: `(?m)^main$`, match: []string{"main"}, reject: []string{"main\nhttps://evil.example/", "x\nmain"}},
		{name: "dot-all flag", pattern: `(?s)acme/.*`, match: []string{"acme/x", "acme/\n"}, reject: []string{"evil/acme/x"}},
		{name: "case flag stays inside the group", pattern: `(?i)acme`, match: []string{"ACME", "acme"}, reject: []string{"acme2"}},
		{name: "ungreedy flag changes nothing anchored", pattern: `(?U)a.*`, match: []string{"a", "abc"}, reject: []string{"ba"}},
		{name: "unanchored-looking workflow pattern", pattern: `https://github\.com/acme/greet/\.github/workflows/attest\.yml@refs/heads/.*`,
			match:  []string{"https://github.com/acme/greet/.github/workflows/attest.yml@refs/heads/main"},
			reject: []string{"https://github.com/other/greet/.github/workflows/attest.yml@refs/heads/main", "x" + "https://github.com/acme/greet/.github/workflows/attest.yml@refs/heads/main"}},
		{name: "user anchors kept", pattern: `^acme$`, match: []string{"acme"}, reject: []string{"acme\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compileIdentityPattern(tc.pattern)
			if tc.refused != "" {
				if err == nil || !errorsIs(err, ErrSigstoreOptions) || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), quotePattern(tc.pattern)) {
					t.Fatalf("compileIdentityPattern(%q): %v, want ErrSigstoreOptions naming the pattern and %q", tc.pattern, err, tc.refused)
				}
				// sigstore-go's trust refuses it too, through NewSigstoreTrust.
				if _, err := NewSigstoreTrust(SigstoreOptions{TrustedRoot: env.Root, IdentityRegexp: tc.pattern, Issuer: sgIssuer}); err == nil {
					t.Errorf("NewSigstoreTrust accepts %q", tc.pattern)
				}
				return
			}
			if err != nil {
				t.Fatalf("compileIdentityPattern(%q): %v", tc.pattern, err)
			}
			if p.given != tc.pattern || p.applied != "^(?:"+tc.pattern+")$" {
				t.Errorf("given %q applied %q", p.given, p.applied)
			}
			if s := p.String(); !strings.Contains(s, quotePattern(tc.pattern)) || !strings.Contains(s, quotePattern("^(?:"+tc.pattern+")$")) {
				t.Errorf("String() = %s: does not name the pattern as given and as applied", s)
			}
			for _, id := range tc.match {
				if !p.re.MatchString(id) {
					t.Errorf("%q does not match %q", p.applied, id)
				}
			}
			for _, id := range tc.reject {
				if p.re.MatchString(id) {
					t.Errorf("%q matches %q", p.applied, id)
				}
			}
		})
	}
}

// FuzzIdentityPattern: an accepted pattern applied anchored matches exactly
// the identities that the pattern alone matches from their first byte to
// their last (leftmost-longest finds that match when there is one).
func FuzzIdentityPattern(f *testing.F) {
	for _, s := range [][2]string{
		{`A)|(.*B`, "xB"}, {`a|b`, "ab"}, {`(?m)^a$`, "a\nb"}, {`\Qa`, "a"}, {`x|`, ""},
		{`https://github\.com/acme/.*`, "https://github.com/acme/x"}, {`[)]|(`, ")"}, {`(?i)A|b`, "B"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, id string) {
		p, err := compileIdentityPattern(pattern)
		if err != nil {
			if _, alone := regexp.Compile(pattern); alone == nil && !strings.Contains(err.Error(), "anchored") {
				t.Fatalf("%q parses alone but is refused: %v", pattern, err)
			}
			return
		}
		alone := regexp.MustCompile(pattern)
		alone.Longest()
		loc := alone.FindStringIndex(id)
		whole := loc != nil && loc[0] == 0 && loc[1] == len(id)
		if got := p.re.MatchString(id); got != whole {
			t.Fatalf("pattern %q, identity %q: applied %q matches %v, the pattern alone matches the whole identity %v", pattern, id, p.applied, got, whole)
		}
	})
}

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
			f.setSigstore(env, SigstoreOptions{Identity: sgMain, Issuer: sgIssuer})
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
			o := SigstoreOptions{Identity: sgMain, Issuer: sgIssuer}
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
