package main

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `attest tick --rsa-scheme pkcs1v15` signs a raw RSA key in PKCS#1 v1.5 with
// SHA-256 (checked here with crypto/rsa), which `verify --key` accepts; an
// unknown scheme, a scheme with no RSA key, and a scheme with --unsigned or
// --signer sigstore are usage errors (exit 2) that write nothing.
func TestAttestRSAScheme(t *testing.T) {
	dir := t.TempDir()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	write := func(name string, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rsaDER, _ := x509.MarshalPKCS8PrivateKey(rk)
	edDER, _ := x509.MarshalPKCS8PrivateKey(ed)
	pubDER, _ := x509.MarshalPKIXPublicKey(&rk.PublicKey)
	rsaKey, edKey, rsaPub := write("rsa.pem", "PRIVATE KEY", rsaDER), write("ed.pem", "PRIVATE KEY", edDER), write("rsa.pub.pem", "PUBLIC KEY", pubDER)
	base := []string{"attest", "tick", "--commit", "", "--verdict", "regression_only", "--regression-reason", "planning_work"}
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown scheme", []string{"--key", rsaKey, "--rsa-scheme", "pkcs1v15-sha1"}, "want pss or pkcs1v15"},
		{"no RSA key", []string{"--key", edKey, "--rsa-scheme", "pkcs1v15"}, "no key is a raw RSA key"},
		{"unsigned", []string{"--unsigned", "--rsa-scheme", "pkcs1v15"}, "--rsa-scheme"},
		{"sigstore", []string{"--signer", "sigstore", "--rsa-scheme", "pkcs1v15"}, "--rsa-scheme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newCLIRepo(t)
			args := append(append([]string{}, base...), tc.args...)
			args[3] = r.c1
			_, stderr, code := r.taskproof(t, nil, args...)
			if code != 2 || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, tc.msg)
			}
			if n := r.note(t, r.c1); n != "" {
				t.Errorf("a refused tick wrote a note: %s", n)
			}
		})
	}
	r := newCLIRepo(t)
	args := append(append([]string{}, base...), "--key", rsaKey, "--rsa-scheme", "pkcs1v15")
	args[3] = r.c1
	if stdout, stderr, code := r.taskproof(t, nil, args...); code != 0 {
		t.Fatalf("attest tick --rsa-scheme pkcs1v15: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, e := range envelopes(t, r.note(t, r.c1)) {
		// PAE, as the DSSE protocol defines it.
		digest := sha256.Sum256([]byte(fmt.Sprintf("DSSEv1 %d %s %d %s", len(e.PayloadType), e.PayloadType, len(e.Payload), e.Payload)))
		if err := rsa.VerifyPKCS1v15(&rk.PublicKey, crypto.SHA256, digest[:], e.Signatures[0].Sig); err != nil {
			t.Errorf("not a PKCS#1 v1.5 SHA-256 signature: %v", err)
		}
	}
	if stdout, stderr, code := r.taskproof(t, nil, "verify", r.c1, "--key", rsaPub); code != 0 {
		t.Errorf("verify --key: exit %d\n%s%s", code, stdout, stderr)
	}
}
