package trust

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/testkeys"
	"github.com/taskproof/taskproof/signer"
)

// TestSignersCountedByKey: one key is one signer whatever wrapper carried its
// signature (docs/format.md#signers-are-counted-by-key) — an SSH key and its
// raw PEM twin, an OpenPGP key and the SSH key gpg exports from it — and two
// keys are two.
func TestSignersCountedByKey(t *testing.T) {
	k := newSSHKey(t)
	other := newSSHKey(t)
	payload := []byte(testStatement)
	priv := k.signer.PublicKey().(ssh.CryptoPublicKey).CryptoPublicKey().(ed25519.PublicKey)
	twin := rawKey(t, priv)
	b, _ := os.ReadFile(k.path)
	raw, err := ssh.ParseRawPrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	sshSig := dsse.Signature{Sig: testkeys.SSHKeygenSign(t, k.path, "in-toto", testkeys.PAE(payload))}
	rawSig := dsse.Signature{Sig: ed25519.Sign(*raw.(*ed25519.PrivateKey), testkeys.PAE(payload))}
	otherSig := dsse.Signature{Sig: testkeys.SSHKeygenSign(t, other.path, "in-toto", testkeys.PAE(payload))}
	as, err := ParseAllowedSigners([]byte("a "+k.line+"\nb "+other.line+"\n"), "allowed")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := NewTrust(WithAllowedSigners(as), WithRawKeys(twin))
	if err != nil {
		t.Fatal(err)
	}
	res := mustVerify(t, wrap(t, payload, sshSig, rawSig, otherSig), tr, now)
	if res.Status != OK || len(res.Signers) != 3 {
		t.Fatalf("got %+v", res)
	}
	keys := SignerKeys(res.Signers)
	if keys[0] != keys[1] || keys[0] == keys[2] {
		t.Fatalf("keys %q: the SSH key and its raw twin must be one key, the other key another", keys)
	}
	der, _ := x509.MarshalPKIXPublicKey(priv)
	if sum := sha256.Sum256(der); keys[0] != "spki:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("key name %q: want spki: and the SHA-256 of the SubjectPublicKeyInfo", keys[0])
	}

	t.Run("openpgp key and the ssh key gpg exports from it", func(t *testing.T) {
		_, fpr, env := gpgHome(t, "never")
		kr := gpgKeyring(t, env, false)
		pgpTrust, _ := NewTrust(WithKeyring(kr))
		pgpRes := mustVerify(t, wrap(t, payload, dsse.Signature{Sig: gpgSign(t, env, fpr, testkeys.PAE(payload))}), pgpTrust, time.Now())
		line := strings.TrimSpace(runGPG(t, env, "--export-ssh-key", fpr+"!"))
		pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		sshSigner := Signer{Kind: signer.KindSSH, KeyID: ssh.FingerprintSHA256(pub), keys: sshKeyNames(pub)}
		got := SignerKeys([]Signer{pgpRes.Signers[0], sshSigner, res.Signers[2]})
		if got[0] != got[1] || got[0] == got[2] {
			t.Fatalf("keys %q: the OpenPGP key and its SSH export must be one key", got)
		}
	})
}

func runGPG(t *testing.T, env []string, args ...string) string {
	t.Helper()
	l := &pgpLab{t: t, env: env}
	return l.gpg(time.Now(), "", args...)
}
