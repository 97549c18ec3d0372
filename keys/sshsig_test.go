package keys

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

func TestCheckSSHSignature(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(msg, namespace string) []byte {
		sig, err := sshsig.Sign(strings.NewReader(msg), s, sshsig.HashSHA512, namespace)
		if err != nil {
			t.Fatal(err)
		}
		return sshsig.Armor(sig)
	}
	want := ssh.FingerprintSHA256(s.PublicKey())
	good := sign("payload", SSHNamespace)

	if id, err := CheckSSHSignature([]byte("payload"), good); err != nil || id != want {
		t.Fatalf("intact signature: %q, %v; want %q, nil", id, err, want)
	}
	if id, err := CheckSSHSignature([]byte("other payload"), good); err == nil || id != want || !strings.Contains(err.Error(), "does not verify") {
		t.Errorf("signature over another payload: %q, %v; want its keyid and does not verify", id, err)
	}
	if _, err := CheckSSHSignature([]byte("payload"), sign("payload", "git")); err == nil || !strings.Contains(err.Error(), `namespace "git"`) {
		t.Errorf("git namespace: %v, want the namespace named", err)
	}
	if _, err := CheckSSHSignature([]byte("payload"), []byte("c2lnbmF0dXJl")); !errors.Is(err, ErrNotSSHSignature) {
		t.Errorf("raw signature: %v, want ErrNotSSHSignature", err)
	}
	trailing := append(bytes.Clone(good), "junk\n"...)
	if id, err := CheckSSHSignature([]byte("payload"), trailing); err == nil || id != "" || !strings.Contains(err.Error(), "data after the armored block") {
		t.Errorf("data after the block: %q, %v; want malformed with no keyid", id, err)
	}
}
