package signer

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
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

// TestRSAScheme: WithRSAScheme(pkcs1v15) signs PKCS#1 v1.5 over SHA-256 of
// the PAE with the keyid of that scheme; pss leaves the signer as it is;
// another key or an unknown scheme is refused.
func TestRSAScheme(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	s, err := NewRaw(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	if same, err := WithRSAScheme(s, RSAPSS); err != nil || same != s {
		t.Fatalf("pss: %v, %v", same, err)
	}
	p, err := WithRSAScheme(s, RSAPKCS1v15)
	if err != nil {
		t.Fatal(err)
	}
	wantID, _ := SSLibKeyID(&priv.PublicKey, "rsa-pkcs1v15-sha256")
	if p.KeyID() != wantID || p.KeyID() == s.KeyID() {
		t.Errorf("pkcs1v15 keyid %s, want %s (pss: %s)", p.KeyID(), wantID, s.KeyID())
	}
	env, err := Sign(context.Background(), []byte(testStatement), p)
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256(env.PAE())
	if err := rsa.VerifyPKCS1v15(&priv.PublicKey, crypto.SHA256, digest[:], env.Signatures[0].Sig); err != nil {
		t.Fatalf("pkcs1v15 signature: %v", err)
	}
	if rsa.VerifyPSS(&priv.PublicKey, crypto.SHA256, digest[:], env.Signatures[0].Sig, nil) == nil {
		t.Fatal("pkcs1v15 signer signed PSS")
	}
	if _, err := WithRSAScheme(s, "pkcs1v15-sha1"); !errors.Is(err, ErrUnsupportedKey) {
		t.Errorf("unknown scheme: %v", err)
	}
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	edDER, _ := x509.MarshalPKCS8PrivateKey(edPriv)
	ed, err := NewRaw(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: edDER}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WithRSAScheme(ed, RSAPKCS1v15); !errors.Is(err, ErrNotRSA) {
		t.Errorf("ed25519: %v, want ErrNotRSA", err)
	}
	// Choose: the scheme applies to the RSA key among several; with no RSA
	// key it is a contradiction.
	dir := t.TempDir()
	rsaPath, edPath := filepath.Join(dir, "rsa.pem"), filepath.Join(dir, "ed.pem")
	os.WriteFile(rsaPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600)
	os.WriteFile(edPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: edDER}), 0o600)
	ss, err := Choose(Choice{Keys: []string{edPath, rsaPath}, RSAScheme: RSAPKCS1v15}, fakeConfig(nil))
	if err != nil || len(ss) != 2 || ss[0].KeyID() != ed.KeyID() || ss[1].KeyID() != wantID {
		t.Fatalf("Choose: %v %v", ss, err)
	}
	if _, err := Choose(Choice{Keys: []string{edPath}, RSAScheme: RSAPKCS1v15}, fakeConfig(nil)); !errors.Is(err, ErrChoice) {
		t.Errorf("Choose without an RSA key: %v, want ErrChoice", err)
	}
}
