package attest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// fakeConfig is a git config of fixed values.
func fakeConfig(kv map[string]string) ConfigFunc {
	return func(key string) (string, bool, error) {
		v, ok := kv[key]
		return v, ok, nil
	}
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
		choice    SignerChoice
		config    map[string]string
		wantKind  Kind
		wantKeyID string
		reason    string // part of the unsigned reason
		err       error  // errors.Is target; errAny for any error
	}{
		{
			name:     "gpg.format=ssh and user.signingKey path",
			config:   map[string]string{"gpg.format": "ssh", "user.signingKey": keyA},
			wantKind: KindSSH, wantKeyID: fpA,
		},
		{
			name:     "gpg.format is case-insensitive",
			config:   map[string]string{"gpg.format": "SSH", "user.signingKey": keyA},
			wantKind: KindSSH, wantKeyID: fpA,
		},
		{
			name:   "user.signingKey naming a gpg keyring key id",
			config: map[string]string{"user.signingKey": "0xDEADBEEF12345678"},
			reason: "names a key in gpg's keyring",
		},
		{
			name:   "gpg.format=openpgp and a keyring fingerprint",
			config: map[string]string{"gpg.format": "openpgp", "user.signingKey": "ABCDEF0123456789ABCDEF0123456789ABCDEF01"},
			reason: "names a key in gpg's keyring",
		},
		{
			name:   "no key anywhere",
			config: map[string]string{"gpg.format": "ssh"},
			reason: "no signing key: pass --key",
		},
		{
			name:   "empty user.signingKey",
			config: map[string]string{"user.signingKey": ""},
			reason: "no signing key",
		},
		{
			name:   "nothing configured: git's default, OpenPGP, said as such",
			config: map[string]string{},
			reason: "openpgp signer (git's default: gpg.format is unset; --signer ssh for an SSH key)",
		},
		{
			name:   "gpg.format=x509",
			config: map[string]string{"gpg.format": "x509", "user.signingKey": keyA},
			reason: "gpg.format=x509 is not a signer taskproof has",
		},
		{
			name:     "flags override config",
			choice:   SignerChoice{Kind: KindSSH, Key: keyB},
			config:   map[string]string{"gpg.format": "openpgp", "user.signingKey": "0xDEADBEEF"},
			wantKind: KindSSH, wantKeyID: fpB,
		},
		{
			name:     "--key overrides user.signingKey",
			choice:   SignerChoice{Key: keyB},
			config:   map[string]string{"gpg.format": "ssh", "user.signingKey": keyA},
			wantKind: KindSSH, wantKeyID: fpB,
		},
		{
			name:     "--signer overrides gpg.format",
			choice:   SignerChoice{Kind: KindSSH},
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
			choice:   SignerChoice{Passphrase: []byte("hunter22")},
			config:   map[string]string{"gpg.format": "ssh", "user.signingKey": encrypted},
			wantKind: KindSSH, wantKeyID: fpEnc,
		},
		{
			name:   "encrypted key with a wrong passphrase",
			choice: SignerChoice{Kind: KindSSH, Key: encrypted, Passphrase: []byte("nope")},
			err:    ErrBadPassphrase,
		},
		{
			name:   "unknown --signer",
			choice: SignerChoice{Kind: "x509", Key: keyA},
			err:    errAny,
		},
		{
			name:   "key file missing",
			choice: SignerChoice{Kind: KindSSH, Key: filepath.Join(t.TempDir(), "absent")},
			err:    os.ErrNotExist,
		},
		{
			name:   "ssh key given as an openpgp key",
			choice: SignerChoice{Kind: KindOpenPGP, Key: keyA},
			err:    errAny,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, reason, err := ChooseSigner(tt.choice, fakeConfig(tt.config))
			switch {
			case tt.err != nil:
				if err == nil || (tt.err != errAny && !errors.Is(err, tt.err)) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				if s != nil {
					t.Error("a signer came with the error")
				}
			case tt.reason != "":
				if err != nil || s != nil || !strings.Contains(reason, tt.reason) {
					t.Fatalf("= %v, %q, %v; want no signer with reason %q", s, reason, err, tt.reason)
				}
			default:
				if err != nil || s == nil || reason != "" {
					t.Fatalf("= %v, %q, %v; want a signer", s, reason, err)
				}
				if s.Kind() != tt.wantKind || s.KeyID() != tt.wantKeyID {
					t.Errorf("signer %s %s, want %s %s", s.Kind(), s.KeyID(), tt.wantKind, tt.wantKeyID)
				}
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
	s, reason, err := ChooseSigner(SignerChoice{}, fakeConfig(map[string]string{"user.signingKey": path}))
	if err != nil || s == nil {
		t.Fatalf("= %v, %q, %v", s, reason, err)
	}
	if s.Kind() != KindOpenPGP || !strings.EqualFold(s.KeyID(), fpr) {
		t.Errorf("signer %s %s, want openpgp %s", s.Kind(), s.KeyID(), fpr)
	}
}

func TestChooseSignerConfigError(t *testing.T) {
	boom := errors.New("config unreadable")
	cfg := func(string) (string, bool, error) { return "", false, boom }
	if _, _, err := ChooseSigner(SignerChoice{}, cfg); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the config error", err)
	}
	if _, _, err := ChooseSigner(SignerChoice{Kind: KindSSH}, cfg); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the config error", err)
	}
}
