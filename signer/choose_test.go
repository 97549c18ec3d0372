package signer

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/internal/userpath"
)

// fakeConfig is a git config of fixed values, keys compared without case
// (the keys the tests set have no subsection, whose case git keeps).
type fakeConfig map[string]string

func (c fakeConfig) Get(key string) (string, bool) {
	for k, v := range c {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

func (c fakeConfig) Path(key string) (string, bool, error) {
	v, ok := c.Get(key)
	if !ok {
		return "", false, nil
	}
	p, err := userpath.Expand(v)
	return p, true, err
}

// sshFingerprint is the SHA256 fingerprint of the public key beside private key file path.
func sshFingerprint(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		t.Fatal(err)
	}
	return ssh.FingerprintSHA256(pub)
}

func TestChooseSigner(t *testing.T) {
	keyA := sshKeygen(t, "ed25519", "")
	keyB := sshKeygen(t, "ed25519", "")
	encrypted := sshKeygen(t, "ed25519", "hunter22")
	fpA, fpB, fpEnc := sshFingerprint(t, keyA), sshFingerprint(t, keyB), sshFingerprint(t, encrypted)

	tests := []struct {
		name      string
		choice    Choice
		config    map[string]string
		wantKind  Kind
		wantKeyID string
		msg       string // part of the error message
		err       error  // errors.Is target; errAny for any error
	}{
		{
			name:     "gpg.format=ssh and user.signingKey path",
			config:   map[string]string{"gpg.format": "ssh", "user.signingKey": keyA},
			wantKind: KindSSH, wantKeyID: fpA,
		},
		{
			// git compares gpg.format case-sensitively and refuses SSH.
			name:   "gpg.format in upper case",
			config: map[string]string{"gpg.format": "SSH", "user.signingKey": keyA},
			err:    ErrUnsupportedKey, msg: "git config gpg.format ssh",
		},
		{
			name:   "an SSH user.signingKey with gpg.format unset",
			config: map[string]string{"user.signingKey": keyA},
			err:    ErrNoSigningKey, msg: "is an SSH key, but gpg.format is unset",
		},
		{
			name:   "an SSH literal with gpg.format unset",
			config: map[string]string{"user.signingKey": "key::ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIg4s80GM4Ad1V+G2FXnlTXuSp0mQ7GSGCIwmyofSzXx alice"},
			err:    ErrNoSigningKey, msg: "git config gpg.format ssh",
		},
		{
			name:   "user.signingKey naming a key gpg does not hold",
			config: map[string]string{"user.signingKey": "0xDEADBEEF12345678"},
			err:    ErrNoSigningKey, msg: "gpg has no secret key for \"0xDEADBEEF12345678\"",
		},
		{
			name:   "no key anywhere",
			config: map[string]string{"gpg.format": "ssh"},
			err:    ErrNoSigner, msg: "write unsigned statements",
		},
		{
			name:   "empty user.signingKey",
			config: map[string]string{"user.signingKey": ""},
			err:    ErrNoSigner, msg: "user.signingKey is not set",
		},
		{
			name:   "nothing configured: git's default, OpenPGP, said as such",
			config: map[string]string{},
			err:    ErrNoSigner, msg: "openpgp signer (git's default: gpg.format is unset)",
		},
		{
			name:   "gpg.format=x509",
			config: map[string]string{"gpg.format": "x509", "user.signingKey": keyA},
			err:    ErrUnsupportedKey, msg: "gpg.format=x509 is not a signer taskproof has",
		},
		{
			name:     "--key without --signer: the kind from the file",
			choice:   Choice{Keys: []string{keyB}},
			config:   map[string]string{"gpg.format": "openpgp"},
			wantKind: KindSSH, wantKeyID: fpB,
		},
		{
			name:   "--unsigned with a key",
			choice: Choice{Unsigned: true, Keys: []string{keyA}},
			err:    ErrChoice,
		},
		{
			name:   "the same key twice",
			choice: Choice{Keys: []string{keyA, keyA + ".pub"}},
			err:    ErrChoice, msg: "are the same key",
		},
		{
			name:     "flags override config",
			choice:   Choice{Kind: KindSSH, Keys: []string{keyB}},
			config:   map[string]string{"gpg.format": "openpgp", "user.signingKey": "0xDEADBEEF"},
			wantKind: KindSSH, wantKeyID: fpB,
		},
		{
			name:     "--key overrides user.signingKey",
			choice:   Choice{Keys: []string{keyB}},
			config:   map[string]string{"gpg.format": "ssh", "user.signingKey": keyA},
			wantKind: KindSSH, wantKeyID: fpB,
		},
		{
			name:     "--signer overrides gpg.format",
			choice:   Choice{Kind: KindSSH},
			config:   map[string]string{"gpg.format": "openpgp", "user.signingKey": keyA},
			wantKind: KindSSH, wantKeyID: fpA,
		},
		{
			name:   "encrypted key without passphrase",
			config: map[string]string{"gpg.format": "ssh", "user.signingKey": encrypted},
			err:    ErrPassphraseRequired,
		},
		{
			name:     "encrypted key with passphrase",
			choice:   Choice{Passphrase: []byte("hunter22")},
			config:   map[string]string{"gpg.format": "ssh", "user.signingKey": encrypted},
			wantKind: KindSSH, wantKeyID: fpEnc,
		},
		{
			name:   "encrypted key with a wrong passphrase",
			choice: Choice{Kind: KindSSH, Keys: []string{encrypted}, Passphrase: []byte("nope")},
			err:    ErrBadPassphrase,
		},
		{
			name:   "unknown --signer",
			choice: Choice{Kind: "x509", Keys: []string{keyA}},
			err:    errAny,
		},
		{
			name:   "key file missing",
			choice: Choice{Kind: KindSSH, Keys: []string{filepath.Join(t.TempDir(), "absent")}},
			err:    os.ErrNotExist,
		},
		{
			name:   "ssh key given as an openpgp key",
			choice: Choice{Kind: KindOpenPGP, Keys: []string{keyA}},
			err:    errAny,
		},
	}
	t.Setenv("SSH_AUTH_SOCK", "")
	t.Setenv("GNUPGHOME", t.TempDir())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signers, err := Choose(tt.choice, fakeConfig(tt.config))
			if tt.err != nil {
				if err == nil || (tt.err != errAny && !errors.Is(err, tt.err)) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("err = %v, want %v mentioning %q", err, tt.err, tt.msg)
				}
				if signers != nil {
					t.Error("a signer came with the error")
				}
				return
			}
			if err != nil || len(signers) != 1 {
				t.Fatalf("= %v, %v; want one signer", signers, err)
			}
			if s := signers[0]; s.Kind() != tt.wantKind || s.KeyID() != tt.wantKeyID {
				t.Errorf("signer %s %s, want %s %s", s.Kind(), s.KeyID(), tt.wantKind, tt.wantKeyID)
			}
		})
	}
}

// errAny stands for "any error" in TestChooseSigner.
var errAny = errors.New("any error")

func TestChooseSignerOpenPGPFromConfig(t *testing.T) {
	_, fpr, secret := gpgHome(t, "")
	path := filepath.Join(t.TempDir(), "secret.asc")
	if err := os.WriteFile(path, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	// gpg.format unset means openpgp, as for git.
	signers, err := Choose(Choice{}, fakeConfig(map[string]string{"user.signingKey": path}))
	if err != nil || len(signers) != 1 {
		t.Fatalf("= %v, %v", signers, err)
	}
	if s := signers[0]; s.Kind() != KindOpenPGP || !strings.EqualFold(s.KeyID(), fpr) {
		t.Errorf("signer %s %s, want openpgp %s", s.Kind(), s.KeyID(), fpr)
	}
}

// A public key named by user.signingKey with no ssh-agent signs with the
// private key beside it (as ssh-keygen -Y sign does); "~" expands to $HOME.
func TestChooseSignerPublicKeyBesidePrivate(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "")
	key := sshKeygen(t, "ed25519", "")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"", ".pub"} {
		b, _ := os.ReadFile(key + ext)
		os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"+ext), b, 0o600)
	}
	fp := sshFingerprint(t, key)
	for _, v := range []string{"~/.ssh/id_ed25519.pub", "~/.ssh/id_ed25519"} {
		signers, err := Choose(Choice{}, fakeConfig(map[string]string{"gpg.format": "ssh", "user.signingKey": v}))
		if err != nil || len(signers) != 1 || signers[0].KeyID() != fp {
			t.Errorf("user.signingKey %s: %v, %v; want the key %s", v, signers, err, fp)
		}
	}
	// A .pub whose neighbour is another key is refused.
	other := sshKeygen(t, "ed25519", "")
	b, _ := os.ReadFile(other + ".pub")
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519.pub"), b, 0o600)
	if _, err := Choose(Choice{}, fakeConfig(map[string]string{"gpg.format": "ssh", "user.signingKey": "~/.ssh/id_ed25519.pub"})); !errors.Is(err, ErrNoSigningKey) {
		t.Errorf("mismatched pair: err = %v", err)
	}
	// A public key with neither agent nor private key names both.
	os.Remove(filepath.Join(home, ".ssh", "id_ed25519"))
	_, err := Choose(Choice{Keys: []string{"~/.ssh/id_ed25519.pub"}}, fakeConfig(nil))
	if err == nil || !strings.Contains(err.Error(), "SSH_AUTH_SOCK is not set") || !strings.Contains(err.Error(), "private key beside it") {
		t.Errorf("lone public key: err = %v", err)
	}
}

func TestDetectKeyKind(t *testing.T) {
	sshKey := sshKeygen(t, "ed25519", "")
	_, fpr, armored := gpgHome(t, "")
	home, _, _ := gpgHome(t, "")
	binary := testenv.Run(t, nil, []string{"GNUPGHOME=" + home}, "gpg", "--batch", "--export-secret-keys")
	public := testenv.Run(t, nil, []string{"GNUPGHOME=" + home}, "gpg", "--batch", "--armor", "--export")
	_, priv, _ := ed25519.GenerateKey(nil)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	pubDER, _ := x509.MarshalPKIXPublicKey(priv.Public())
	read := func(p string) []byte { b, _ := os.ReadFile(p); return b }
	tests := []struct {
		name string
		data []byte
		want Kind
		err  error
	}{
		{"OpenSSH private key", read(sshKey), KindSSH, nil},
		{"SSH public key", read(sshKey + ".pub"), KindSSH, nil},
		{"armored OpenPGP secret key", armored, KindOpenPGP, nil},
		{"binary OpenPGP secret key", []byte(binary), KindOpenPGP, nil},
		{"PKCS#8 PEM", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), KindRaw, nil},
		{"armored OpenPGP public key", []byte(public), "", ErrNoSigningKey},
		{"PEM public key", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), "", ErrNoSigningKey},
		{"text", []byte("hello\n"), "", ErrNoSigningKey},
		{"empty", nil, "", ErrNoSigningKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := detectKeyKind(tt.data)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("= %q, %v; want %q, %v", got, err, tt.want, tt.err)
			}
		})
	}
	// The binary secret key signs in-process like the armored one.
	s, err := newOpenPGP([]byte(binary), nil)
	if err != nil || s.Kind() != KindOpenPGP {
		t.Fatalf("binary key: %v, %v", s, err)
	}
	_ = fpr
}

// Two --key values give two signers, one signature each in the envelope.
func TestChooseSignerTwoKeys(t *testing.T) {
	a, b := sshKeygen(t, "ed25519", ""), sshKeygen(t, "ecdsa", "")
	signers, err := Choose(Choice{Keys: []string{a, b}}, fakeConfig(nil))
	if err != nil || len(signers) != 2 {
		t.Fatalf("= %v, %v", signers, err)
	}
	env, err := Sign(context.Background(), []byte(testStatement), signers...)
	if err != nil || len(env.Signatures) != 2 || env.Signatures[0].KeyID != sshFingerprint(t, a) || env.Signatures[1].KeyID != sshFingerprint(t, b) {
		t.Fatalf("envelope %+v, %v", env, err)
	}
}

// A key held only in gpg's keyring signs through the gpg program, and gpg
// verifies the signature over the PAE.
func TestChooseSignerGPGKeyring(t *testing.T) {
	home, fpr, _ := gpgHome(t, "")
	t.Setenv("GNUPGHOME", home)
	for _, user := range []string{fpr, fpr[24:], "alice@example.com"} {
		signers, err := Choose(Choice{}, fakeConfig(map[string]string{"gpg.format": "openpgp", "user.signingKey": user}))
		if err != nil || len(signers) != 1 || signers[0].KeyID() != fpr {
			t.Fatalf("user.signingKey %s: %v, %v", user, signers, err)
		}
		env, err := Sign(context.Background(), []byte(testStatement), signers...)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		sigFile, data := filepath.Join(dir, "pae.sig"), filepath.Join(dir, "pae")
		os.WriteFile(sigFile, env.Signatures[0].Sig, 0o600)
		os.WriteFile(data, env.PAE(), 0o600)
		out := testenv.Run(t, nil, nil, "gpg", "--batch", "--status-fd", "1", "--verify", sigFile, data)
		if !strings.Contains(out, "[GNUPG:] VALIDSIG ") || !strings.Contains(out, fpr) {
			t.Fatalf("gpg --verify: %s", out)
		}
	}
	// A gpg.program that signs with another key of the keyring than the one
	// asked for: refused, not reported as the asked key's signature.
	testenv.Run(t, nil, nil, "gpg", "--batch", "--passphrase", "", "--quick-gen-key", "Mallory <mallory@example.com>", "ed25519", "sign", "never")
	wrapper := filepath.Join(t.TempDir(), "gpg-other")
	os.WriteFile(wrapper, []byte("#!/bin/bash\nargs=(); prev=\nfor a in \"$@\"; do [ \"$prev\" = --local-user ] && a=mallory@example.com; args+=(\"$a\"); prev=$a; done\nexec gpg --batch \"${args[@]}\"\n"), 0o755)
	signers, err := Choose(Choice{}, fakeConfig(map[string]string{"gpg.format": "openpgp", "user.signingKey": fpr, "gpg.program": wrapper}))
	if err != nil || len(signers) != 1 {
		t.Fatalf("gpg.program wrapper: %v, %v", signers, err)
	}
	if _, err := Sign(context.Background(), []byte(testStatement), signers...); !errors.Is(err, ErrNoSigningKey) || !strings.Contains(err.Error(), "not by "+fpr) {
		t.Errorf("a signature by another key: err = %v", err)
	}
	// gpg.program that is not installed: say how to export the key.
	_, err = Choose(Choice{}, fakeConfig(map[string]string{"user.signingKey": fpr, "gpg.program": "/nonexistent/gpg"}))
	if !errors.Is(err, ErrNoSigningKey) || !strings.Contains(err.Error(), "gpg --export-secret-keys --armor "+fpr) {
		t.Errorf("gpg absent: err = %v", err)
	}
}

// An SSH certificate file signs, with no ssh-agent, with the private key
// beside it (the path without -cert.pub) and the certificate grafted on, as
// ssh-keygen -Y sign does: ssh-keygen verifies the signature against a
// cert-authority entry. A certificate outside its window, or one for another
// key than the private key beside it, is refused before signing.
func TestChooseSignerCertificateFile(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	ca := sshKeygen(t, "ed25519", "")
	user := sshKeygen(t, "ed25519", "")
	certify := func(key, validity string) string {
		t.Helper()
		args := []string{"-q", "-s", ca, "-I", "alice-cert", "-n", "alice@example.com"}
		if validity != "" {
			args = append(args, "-V", validity)
		}
		testenv.Run(t, nil, nil, "ssh-keygen", append(args, key+".pub")...)
		return key + "-cert.pub"
	}
	cert := certify(user, "")
	signers, err := Choose(Choice{Keys: []string{cert}}, fakeConfig(nil))
	if err != nil || len(signers) != 1 {
		t.Fatalf("Choose(%s) = %v, %v", cert, signers, err)
	}
	if got, want := signers[0].KeyID(), sshFingerprint(t, user); got != want {
		t.Errorf("KeyID = %s, want the certified key's %s", got, want)
	}
	env, err := Sign(context.Background(), []byte(testStatement), signers...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	caPub, err := os.ReadFile(ca + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(dir, "allowed_signers")
	sigFile := filepath.Join(dir, "sig")
	os.WriteFile(allowed, []byte(`alice@example.com cert-authority,namespaces="in-toto" `+string(caPub)), 0o600)
	os.WriteFile(sigFile, env.Signatures[0].Sig, 0o600)
	out := testenv.Run(t, env.PAE(), nil, "ssh-keygen", "-Y", "verify", "-n", "in-toto", "-f", allowed, "-I", "alice@example.com", "-s", sigFile)
	if !strings.Contains(out, `Good "in-toto" signature for alice@example.com`) {
		t.Fatalf("ssh-keygen -Y verify: %s", out)
	}

	expired := certify(sshKeygen(t, "ed25519", ""), "20200101:20200102")
	if _, err := Choose(Choice{Keys: []string{expired}}, fakeConfig(nil)); !errors.Is(err, ErrNoSigningKey) || !strings.Contains(err.Error(), "expired at 2020-01-0") {
		t.Errorf("expired certificate: err = %v", err)
	}
	future := certify(sshKeygen(t, "ed25519", ""), "+1d:+2d")
	if _, err := Choose(Choice{Keys: []string{future}}, fakeConfig(nil)); !errors.Is(err, ErrNoSigningKey) || !strings.Contains(err.Error(), "not valid before") {
		t.Errorf("certificate not yet valid: err = %v", err)
	}
	// The certificate of another key beside this private key.
	other := sshKeygen(t, "ed25519", "")
	b, err := os.ReadFile(certify(other, ""))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(user+"-cert.pub", b, 0o600)
	if _, err := Choose(Choice{Keys: []string{cert}}, fakeConfig(nil)); !errors.Is(err, ErrNoSigningKey) || !strings.Contains(err.Error(), "is not the private key of") {
		t.Errorf("certificate of another key: err = %v", err)
	}
}
