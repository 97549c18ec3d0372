package main

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/internal/testenv"
)

// gpgHome is an isolated GNUPGHOME whose gpg runs with its clock at a given
// time (--faked-system-time), for the keys of the trust regression tests.
type gpgHome struct {
	t    *testing.T
	home string
}

func newGPGHome(t *testing.T) *gpgHome {
	t.Helper()
	return &gpgHome{t: t, home: testenv.GPGHome(t)}
}

func (h *gpgHome) gpg(at time.Time, stdin string, args ...string) []byte {
	h.t.Helper()
	full := append([]string{"--batch", "--no-tty", "--pinentry-mode", "loopback", "--passphrase", "",
		"--faked-system-time", at.UTC().Format("20060102T150405") + "!"}, args...)
	cmd := exec.Command("gpg", full...)
	cmd.Env = append(os.Environ(), "GNUPGHOME="+h.home)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// genKey makes an ed25519 signing key at created and returns its fingerprint
// and the path of its armored secret key.
func (h *gpgHome) genKey(created time.Time) (string, string) {
	h.gpg(created, "", "--quick-gen-key", "Dev <dev@example.invalid>", "ed25519", "sign", "never")
	var fpr string
	for _, line := range strings.Split(string(h.gpg(created, "", "--with-colons", "--list-keys")), "\n") {
		if strings.HasPrefix(line, "fpr:") {
			fpr = strings.Split(line, ":")[9]
			break
		}
	}
	sec := filepath.Join(h.t.TempDir(), "secret.asc")
	vfWrite(h.t, sec, string(h.gpg(created, "", "--armor", "--export-secret-keys", fpr)))
	return fpr, sec
}

// keyring writes `gpg --export` output, with extra packets after the primary
// key, to a file outside the repository.
func (h *gpgHome) keyring(fpr string, afterPrimary ...[]byte) string {
	exp := h.gpg(time.Now(), "", "--export", fpr)
	// The primary key is the export's first packet (old format, two-byte header).
	n := 2 + int(exp[1])
	if exp[0]&0x40 != 0 || exp[0]&3 != 0 {
		h.t.Fatalf("unexpected primary key header %#x", exp[0])
	}
	out := append([]byte{}, exp[:n]...)
	for _, p := range afterPrimary {
		out = append(out, p...)
	}
	out = append(out, exp[n:]...)
	path := filepath.Join(h.t.TempDir(), "keyring.gpg")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		h.t.Fatal(err)
	}
	return path
}

// directKey is a direct-key self-signature of the key at at, filled by fill.
func (h *gpgHome) directKey(fpr string, at time.Time, fill func(*packet.Signature)) []byte {
	pr := packet.NewReader(bytes.NewReader(h.gpg(time.Now(), "", "--export-secret-keys", fpr)))
	p, err := pr.Next()
	if err != nil {
		h.t.Fatal(err)
	}
	priv := p.(*packet.PrivateKey)
	s := &packet.Signature{Version: 4, SigType: packet.SigTypeDirectSignature, PubKeyAlgo: priv.PubKeyAlgo, Hash: crypto.SHA256,
		CreationTime: at, IssuerKeyId: &priv.KeyId}
	fill(s)
	if err := s.SignDirectKeyBinding(&priv.PublicKey, priv, &packet.Config{Time: func() time.Time { return at }}); err != nil {
		h.t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.Serialize(&b); err != nil {
		h.t.Fatal(err)
	}
	return b.Bytes()
}

// TestTrustAsReferenceTools: the shapes a reference tool refuses fail the
// gate with the real binary (exit 1, the reason named), and their honest
// counterparts pass (docs/format.md#openpgp-keys,
// docs/format.md#signers-are-counted-by-key).
func TestTrustAsReferenceTools(t *testing.T) {
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// attestPGP ticks T004 of a fresh repository, attested with the key.
	attestPGP := func(t *testing.T, secret string) *vfRepo {
		r := newVFRepo(t)
		r.t2 = r.tick(t, "T004")
		r.run(t, 0, "attest", "tick", "--key", secret, "--verdict", "regression_only", "--regression-reason", "planning_work")
		return r
	}
	verdict := func(t *testing.T, r *vfRepo, want int, reason string, args ...string) {
		t.Helper()
		out, _ := r.run(t, want, append([]string{"verify", r.t2}, args...)...)
		if !strings.Contains(out, reason) {
			t.Errorf("verify %v: want %q in the report:\n%s", args, reason, out)
		}
	}

	t.Run("revoked with no reason specified and judged before the revocation", func(t *testing.T) {
		h := newGPGHome(t)
		fpr, secret := h.genKey(created)
		r := attestPGP(t, secret) // signed now, before the key is revoked
		honest := h.keyring(fpr)
		// gpg's menu default: reason 0, dated 2025-06-01.
		h.gpg(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), "revkey\ny\n0\n\ny\nsave\n", "--command-fd", "0", "--edit-key", fpr)
		revoked := h.keyring(fpr)
		at := "2025-03-01T00:00:00Z"
		verdict(t, r, 1, "revoked on 2025-06-01", "--keyring", revoked, "--at", at)
		verdict(t, r, 1, "revoked on 2025-06-01", "--keyring", revoked)
		verdict(t, r, 0, "conclusion: success", "--keyring", honest, "--at", at)
	})
	t.Run("expired by its direct-key self-signature", func(t *testing.T) {
		h := newGPGHome(t)
		fpr, secret := h.genKey(created)
		r := attestPGP(t, secret)
		life := uint32(time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC).Sub(created) / time.Second)
		dk := h.directKey(fpr, created.Add(time.Hour), func(s *packet.Signature) { s.KeyLifetimeSecs = &life })
		verdict(t, r, 1, "expired 2025-07-01", "--keyring", h.keyring(fpr, dk))
		verdict(t, r, 0, "conclusion: success", "--keyring", h.keyring(fpr))
		// Before its expiry the key still signs.
		verdict(t, r, 0, "conclusion: success", "--keyring", h.keyring(fpr, dk), "--at", "2025-06-01T00:00:00Z")
	})
	t.Run("limited to certification by its direct-key self-signature", func(t *testing.T) {
		h := newGPGHome(t)
		fpr, secret := h.genKey(created)
		r := attestPGP(t, secret)
		dk := h.directKey(fpr, created.Add(time.Hour), func(s *packet.Signature) { s.FlagsValid, s.FlagCertify = true, true })
		verdict(t, r, 1, "not a signing key", "--keyring", h.keyring(fpr, dk))
		verdict(t, r, 0, "conclusion: success", "--keyring", h.keyring(fpr))
	})
	t.Run("one key trusted as SSH and raw meets no two-person rule", func(t *testing.T) {
		r := newVFRepo(t)
		dir := t.TempDir()
		// The SSH key's raw twin: the same ed25519 key as PEM.
		raw, rawPub := rawTwin(t, r.key, dir)
		other := filepath.Join(dir, "id_other")
		testenv.Run(t, nil, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "other", "-f", other)
		otherRaw, otherPub := rawTwin(t, other, dir)
		policy := filepath.Join(dir, "policy.toml")
		vfWrite(t, policy, "version = 1\n[signers]\nmin = 2\n")

		r.t2 = r.tick(t, "T004")
		r.run(t, 0, "attest", "tick", "--key", r.key, "--key", raw, "--verdict", "regression_only", "--regression-reason", "planning_work")
		verdict(t, r, 1, "1 distinct trusted key(s) signed, at least 2 required", "--allowed-signers", r.allowed, "--key", rawPub, "--policy", policy)

		r.t2 = r.tick(t, "T001")
		r.run(t, 0, "attest", "tick", "--key", r.key, "--key", otherRaw, "--verdict", "regression_only", "--regression-reason", "planning_work")
		verdict(t, r, 0, "conclusion: success", "--allowed-signers", r.allowed, "--key", otherPub, "--policy", policy)
	})
}

// rawTwin writes the OpenSSH ed25519 private key at path as PEM PKCS#8 and
// its public key as PEM SubjectPublicKeyInfo, and returns both paths.
func rawTwin(t *testing.T, path, dir string) (string, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.ParseRawPrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	priv := *k.(*ed25519.PrivateKey)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(path)
	privPath, pubPath := filepath.Join(dir, name+".raw.pem"), filepath.Join(dir, name+".pub.pem")
	vfWrite(t, privPath, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	vfWrite(t, pubPath, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})))
	return privPath, pubPath
}
