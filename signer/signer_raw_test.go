package signer

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/keys"
)

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
	wantID, _ := keys.SSLibKeyID(&priv.PublicKey, "rsa-pkcs1v15-sha256")
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
