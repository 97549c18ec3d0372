package trust

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/signer"
)

// TestVerifyRawSchemes: a trusted RSA key verifies RSASSA-PSS (any salt
// length) and PKCS#1 v1.5 with SHA-256 and nothing with SHA-1; a trusted
// ed25519 key verifies pure Ed25519 and Ed25519ph (cosign's), not Ed25519ctx
// or a signature over another message. Each signature is made here with
// crypto/… directly, not with taskproof's signer.
func TestVerifyRawSchemes(t *testing.T) {
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	edPub, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	tr, err := NewTrust(WithRawKeys(rawKey(t, &rk.PublicKey), rawKey(t, edPub)))
	if err != nil {
		t.Fatal(err)
	}
	env := wrap(t, []byte(testStatement))
	pae := env.PAE()
	s256 := sha256.Sum256(pae)
	s1 := sha1.Sum(pae)
	s512 := sha512.Sum512(pae)
	must := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	other := sha256.Sum256([]byte("another message"))
	for _, tc := range []struct {
		name string
		sig  []byte
		want Outcome
	}{
		{"rsa pss salt 32", must(rsa.SignPSS(rand.Reader, rk, crypto.SHA256, s256[:], &rsa.PSSOptions{SaltLength: 32})), OK},
		{"rsa pss salt max", must(rsa.SignPSS(rand.Reader, rk, crypto.SHA256, s256[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto})), OK},
		{"rsa pss salt 0", must(rsa.SignPSS(rand.Reader, rk, crypto.SHA256, s256[:], &rsa.PSSOptions{SaltLength: 0})), OK},
		{"rsa pkcs1v15 sha256", must(rsa.SignPKCS1v15(rand.Reader, rk, crypto.SHA256, s256[:])), OK},
		{"rsa pkcs1v15 sha1", must(rsa.SignPKCS1v15(rand.Reader, rk, crypto.SHA1, s1[:])), UntrustedSigner},
		{"rsa pss sha1", must(rsa.SignPSS(rand.Reader, rk, crypto.SHA1, s1[:], nil)), UntrustedSigner},
		{"rsa pkcs1v15 other message", must(rsa.SignPKCS1v15(rand.Reader, rk, crypto.SHA256, other[:])), UntrustedSigner},
		{"ed25519", ed25519.Sign(edPriv, pae), OK},
		{"ed25519ph", must(edPriv.Sign(nil, s512[:], &ed25519.Options{Hash: crypto.SHA512})), OK},
		{"ed25519ctx", must(edPriv.Sign(nil, pae, &ed25519.Options{Context: "in-toto"})), UntrustedSigner},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := mustVerify(t, wrap(t, env.Payload, dsse.Signature{Sig: tc.sig}), tr, now)
			if res.Status != tc.want {
				t.Fatalf("status %s (%+v), want %s", res.Status, res.Signatures, tc.want)
			}
		})
	}
}

// TestVerifyRawKeyIDForms: a signature that no trusted key verifies is a bad
// signature when its keyid names a trusted key in any form a writer uses
// (securesystemslib's, the hex SHA-256 of the DER, Sigstore's hint, the SSH
// fingerprint form), else an untrusted one; a good signature verifies whatever
// its keyid says.
func TestVerifyRawKeyIDForms(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k := rawKey(t, &ec.PublicKey)
	tr, err := NewTrust(WithRawKeys(k))
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	sum := sha256.Sum256(der)
	sslib, _ := keys.SSLibKeyID(&ec.PublicKey, "ecdsa-sha2-nistp256")
	sp, _ := ssh.NewPublicKey(&ec.PublicKey)
	good := rawSigner(t, ec)
	if good.KeyID() != sslib {
		t.Fatalf("written keyid %s, want securesystemslib's %s", good.KeyID(), sslib)
	}
	bad := rawSigner(t, stranger)
	for _, id := range []string{"", sslib, k.KeyID, base64.StdEncoding.EncodeToString(sum[:]), ssh.FingerprintSHA256(sp), "unrelated"} {
		named := id != "" && id != "unrelated"
		for _, s := range []signer.Signer{good, bad} {
			sig, err := s.Sign(wrap(t, []byte(testStatement)).PAE())
			if err != nil {
				t.Fatal(err)
			}
			res := mustVerify(t, wrap(t, []byte(testStatement), dsse.Signature{KeyID: id, Sig: sig}), tr, now)
			want := OK
			switch {
			case s == bad && named:
				want = BadSignature
			case s == bad:
				want = UntrustedSigner
			}
			if res.Status != want {
				t.Errorf("keyid %q, signer %s: %s, want %s", id, s.KeyID(), res.Status, want)
			}
		}
	}
}
