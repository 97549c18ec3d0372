package trust

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// fixedKey is a deterministic ed25519 SSH public key for parser tests.
func fixedKey(t testing.TB, seed byte) (ssh.PublicKey, string) {
	t.Helper()
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	pub, err := ssh.NewPublicKey(ed25519.NewKeyFromSeed(s).Public())
	if err != nil {
		t.Fatal(err)
	}
	return pub, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
}

func TestParseAllowedSigners(t *testing.T) {
	_, k := fixedKey(t, 1)
	file := strings.Join([]string{
		"# comment",
		"",
		"   \t",
		"alice@example.com " + k + " alice's laptop",
		`"bob@example.com,carol@example.com" namespaces="git,in-toto",valid-after="20250101",valid-before="20260102030405Z" ` + k,
		`*@example.com CERT-AUTHORITY,Namespaces="in-toto" ` + k,
		`dave valid-after="202501011230Z" ` + k + "\r",
		`erin namespaces="a\"b" ` + k,
	}, "\n")
	as, err := ParseAllowedSigners([]byte(file), "allowed")
	if err != nil {
		t.Fatal(err)
	}
	if len(as.Entries) != 5 {
		t.Fatalf("got %d entries, want 5", len(as.Entries))
	}
	e := as.Entries
	if e[0].Line != 4 || e[0].Principals != "alice@example.com" || e[0].CertAuthority || e[0].Namespaces != "" || !e[0].ValidAfter.IsZero() {
		t.Errorf("entry 0 = %+v", e[0])
	}
	wantBefore := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	wantAfter := time.Date(2025, 1, 1, 0, 0, 0, 0, time.Local)
	if e[1].Principals != "bob@example.com,carol@example.com" || e[1].Namespaces != "git,in-toto" ||
		!e[1].ValidAfter.Equal(wantAfter) || !e[1].ValidBefore.Equal(wantBefore) {
		t.Errorf("entry 1 = %+v", e[1])
	}
	if !e[2].CertAuthority || e[2].Namespaces != "in-toto" || e[2].Principals != "*@example.com" {
		t.Errorf("entry 2 = %+v", e[2])
	}
	if !e[3].ValidAfter.Equal(time.Date(2025, 1, 1, 12, 30, 0, 0, time.UTC)) {
		t.Errorf("entry 3 valid-after = %v", e[3].ValidAfter)
	}
	if e[4].Namespaces != `a"b` {
		t.Errorf("entry 4 namespaces = %q", e[4].Namespaces)
	}
}

func TestParseAllowedSignersErrors(t *testing.T) {
	_, k := fixedKey(t, 1)
	certKey, _ := fixedKey(t, 2)
	cert := &ssh.Certificate{Key: certKey, CertType: ssh.UserCert, ValidBefore: ssh.CertTimeInfinity}
	caSigner, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.SignCert(rand.Reader, caSigner); err != nil {
		t.Fatal(err)
	}
	certBlob := base64.StdEncoding.EncodeToString(cert.Marshal())
	tests := []struct {
		name string
		line string
		col  int
		msg  string
	}{
		{"principals only", "alice", 6, "missing key"},
		{"empty quoted principals", `"" ` + k, 1, "empty principals"},
		{"unterminated quoted principals", `"alice ` + k, 1, "unterminated quoted principals"},
		{"empty pattern", `alice,,bob ` + k, 1, "empty pattern"},
		{"unknown option", `alice no-touch-required ` + k, 7, `unsupported option "no-touch-required"`},
		{"unquoted value", `alice namespaces=git ` + k, 18, "must be double-quoted"},
		{"bad time", `alice valid-after="2025-01-01" ` + k, 19, "invalid time"},
		{"bad time length", `alice valid-after="202501" ` + k, 19, "invalid time"},
		{"inverted window", `alice valid-after="20260101",valid-before="20250101" ` + k, 7, "earlier than valid-after"},
		{"duplicate option", `alice cert-authority,cert-authority ` + k, 22, "given twice"},
		{"cert-authority value", `alice cert-authority="x" ` + k, 7, "takes no value"},
		{"trailing comma", `alice cert-authority, ` + k, 22, "empty option"},
		{"missing key after options", `alice cert-authority`, 21, "missing key after options"},
		{"unknown key type", `alice cert-authority ssh-foo AAAA`, 22, "unknown key type"},
		{"bad base64", `alice ssh-ed25519 AAAA*`, 19, "not base64"},
		{"missing base64", `alice ssh-ed25519`, 18, "missing key data"},
		{"type mismatch", "alice ssh-rsa " + strings.Fields(k)[1], 7, "does not match"},
		{"certificate type", "alice ssh-ed25519-cert-v01@openssh.com " + certBlob, 7, "unsupported option"},
		{"certificate blob", "alice ssh-ed25519 " + certBlob, 7, "a certificate cannot be an allowed signer"},
		{"unterminated option quote", `alice namespaces="git ` + k, 7, "unterminated quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAllowedSigners([]byte("# first\n"+tt.line+"\n"), "f")
			var ae *AllowedSignersError
			if !errors.As(err, &ae) || !errors.Is(err, ErrTrust) {
				t.Fatalf("err = %v, want *AllowedSignersError matching ErrTrust", err)
			}
			if ae.Line != 2 || ae.Column != tt.col || !strings.Contains(ae.Msg, tt.msg) {
				t.Fatalf("err = %v (line %d col %d), want line 2 col %d containing %q", err, ae.Line, ae.Column, tt.col, tt.msg)
			}
		})
	}
}

func TestMatchPatternList(t *testing.T) {
	tests := []struct {
		s, list string
		want    bool
	}{
		{"alice@example.com", "alice@example.com", true},
		{"alice@example.com", "Alice@example.com", false},
		{"alice@example.com", "*@example.com", true},
		{"alice@example.com", "*@example.org", false},
		{"alice@example.com", "bob,alice@*", true},
		{"alice@example.com", "*@example.com,!alice@*", false},
		{"bob@example.com", "*@example.com,!alice@*", true},
		{"alice", "!bob", false}, // negation alone never matches positively
		{"abc", "a?c", true},
		{"ac", "a?c", false},
		{"in-toto", "git,in-toto", true},
		{"in-toto", "git", false},
		{"in-toto", "in-*", true},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "*a*a*a*a*a*a*a*a*c", false},
		{"", "*", true},
	}
	for _, tt := range tests {
		if got := MatchPatternList(tt.s, tt.list); got != tt.want {
			t.Errorf("MatchPatternList(%q, %q) = %v, want %v", tt.s, tt.list, got, tt.want)
		}
	}
}

func FuzzAllowedSigners(f *testing.F) {
	_, k := fixedKey(f, 1)
	f.Add([]byte("alice@example.com " + k + "\n"))
	f.Add([]byte(`"a b,c" cert-authority,namespaces="in-toto",valid-after="20250101",valid-before="20260101Z" ` + k + " comment\n# c\n"))
	f.Add([]byte(`x namespaces="a\"b" ` + k))
	f.Fuzz(func(t *testing.T, data []byte) {
		as, err := ParseAllowedSigners(data, "fuzz")
		if err != nil {
			var ae *AllowedSignersError
			if !errors.As(err, &ae) || ae.Line < 1 || ae.Column < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		for _, e := range as.Entries {
			if e.Key == nil || e.Principals == "" {
				t.Fatalf("entry without key or principals: %+v", e)
			}
			if !e.ValidAfter.IsZero() && !e.ValidBefore.IsZero() && e.ValidBefore.Before(e.ValidAfter) {
				t.Fatalf("inverted window accepted: %+v", e)
			}
		}
	})
}
