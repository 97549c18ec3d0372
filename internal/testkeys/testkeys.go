// Package testkeys makes signing keys for tests with the real tools users
// have (ssh-keygen).
package testkeys

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/testenv"
)

// SSHKey is an ed25519 SSH key pair ssh-keygen made.
type SSHKey struct {
	Path   string // private key file; Path+".pub" is the public key
	Pub    ssh.PublicKey
	Line   string // "type base64"
	Signer ssh.Signer
}

// NewSSHKey makes an ed25519 key pair with the real ssh-keygen.
func NewSSHKey(t testing.TB) SSHKey {
	t.Helper()
	path := filepath.Join(t.TempDir(), "id")
	testenv.Run(t, nil, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "c", "-f", path)
	pubText, err := os.ReadFile(path + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(pubText)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return SSHKey{Path: path, Pub: pub, Line: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub))), Signer: signer}
}

// SSHKeygenSign signs data with the real `ssh-keygen -Y sign -n ns -f key`
// and returns the armored signature.
func SSHKeygenSign(t testing.TB, key, ns string, data []byte) []byte {
	t.Helper()
	file := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Run(t, nil, nil, "ssh-keygen", "-Y", "sign", "-n", ns, "-f", key, file)
	sig, err := os.ReadFile(file + ".sig")
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// PAE is the DSSE pre-authentication encoding of an in-toto payload: what
// a signature of an envelope covers.
func PAE(payload []byte) []byte {
	return (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: payload}).PAE()
}

// LegacyPAE is the pre-authentication encoding of DSSE's first draft
// (little-endian lengths), which a verifier must not accept.
func LegacyPAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	le := func(n int) {
		for i := 0; i < 8; i++ {
			b.WriteByte(byte(uint64(n) >> (8 * i)))
		}
	}
	le(2)
	le(len(payloadType))
	b.WriteString(payloadType)
	le(len(payload))
	b.Write(payload)
	return b.Bytes()
}
