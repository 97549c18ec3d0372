package trust

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/sigstoretest"
)

// The Sigstore identity these tests trust: a GitHub Actions workflow on main.
const (
	sgIssuer = "https://token.actions.githubusercontent.com"
	sgMain   = "https://github.com/acme/greet/.github/workflows/release.yml@refs/heads/main"
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
				if err == nil || !errors.Is(err, ErrSigstoreOptions) || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), quotePattern(tc.pattern)) {
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

func TestNewSigstoreTrustRefuses(t *testing.T) {
	env := sigstoretest.New(t)
	for _, tc := range []struct {
		name string
		o    SigstoreOptions
		want string
	}{
		{"no root", SigstoreOptions{Identity: sgMain, Issuer: sgIssuer}, "no trusted root"},
		{"no identity", SigstoreOptions{TrustedRoot: env.Root, Issuer: sgIssuer}, "is required"},
		{"both identities", SigstoreOptions{TrustedRoot: env.Root, Identity: sgMain, IdentityRegexp: ".*", Issuer: sgIssuer}, "not both"},
		{"no issuer", SigstoreOptions{TrustedRoot: env.Root, Identity: sgMain}, "a certificate OIDC issuer is required"},
		{"bad regexp", SigstoreOptions{TrustedRoot: env.Root, IdentityRegexp: "(", Issuer: sgIssuer}, "certificate identity regular expression"},
		{"negative threshold", SigstoreOptions{TrustedRoot: env.Root, Identity: sgMain, Issuer: sgIssuer, TlogThreshold: -1}, "negative"},
	} {
		_, err := NewSigstoreTrust(tc.o)
		if err == nil || !errors.Is(err, ErrSigstoreOptions) || !errors.Is(err, ErrTrust) || strings.Contains(err.Error(), "--") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrSigstoreOptions (ErrTrust) with %q and no flag name", tc.name, err, tc.want)
		}
	}
}
