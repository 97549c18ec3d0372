package trust

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/internal/testkeys"
	"github.com/taskproof/taskproof/signer"
)

const testStatement = `{"_type":"https://in-toto.io/Statement/v1","predicate":{"verdict":"verified"},"predicateType":"https://speccoder.dev/task-verification/v0","subject":[{"digest":{"gitCommit":"0123456789abcdef0123456789abcdef01234567"},"name":"007-config/T001"}]}`

// now is the verifier's clock in these tests.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// sshKey is an ed25519 SSH key pair (testkeys.SSHKey).
type sshKey struct {
	path   string // private key file; path+".pub" is the public key
	pub    ssh.PublicKey
	line   string // "type base64"
	signer ssh.Signer
}

// newSSHKey makes an ed25519 key pair with the real ssh-keygen.
func newSSHKey(t testing.TB) sshKey {
	k := testkeys.NewSSHKey(t)
	return sshKey{path: k.Path, pub: k.Pub, line: k.Line, signer: k.Signer}
}

// wrap builds the envelope JSON of docs/format.md#signatures-dsse-v1 around
// sigs and decodes it back, as a verifier reading a note line does.
func wrap(t testing.TB, payload []byte, sigs ...dsse.Signature) *dsse.Envelope {
	t.Helper()
	b, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: payload, Signatures: sigs}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	env, err := dsse.DecodeEnvelope(b)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func allowed(t testing.TB, text string) *Trust {
	t.Helper()
	as, err := ParseAllowedSigners([]byte(text), "allowed_signers")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrust(WithAllowedSigners(as))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func mustVerify(t testing.TB, env *dsse.Envelope, tr *Trust, at time.Time) *SignaturesResult {
	t.Helper()
	res, err := VerifySignatures(env, tr, at)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestVerifySSHKeygenSignatures(t *testing.T) {
	k := newSSHKey(t)
	other := newSSHKey(t)
	fp := ssh.FingerprintSHA256(k.pub)
	payload := []byte(testStatement)
	tests := []struct {
		name      string
		ns        string
		trust     string
		at        time.Time
		want      Outcome
		principal string
		reason    string
	}{
		{"in-toto", "in-toto", "alice@example.com " + k.line, now, OK, "alice@example.com", ""},
		{"namespaces includes in-toto", "in-toto", `alice@example.com namespaces="git,in-toto" ` + k.line, now, OK, "alice@example.com", ""},
		{"namespace git", "git", "alice@example.com " + k.line, now, BadSignature, "", `namespace "git"`},
		{"namespace file", "file", "alice@example.com " + k.line, now, BadSignature, "", `namespace "file"`},
		{"trusted only for git", "in-toto", `alice@example.com namespaces="git" ` + k.line, now, UntrustedSigner, "", "does not include in-toto"},
		{"valid-before passed", "in-toto", `alice@example.com valid-before="20260101Z" ` + k.line, now, UntrustedSigner, "", "expired"},
		{"valid-after not reached", "in-toto", `alice@example.com valid-after="20270101Z" ` + k.line, now, UntrustedSigner, "", "not valid before"},
		{"inside window", "in-toto", `alice@example.com valid-after="20260101Z",valid-before="20270101Z" ` + k.line, now, OK, "alice@example.com", ""},
		{"window judged at the verifier's clock", "in-toto", `alice@example.com valid-before="20260101Z" ` + k.line, time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC), OK, "alice@example.com", ""},
		{"unknown key", "in-toto", "bob@example.com " + other.line, now, UntrustedSigner, "", "not in allowed signers"},
		{"key listed only as CA", "in-toto", "alice@example.com cert-authority " + k.line, now, UntrustedSigner, "", "not in allowed signers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sig := testkeys.SSHKeygenSign(t, k.path, tt.ns, testkeys.PAE(payload))
			env := wrap(t, payload, dsse.Signature{KeyID: "SHA256:bogus-hint", Sig: sig})
			res := mustVerify(t, env, allowed(t, tt.trust), tt.at)
			r := res.Signatures[0]
			if res.Status != tt.want || r.Status != tt.want || r.Kind != signer.KindSSH || r.KeyID != fp || r.Principal != tt.principal || !strings.Contains(r.Reason, tt.reason) {
				t.Fatalf("got %s, %+v; want %s principal %q reason containing %q", res.Status, r, tt.want, tt.principal, tt.reason)
			}
			if r.KeyIDHint != "SHA256:bogus-hint" {
				t.Fatalf("KeyIDHint = %q", r.KeyIDHint)
			}
			if (tt.want == OK) != (len(res.Signers) == 1) {
				t.Fatalf("Signers = %+v", res.Signers)
			}
		})
	}
}

func TestVerifySSHCertificate(t *testing.T) {
	ca := newSSHKey(t)
	user := newSSHKey(t)
	otherCA := newSSHKey(t)
	dir := t.TempDir()
	// A user certificate from the real ssh-keygen -s, valid 2026-01-01..2027-01-01.
	issue := func(name, principals, validity string, extra ...string) *ssh.Certificate {
		pub := filepath.Join(dir, name+".pub")
		if err := os.WriteFile(pub, []byte(user.line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"-q", "-s", ca.path, "-I", name, "-n", principals, "-V", validity}, extra...)
		testenv.Run(t, nil, nil, "ssh-keygen", append(args, pub)...)
		text, err := os.ReadFile(filepath.Join(dir, name+"-cert.pub"))
		if err != nil {
			t.Fatal(err)
		}
		k, _, _, _, err := ssh.ParseAuthorizedKey(text)
		if err != nil {
			t.Fatal(err)
		}
		return k.(*ssh.Certificate)
	}
	sign := func(cert *ssh.Certificate) *dsse.Envelope {
		cs, err := ssh.NewCertSigner(cert, user.signer)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := sshsig.Sign(bytes.NewReader(testkeys.PAE([]byte(testStatement))), cs, sshsig.HashSHA512, "in-toto")
		if err != nil {
			t.Fatal(err)
		}
		return wrap(t, []byte(testStatement), dsse.Signature{KeyID: ssh.FingerprintSHA256(user.pub), Sig: sshsig.Armor(sig)})
	}
	good := issue("good", "alice@example.com", "20260101Z:20270101Z")
	forceCmd := issue("forced", "alice@example.com", "20260101Z:20270101Z", "-O", "force-command=/bin/true")
	tests := []struct {
		name      string
		cert      *ssh.Certificate
		trust     string
		at        time.Time
		want      Outcome
		principal string
		reason    string
	}{
		{"ok", good, `*@example.com cert-authority ` + ca.line, now, OK, "alice@example.com", ""},
		{"ok with namespaces", good, `alice@example.com cert-authority,namespaces="in-toto" ` + ca.line, now, OK, "alice@example.com", ""},
		{"principal not allowed", good, `bob@example.com cert-authority ` + ca.line, now, UntrustedSigner, "", "do not match"},
		{"negated principal", good, `*@example.com,!alice@* cert-authority ` + ca.line, now, UntrustedSigner, "", "do not match"},
		{"cert expired at verifier's clock", good, `*@example.com cert-authority ` + ca.line, time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), UntrustedSigner, "", "expired"},
		{"cert not yet valid", good, `*@example.com cert-authority ` + ca.line, time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), UntrustedSigner, "", "not yet valid"},
		{"other CA", good, `*@example.com cert-authority ` + otherCA.line, now, UntrustedSigner, "", "not in allowed signers"},
		{"CA key without cert-authority", good, `*@example.com ` + ca.line, now, UntrustedSigner, "", "not in allowed signers"},
		{"user key listed plainly", good, `*@example.com ` + user.line, now, UntrustedSigner, "", "not in allowed signers"},
		{"CA only for git", good, `*@example.com cert-authority,namespaces="git" ` + ca.line, now, UntrustedSigner, "", "does not include in-toto"},
		{"critical option", forceCmd, `*@example.com cert-authority ` + ca.line, now, UntrustedSigner, "", "critical option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustVerify(t, sign(tt.cert), allowed(t, tt.trust), tt.at)
			r := res.Signatures[0]
			if r.Status != tt.want || r.Principal != tt.principal || !strings.Contains(r.Reason, tt.reason) || r.KeyID != ssh.FingerprintSHA256(user.pub) {
				t.Fatalf("got %+v; want %s principal %q reason containing %q", r, tt.want, tt.principal, tt.reason)
			}
		})
	}
	// The real ssh-keygen agrees on the good certificate at the current time
	// when its window includes now.
	current := issue("current", "alice@example.com", "-1d:+1d")
	env := sign(current)
	asFile := filepath.Join(dir, "allowed")
	os.WriteFile(asFile, []byte("*@example.com cert-authority "+ca.line+"\n"), 0o600)
	sigFile := filepath.Join(dir, "cert.sig")
	os.WriteFile(sigFile, env.Signatures[0].Sig, 0o600)
	out := testenv.Run(t, env.PAE(), nil, "ssh-keygen", "-Y", "verify", "-n", "in-toto", "-f", asFile, "-I", "alice@example.com", "-s", sigFile)
	if !strings.Contains(out, "Good") {
		t.Fatalf("ssh-keygen: %s", out)
	}
	if r := mustVerify(t, env, allowed(t, "*@example.com cert-authority "+ca.line), time.Now()); r.Status != OK {
		t.Fatalf("current certificate: %+v", r.Signatures)
	}
}

func TestVerifySignaturesAcrossSignatures(t *testing.T) {
	k := newSSHKey(t)
	k2 := newSSHKey(t)
	payload := []byte(testStatement)
	good := dsse.Signature{KeyID: ssh.FingerprintSHA256(k.pub), Sig: testkeys.SSHKeygenSign(t, k.path, "in-toto", testkeys.PAE(payload))}
	good2 := dsse.Signature{Sig: testkeys.SSHKeygenSign(t, k.path, "in-toto", testkeys.PAE(payload))}
	byK2 := dsse.Signature{Sig: testkeys.SSHKeygenSign(t, k2.path, "in-toto", testkeys.PAE(payload))}
	tampered := dsse.Signature{Sig: testkeys.SSHKeygenSign(t, k.path, "in-toto", testkeys.PAE([]byte(testStatement+" ")))}
	tr := allowed(t, "alice "+k.line+"\nbob "+k2.line)

	t.Run("two signatures by one key count once", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload, good, good2), tr, now)
		if res.Status != OK || len(res.Signatures) != 2 || len(res.Signers) != 1 || res.Signers[0].Principal != "alice" {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("two keys", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload, good, byK2), tr, now)
		if res.Status != OK || len(res.Signers) != 2 || res.Signers[1].Principal != "bob" {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("valid and invalid both reported", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload, good, tampered), tr, now)
		if res.Status != BadSignature || res.Signatures[0].Status != OK || res.Signatures[1].Status != BadSignature ||
			res.Signatures[1].Index != 1 || len(res.Signers) != 1 {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("trusted and untrusted", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload, good, byK2), allowed(t, "alice "+k.line), now)
		if res.Status != UntrustedSigner || res.Signatures[0].Status != OK || res.Signatures[1].Status != UntrustedSigner {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("zero signatures", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload), tr, now)
		if res.Status != Unsigned || len(res.Signatures) != 0 {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("malformed signature", func(t *testing.T) {
		for _, sig := range []string{
			"-----BEGIN SSH SIGNATURE-----\nAAAA\n-----END SSH SIGNATURE-----\n",
			string(good.Sig) + "trailing",
			"-----BEGIN PGP SIGNATURE-----\n\nAAAA\n-----END PGP SIGNATURE-----\n",
		} {
			res := mustVerify(t, wrap(t, payload, good, dsse.Signature{Sig: []byte(sig)}), tr, now)
			if res.Status != Malformed || res.Signatures[1].Status != Malformed {
				t.Fatalf("%q: got %+v", sig, res)
			}
		}
	})
	t.Run("no trust", func(t *testing.T) {
		if _, err := VerifySignatures(wrap(t, payload, good), &Trust{}, now); !errors.Is(err, ErrNoTrust) {
			t.Fatalf("err = %v", err)
		}
		if _, err := NewTrust(); !errors.Is(err, ErrNoTrust) || !errors.Is(err, ErrTrust) {
			t.Fatalf("NewTrust() err = %v", err)
		}
		as, _ := ParseAllowedSigners([]byte("# only comments\n"), "empty")
		if _, err := NewTrust(WithAllowedSigners(as)); !errors.Is(err, ErrNoTrust) {
			t.Fatalf("empty allowed signers: err = %v", err)
		}
	})
	t.Run("unpadded and URL-safe base64 envelope", func(t *testing.T) {
		line := fmt.Sprintf(`{"payload":%q,"payloadType":%q,"signatures":[{"keyid":"","sig":%q},{"keyid":"","sig":%q}]}`,
			base64.RawURLEncoding.EncodeToString(payload), dsse.PayloadType,
			base64.RawStdEncoding.EncodeToString(good.Sig), base64.URLEncoding.EncodeToString(byK2.Sig))
		env, err := dsse.DecodeEnvelope([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if res := mustVerify(t, env, tr, now); res.Status != OK || len(res.Signers) != 2 {
			t.Fatalf("got %+v", res)
		}
	})
}

// TestVerifyWrongSignedBytes: a signature over the base64 payload text, or over
// the legacy DSSE v0.1 little-endian PAE, must not verify.
func TestVerifyWrongSignedBytes(t *testing.T) {
	k := newSSHKey(t)
	payload := []byte(testStatement)
	legacy := testkeys.LegacyPAE(dsse.PayloadType, payload)
	b64PAE := testkeys.PAE([]byte(base64.StdEncoding.EncodeToString(payload)))
	edPub, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	raw := rawKey(t, edPub)
	for name, data := range map[string][]byte{"base64 text": []byte(base64.StdEncoding.EncodeToString(payload)), "PAE of base64": b64PAE, "legacy PAE": legacy} {
		t.Run("ssh "+name, func(t *testing.T) {
			res := mustVerify(t, wrap(t, payload, dsse.Signature{Sig: testkeys.SSHKeygenSign(t, k.path, "in-toto", data)}), allowed(t, "a "+k.line), now)
			if res.Status != BadSignature {
				t.Fatalf("got %+v", res)
			}
		})
		t.Run("raw "+name, func(t *testing.T) {
			sig := ed25519.Sign(edPriv, data)
			tr, _ := NewTrust(WithRawKeys(raw))
			res := mustVerify(t, wrap(t, payload, dsse.Signature{KeyID: raw.KeyID, Sig: sig}), tr, now)
			if res.Status != BadSignature {
				t.Fatalf("got %+v", res)
			}
		})
	}
}

func rawKey(t testing.TB, pub any) *RawKey {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParseRawKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func rawSigner(t testing.TB, priv any) signer.Signer {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	s, err := signer.NewRaw(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerifyRaw(t *testing.T) {
	edPub, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec2, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edKey, ecKey := rawKey(t, edPub), rawKey(t, &ec.PublicKey)
	tr, err := NewTrust(WithRawKeys(edKey, ecKey))
	if err != nil {
		t.Fatal(err)
	}
	signed := func(s signer.Signer) *dsse.Envelope {
		env, err := signer.Sign(context.Background(), []byte(testStatement), s)
		if err != nil {
			t.Fatal(err)
		}
		return wrap(t, env.Payload, env.Signatures...)
	}
	t.Run("ed25519 and ecdsa", func(t *testing.T) {
		for _, tc := range []struct {
			s    signer.Signer
			want string
		}{{rawSigner(t, edPriv), edKey.KeyID}, {rawSigner(t, ec), ecKey.KeyID}} {
			res := mustVerify(t, signed(tc.s), tr, now)
			if res.Status != OK || res.Signatures[0].KeyID != tc.want || res.Signatures[0].Kind != signer.KindRaw {
				t.Fatalf("got %+v", res)
			}
		}
	})
	t.Run("keyid is a hint: credited to the verifying key", func(t *testing.T) {
		env := signed(rawSigner(t, ec))
		env.Signatures[0].KeyID = edKey.KeyID
		res := mustVerify(t, env, tr, now)
		if res.Status != OK || res.Signatures[0].KeyID != ecKey.KeyID {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		res := mustVerify(t, signed(rawSigner(t, ec2)), tr, now)
		if res.Status != UntrustedSigner {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("unknown key naming a trusted keyid", func(t *testing.T) {
		env := signed(rawSigner(t, ec2))
		env.Signatures[0].KeyID = strings.ToUpper(ecKey.KeyID)
		if res := mustVerify(t, env, tr, now); res.Status != BadSignature {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("no raw keys in trust", func(t *testing.T) {
		k := newSSHKey(t)
		if res := mustVerify(t, signed(rawSigner(t, ec)), allowed(t, "a "+k.line), now); res.Status != UntrustedSigner {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("ParseRawKey refuses", func(t *testing.T) {
		der, _ := x509.MarshalPKCS8PrivateKey(edPriv)
		p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		p384der, _ := x509.MarshalPKIXPublicKey(&p384.PublicKey)
		edder, _ := x509.MarshalPKIXPublicKey(edPub)
		for name, in := range map[string][]byte{
			"private key": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
			"P-384":       pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: p384der}),
			"two blocks":  append(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: edder}), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: edder})...),
			"not PEM":     []byte("hello"),
		} {
			if _, err := ParseRawKey(in); !errors.Is(err, ErrTrust) {
				t.Errorf("%s: err = %v, want ErrTrust", name, err)
			}
		}
	})
}

// gpgHome makes a temporary GNUPGHOME holding a fresh ed25519 signing key that
// expires after expire ("never", "1d", …), returning the home, fingerprint and
// environment.
func gpgHome(t *testing.T, expire string) (string, string, []string) {
	t.Helper()
	home := testenv.GPGHome(t)
	env := []string{"GNUPGHOME=" + home}
	testenv.Run(t, nil, env, "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "",
		"--quick-gen-key", "Alice <alice@example.com>", "ed25519", "sign", expire)
	out := testenv.Run(t, nil, env, "gpg", "--batch", "--with-colons", "--list-keys")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "fpr:") {
			return home, strings.Split(line, ":")[9], env
		}
	}
	t.Fatal("no fingerprint")
	return "", "", nil
}

func gpgSign(t *testing.T, env []string, fpr string, data []byte, extra ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "data")
	os.WriteFile(file, data, 0o600)
	args := append([]string{"--batch", "--yes", "--pinentry-mode", "loopback", "--passphrase", "", "-u", fpr, "--armor"}, extra...)
	args = append(args, "--detach-sign", "-o", file+".asc", file)
	testenv.Run(t, nil, env, "gpg", args...)
	sig, err := os.ReadFile(file + ".asc")
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func gpgKeyring(t *testing.T, env []string, armored bool) *Keyring {
	t.Helper()
	args := []string{"--batch", "--export"}
	if armored {
		args = append(args, "--armor")
	}
	cmd := exec.Command("gpg", args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParseKeyring(out)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestVerifyGPGSignatures(t *testing.T) {
	_, fpr, env := gpgHome(t, "never")
	payload := []byte(testStatement)
	pae := testkeys.PAE(payload)
	for _, armored := range []bool{true, false} {
		kr := gpgKeyring(t, env, armored)
		tr, err := NewTrust(WithKeyring(kr))
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("armored keyring %v", armored), func(t *testing.T) {
			res := mustVerify(t, wrap(t, payload, dsse.Signature{KeyID: strings.ToLower(fpr), Sig: gpgSign(t, env, fpr, pae)}), tr, time.Now())
			r := res.Signatures[0]
			if res.Status != OK || r.Kind != signer.KindOpenPGP || r.KeyID != fpr || r.Principal != "Alice <alice@example.com>" {
				t.Fatalf("got %+v", res)
			}
		})
	}
	tr, _ := NewTrust(WithKeyring(gpgKeyring(t, env, true)))
	t.Run("tampered", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload, dsse.Signature{Sig: gpgSign(t, env, fpr, testkeys.PAE([]byte(testStatement+" ")))}), tr, time.Now())
		if res.Status != BadSignature {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("text-mode signature", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload, dsse.Signature{Sig: gpgSign(t, env, fpr, pae, "--textmode")}), tr, time.Now())
		if res.Status != BadSignature || !strings.Contains(res.Signatures[0].Reason, "binary") {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("SHA-1 signature", func(t *testing.T) {
		res := mustVerify(t, wrap(t, payload, dsse.Signature{Sig: gpgSign(t, env, fpr, pae, "--digest-algo", "SHA1")}), tr, time.Now())
		if res.Status != BadSignature || !strings.Contains(res.Signatures[0].Reason, "digest algorithm") {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("key not in keyring", func(t *testing.T) {
		_, fpr2, env2 := gpgHome(t, "never")
		res := mustVerify(t, wrap(t, payload, dsse.Signature{Sig: gpgSign(t, env2, fpr2, pae)}), tr, time.Now())
		if res.Status != UntrustedSigner {
			t.Fatalf("got %+v", res)
		}
	})
	t.Run("key expired at the verifier's clock", func(t *testing.T) {
		_, fpr3, env3 := gpgHome(t, "1d")
		tr3, _ := NewTrust(WithKeyring(gpgKeyring(t, env3, true)))
		e := wrap(t, payload, dsse.Signature{Sig: gpgSign(t, env3, fpr3, pae)})
		if res := mustVerify(t, e, tr3, time.Now().Add(time.Hour)); res.Status != OK {
			t.Fatalf("before expiry: got %+v", res)
		}
		res := mustVerify(t, e, tr3, time.Now().Add(72*time.Hour))
		if res.Status != UntrustedSigner || res.Signatures[0].KeyID != fpr3 || !strings.Contains(res.Signatures[0].Reason, "expired") {
			t.Fatalf("after expiry: got %+v", res)
		}
	})
	t.Run("revoked key", func(t *testing.T) {
		home4, fpr4, env4 := gpgHome(t, "never")
		e := wrap(t, payload, dsse.Signature{Sig: gpgSign(t, env4, fpr4, pae)})
		// gpg writes a revocation certificate at key creation; import it.
		rev, err := os.ReadFile(filepath.Join(home4, "openpgp-revocs.d", fpr4+".rev"))
		if err != nil {
			t.Fatal(err)
		}
		revFile := filepath.Join(t.TempDir(), "rev.asc")
		os.WriteFile(revFile, bytes.Replace(rev, []byte(":-----BEGIN"), []byte("-----BEGIN"), 1), 0o600)
		testenv.Run(t, nil, env4, "gpg", "--batch", "--import", revFile)
		tr4, _ := NewTrust(WithKeyring(gpgKeyring(t, env4, true)))
		res := mustVerify(t, e, tr4, time.Now().Add(time.Minute))
		if res.Status != UntrustedSigner || !strings.Contains(res.Signatures[0].Reason, "revoked") {
			t.Fatalf("got %+v", res)
		}
	})
}

func BenchmarkVerifySSHEnvelope(b *testing.B) {
	k := newSSHKey(b)
	var lines strings.Builder
	for i := 0; i < 50; i++ {
		lines.WriteString(fmt.Sprintf("user%d@example.com %s\n", i, newFixedLine(b, byte(i+1))))
	}
	lines.WriteString("alice@example.com namespaces=\"in-toto\" " + k.line + "\n")
	tr := allowed(b, lines.String())
	s, err := signer.NewSSH(k.path, nil)
	if err != nil {
		b.Fatal(err)
	}
	env, err := signer.Sign(context.Background(), []byte(testStatement), s)
	if err != nil {
		b.Fatal(err)
	}
	line, _ := env.MarshalJSON()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := dsse.DecodeEnvelope(line)
		if err != nil {
			b.Fatal(err)
		}
		res, err := VerifySignatures(e, tr, now)
		if err != nil || res.Status != OK {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

func newFixedLine(t testing.TB, seed byte) string {
	_, line := fixedKey(t, seed)
	return line
}
