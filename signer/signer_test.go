package signer

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/testenv"
)

const testStatement = `{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"https://speccoder.dev/task-verification/v0","subject":[{"digest":{"gitCommit":"0123"},"name":"f/T001"}]}`

// sshKeygen makes a key pair with the real ssh-keygen and returns the private
// key path.
func sshKeygen(t *testing.T, typ, passphrase string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "id_"+typ)
	args := []string{"-q", "-t", typ, "-N", passphrase, "-C", "test", "-f", path}
	if typ == "rsa" {
		args = append(args, "-b", "2048")
	}
	testenv.Run(t, nil, nil, "ssh-keygen", args...)
	return path
}

// sshKeygenVerify runs `ssh-keygen -Y verify -n in-toto` on env's first signature.
func sshKeygenVerify(t *testing.T, env *dsse.Envelope, pubFile string) {
	t.Helper()
	dir := t.TempDir()
	pub, err := os.ReadFile(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(dir, "allowed_signers")
	if err := os.WriteFile(allowed, []byte(`alice@example.com namespaces="in-toto" `+string(pub)), 0o600); err != nil {
		t.Fatal(err)
	}
	sigFile := filepath.Join(dir, "sig")
	if err := os.WriteFile(sigFile, env.Signatures[0].Sig, 0o600); err != nil {
		t.Fatal(err)
	}
	out := testenv.Run(t, env.PAE(), nil, "ssh-keygen", "-Y", "verify", "-n", "in-toto", "-f", allowed, "-I", "alice@example.com", "-s", sigFile)
	if !strings.Contains(out, "Good \"in-toto\" signature for alice@example.com") {
		t.Fatalf("ssh-keygen -Y verify: %s", out)
	}
	// The same signature must not pass for another namespace.
	cmd := exec.Command("ssh-keygen", "-Y", "verify", "-n", "git", "-f", allowed, "-I", "alice@example.com", "-s", sigFile)
	cmd.Stdin = bytes.NewReader(env.PAE())
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("ssh-keygen accepted the signature for namespace git: %s", out)
	}
}

func TestSSHSignerAcceptedBySSHKeygen(t *testing.T) {
	for _, typ := range []string{"ed25519", "ecdsa", "rsa"} {
		t.Run(typ, func(t *testing.T) {
			key := sshKeygen(t, typ, "")
			s, err := NewSSH(key, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind() != KindSSH {
				t.Fatalf("Kind = %q", s.Kind())
			}
			fp := strings.Fields(testenv.Run(t, nil, nil, "ssh-keygen", "-l", "-E", "sha256", "-f", key+".pub"))[1]
			if s.KeyID() != fp {
				t.Fatalf("KeyID = %q, ssh-keygen says %q", s.KeyID(), fp)
			}
			env, err := Sign(context.Background(), []byte(testStatement), s)
			if err != nil {
				t.Fatal(err)
			}
			if env.PayloadType != dsse.PayloadType || string(env.Payload) != testStatement || env.Signatures[0].KeyID != fp {
				t.Fatalf("envelope = %+v", env)
			}
			if !bytes.HasPrefix(env.Signatures[0].Sig, []byte("-----BEGIN SSH SIGNATURE-----\n")) {
				t.Fatalf("sig is not armored SSHSIG: %q", env.Signatures[0].Sig)
			}
			sshKeygenVerify(t, env, key+".pub")
		})
	}
}

func TestSSHSignerPassphrase(t *testing.T) {
	key := sshKeygen(t, "ed25519", "correct horse")
	if _, err := NewSSH(key, nil); !errors.Is(err, ErrPassphraseRequired) {
		t.Fatalf("no passphrase: err = %v, want ErrPassphraseRequired", err)
	}
	if _, err := NewSSH(key, []byte("wrong")); !errors.Is(err, ErrBadPassphrase) {
		t.Fatalf("wrong passphrase: err = %v, want ErrBadPassphrase", err)
	}
	s, err := Load(KindSSH, key, []byte("correct horse"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := Sign(context.Background(), []byte(testStatement), s)
	if err != nil {
		t.Fatal(err)
	}
	sshKeygenVerify(t, env, key+".pub")
	// A passphrase given for a plain key is ignored.
	plain := sshKeygen(t, "ed25519", "")
	if _, err := NewSSH(plain, []byte("unused")); err != nil {
		t.Fatalf("plain key with passphrase: %v", err)
	}
}

func TestSSHAgentSigner(t *testing.T) {
	key := sshKeygen(t, "ed25519", "")
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agentCmd := exec.Command(testenv.LookPath(t, "ssh-agent"), "-D", "-a", sock)
	if err := agentCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agentCmd.Process.Kill(); agentCmd.Wait() })
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)
	testenv.Run(t, nil, nil, "ssh-add", "-q", key)

	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	parsed, _, _, _, err := ssh.ParseAuthorizedKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	fp := ssh.FingerprintSHA256(parsed)
	for name, ref := range map[string]string{
		"fingerprint":  fp,
		"pub file":     key + ".pub",
		"key literal":  "key::" + strings.TrimSpace(string(pub)),
		"loaded (pub)": "",
	} {
		t.Run(name, func(t *testing.T) {
			var s Signer
			var err error
			if ref == "" {
				s, err = Load(KindSSH, key+".pub", nil)
			} else {
				s, err = newSSHAgent(ref)
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.KeyID() != fp {
				t.Fatalf("KeyID = %q, want %q", s.KeyID(), fp)
			}
			env, err := Sign(context.Background(), []byte(testStatement), s)
			if err != nil {
				t.Fatal(err)
			}
			sshKeygenVerify(t, env, key+".pub")
		})
	}
	other := sshKeygen(t, "ed25519", "")
	if _, err := newSSHAgent(other + ".pub"); !errors.Is(err, ErrAgent) {
		t.Fatalf("key not in agent: err = %v, want ErrAgent", err)
	}
}

// gpgHome makes a temporary GNUPGHOME with a fresh ed25519 signing key and
// returns the home, the key's fingerprint and its armored secret key.
func gpgHome(t *testing.T, passphrase string) (string, string, []byte) {
	t.Helper()
	home, err := os.MkdirTemp("", "gpg") // short path: gpg-agent's socket path is limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("gpgconf", "--homedir", home, "--kill", "all").Run()
		os.RemoveAll(home)
	})
	env := []string{"GNUPGHOME=" + home}
	testenv.Run(t, nil, env, "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", passphrase,
		"--quick-gen-key", "Alice <alice@example.com>", "ed25519", "sign", "never")
	out := testenv.Run(t, nil, env, "gpg", "--batch", "--with-colons", "--list-keys")
	var fpr string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "fpr:") {
			fpr = strings.Split(line, ":")[9]
			break
		}
	}
	secret := testenv.Run(t, nil, env, "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", passphrase, "--armor", "--export-secret-keys", fpr)
	return home, fpr, []byte(secret)
}

func TestOpenPGPSignerAcceptedByGPG(t *testing.T) {
	for _, pass := range []string{"", "s3cret"} {
		t.Run("passphrase="+pass, func(t *testing.T) {
			home, fpr, secret := gpgHome(t, pass)
			if pass != "" {
				if _, err := newOpenPGP(secret, nil); !errors.Is(err, ErrPassphraseRequired) {
					t.Fatalf("no passphrase: err = %v", err)
				}
				if _, err := newOpenPGP(secret, []byte("wrong")); !errors.Is(err, ErrBadPassphrase) {
					t.Fatalf("wrong passphrase: err = %v", err)
				}
			}
			var pp []byte
			if pass != "" {
				pp = []byte(pass)
			}
			s, err := newOpenPGP(secret, pp)
			if err != nil {
				t.Fatal(err)
			}
			if s.KeyID() != fpr || s.Kind() != KindOpenPGP {
				t.Fatalf("KeyID = %q Kind = %q, want %q", s.KeyID(), s.Kind(), fpr)
			}
			env, err := Sign(context.Background(), []byte(testStatement), s)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			sigFile, data := filepath.Join(dir, "pae.sig"), filepath.Join(dir, "pae")
			os.WriteFile(sigFile, env.Signatures[0].Sig, 0o600)
			os.WriteFile(data, env.PAE(), 0o600)
			out := testenv.Run(t, nil, []string{"GNUPGHOME=" + home}, "gpg", "--batch", "--status-fd", "1", "--verify", sigFile, data)
			if !strings.Contains(out, "[GNUPG:] VALIDSIG "+fpr) && !strings.Contains(out, " "+fpr+"\n") {
				t.Fatalf("gpg --verify did not report a valid signature by %s:\n%s", fpr, out)
			}
			if !strings.Contains(out, "GOODSIG") {
				t.Fatalf("gpg --verify: %s", out)
			}
			// Tampered data fails.
			os.WriteFile(data, append(env.PAE(), ' '), 0o600)
			cmd := exec.Command("gpg", "--batch", "--verify", sigFile, data)
			cmd.Env = append(os.Environ(), "GNUPGHOME="+home)
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Fatalf("gpg accepted tampered data: %s", out)
			}
		})
	}
}

func TestRawSigner(t *testing.T) {
	edPub, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	ecPriv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaPriv, _ := rsa.GenerateKey(rand.Reader, 2048)
	pkcs8 := func(k any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	ecSEC1, _ := x509.MarshalECPrivateKey(ecPriv)
	pae := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: []byte(testStatement)}).PAE()
	digest := sha256.Sum256(pae)
	tests := []struct {
		name   string
		pem    []byte
		pub    crypto.PublicKey
		verify func(sig []byte) bool
	}{
		{"ed25519", pkcs8(edPriv), edPub, func(sig []byte) bool { return ed25519.Verify(edPub, pae, sig) }},
		{"ecdsa pkcs8", pkcs8(ecPriv), &ecPriv.PublicKey, func(sig []byte) bool { return ecdsa.VerifyASN1(&ecPriv.PublicKey, digest[:], sig) }},
		{"ecdsa sec1", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecSEC1}), &ecPriv.PublicKey, func(sig []byte) bool { return ecdsa.VerifyASN1(&ecPriv.PublicKey, digest[:], sig) }},
		{"rsa pkcs1", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaPriv)}), &rsaPriv.PublicKey, func(sig []byte) bool {
			return rsa.VerifyPSS(&rsaPriv.PublicKey, crypto.SHA256, digest[:], sig, &rsa.PSSOptions{SaltLength: 32, Hash: crypto.SHA256}) == nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewRaw(tt.pem)
			if err != nil {
				t.Fatal(err)
			}
			// The keyid is go-securesystemslib's for the public key, computed
			// here by go-securesystemslib itself.
			der, _ := x509.MarshalPKIXPublicKey(tt.pub)
			sslib, err := signerverifier.LoadKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
			if err != nil {
				t.Fatal(err)
			}
			if s.KeyID() != sslib.KeyID || s.Kind() != KindRaw {
				t.Fatalf("KeyID = %q, Kind = %q; want go-securesystemslib's %q", s.KeyID(), s.Kind(), sslib.KeyID)
			}
			env, err := Sign(context.Background(), []byte(testStatement), s)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.verify(env.Signatures[0].Sig) {
				t.Fatal("signature does not verify over the PAE")
			}
		})
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if _, err := NewRaw(pkcs8(p384)); !errors.Is(err, ErrUnsupportedKey) {
		t.Fatalf("P-384: err = %v, want ErrUnsupportedKey", err)
	}
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	if _, err := NewRaw(pkcs8(small)); !errors.Is(err, ErrUnsupportedKey) {
		t.Fatalf("RSA-1024: err = %v, want ErrUnsupportedKey", err)
	}
	pubPEM, _ := x509.MarshalPKIXPublicKey(edPub)
	if _, err := NewRaw(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubPEM})); !errors.Is(err, ErrNoSigningKey) {
		t.Fatalf("public key: err = %v, want ErrNoSigningKey", err)
	}
}

func TestSignLimits(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	s, err := NewRaw(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(context.Background(), []byte("{}")); err == nil {
		t.Fatal("no signers: want an error")
	}
	many := make([]Signer, dsse.MaxSignatures+1)
	for i := range many {
		many[i] = s
	}
	if _, err := Sign(context.Background(), []byte("{}"), many...); !errors.Is(err, ErrTooManySignatures) {
		t.Fatalf("too many signers: err = %v", err)
	}
	if _, err := Sign(context.Background(), make([]byte, dsse.MaxPayloadSize+1), s); !errors.Is(err, ErrPayloadTooLarge) {
		t.Fatalf("large payload: err = %v", err)
	}
	env, err := Sign(context.Background(), []byte("{}"), s, s)
	if err != nil || len(env.Signatures) != 2 {
		t.Fatalf("two signers: %v %+v", err, env)
	}
}
