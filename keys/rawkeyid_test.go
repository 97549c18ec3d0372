package keys

import (
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readPublicPEM(t *testing.T, path string) crypto.PublicKey {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// TestSSLibKeyIDVectors: the keyids of testdata/keyid's public keys as
// python-securesystemslib 0.26 (Debian's python3-securesystemslib) computes
// them with its key import functions (testdata/keyid/keyids.json, written by
// it), one per scheme.
func TestSSLibKeyIDVectors(t *testing.T) {
	var want map[string]string
	b, err := os.ReadFile(filepath.Join("testdata", "keyid", "keyids.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 {
		t.Fatalf("%d vectors, want 4", len(want))
	}
	for name, id := range want {
		key, scheme, _ := strings.Cut(name, " ")
		pub := readPublicPEM(t, filepath.Join("testdata", "keyid", key+".pub.pem"))
		got, err := SSLibKeyID(pub, scheme)
		if err != nil {
			t.Fatal(err)
		}
		if got != id {
			t.Errorf("%s: SSLibKeyID = %s, want %s", name, got, id)
		}
		if !slices.Contains(RawKeyHints(pub), id) {
			t.Errorf("%s: RawKeyHints lacks %s", name, id)
		}
	}
}

// TestRawKeyHints: every form a key is named by, each computed here from its
// own recipe.
func TestRawKeyHints(t *testing.T) {
	pub := readPublicPEM(t, filepath.Join("testdata", "keyid", "p256.pub.pem"))
	der, _ := x509.MarshalPKIXPublicKey(pub)
	sum := sha256.Sum256(der)
	hints := RawKeyHints(pub)
	for _, want := range []string{hex.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString(sum[:])} {
		if !slices.Contains(hints, want) {
			t.Errorf("hints %q lack %s", hints, want)
		}
	}
	if !slices.ContainsFunc(hints, func(h string) bool { return strings.HasPrefix(h, "SHA256:") }) {
		t.Errorf("hints %q lack the SSH fingerprint form", hints)
	}
}
