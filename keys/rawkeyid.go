package keys

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"

	"github.com/secure-systems-lab/go-securesystemslib/cjson"
	"golang.org/x/crypto/ssh"
)

// securesystemslib's signature scheme names, which its keyid covers
// (docs/format.md#signatures-dsse-v1).
const (
	SchemeEd25519   = "ed25519"
	SchemeECDSAP256 = "ecdsa-sha2-nistp256"
	SchemeRSAPSS    = "rsassa-pss-sha256"
	SchemeRSAPKCS1  = "rsa-pkcs1v15-sha256"
)

// sslibKeyIDHashAlgorithms is the keyid_hash_algorithms member
// go-securesystemslib's LoadKey, in-toto-golang's `in-toto key id` and
// python-securesystemslib's key import functions put in the key they hash.
var sslibKeyIDHashAlgorithms = []any{"sha256", "sha512"}

// SSLibKeyID returns the keyid go-securesystemslib's LoadKey gives the raw
// public key pub when it verifies with scheme ("ed25519",
// "ecdsa-sha2-nistp256", "rsassa-pss-sha256" or "rsa-pkcs1v15-sha256"):
// lowercase hex SHA-256 of the canonical JSON of {"keyid_hash_algorithms":
// ["sha256","sha512"], "keytype", "keyval": {"public"}, "scheme"}, the public
// value being the hex ed25519 key or the PEM SubjectPublicKeyInfo of an ECDSA
// or RSA key (docs/format.md#signatures-dsse-v1). in-toto-golang and
// python-securesystemslib compute the same value, and go-securesystemslib's
// EnvelopeVerifier skips a signature whose keyid is set to anything else.
func SSLibKeyID(pub crypto.PublicKey, scheme string) (string, error) {
	keyType, public, err := sslibPublic(pub)
	if err != nil {
		return "", err
	}
	key := map[string]any{
		"keyid_hash_algorithms": sslibKeyIDHashAlgorithms,
		"keytype":               keyType,
		"keyval":                map[string]any{"public": public},
		"scheme":                scheme,
	}
	canonical, err := cjson.EncodeCanonical(key)
	if err != nil {
		return "", fmt.Errorf("computing keyid: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}

// sslibPublic is securesystemslib's keytype and keyval.public of pub.
func sslibPublic(pub crypto.PublicKey) (keyType, public string, err error) {
	if k, ok := pub.(ed25519.PublicKey); ok {
		return "ed25519", hex.EncodeToString(k), nil
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", "", fmt.Errorf("computing keyid: %w", err)
	}
	text := strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))
	switch pub.(type) {
	case *ecdsa.PublicKey:
		return "ecdsa", text, nil
	case *rsa.PublicKey:
		return "rsa", text, nil
	}
	return "", "", fmt.Errorf("%w: %T", ErrUnsupportedKey, pub)
}

// RawKeyHints returns every keyid by which a signature may name the raw
// public key pub: securesystemslib's keyid for each scheme the key verifies
// with (what taskproof writes), the hex SHA-256 of its DER
// SubjectPublicKeyInfo ([RawKeyID], the fingerprint reports show), Sigstore's
// publicKey.hint (standard base64 of that SHA-256) and go-securesystemslib's
// SHA256KeyID (the "SHA256:…" SSH fingerprint). A keyid decides nothing: a
// verifier uses these only to tell a signature that names a trusted key but
// does not verify (bad) from one by an unknown key (untrusted).
func RawKeyHints(pub crypto.PublicKey) []string {
	var out []string
	if id, err := RawKeyID(pub); err == nil {
		out = append(out, id)
		if sum, err := hex.DecodeString(id); err == nil {
			out = append(out, base64.StdEncoding.EncodeToString(sum))
		}
	}
	for _, scheme := range RawSchemes(pub) {
		if id, err := SSLibKeyID(pub, scheme); err == nil {
			out = append(out, id)
		}
	}
	if sp, err := ssh.NewPublicKey(pub); err == nil {
		out = append(out, ssh.FingerprintSHA256(sp))
	}
	return out
}

// RawSchemes are the securesystemslib schemes a raw key of pub's type
// verifies with (docs/format.md#signatures-dsse-v1), the one taskproof signs
// with first.
func RawSchemes(pub crypto.PublicKey) []string {
	switch pub.(type) {
	case ed25519.PublicKey:
		return []string{SchemeEd25519}
	case *ecdsa.PublicKey:
		return []string{SchemeECDSAP256}
	case *rsa.PublicKey:
		return []string{SchemeRSAPSS, SchemeRSAPKCS1}
	}
	return nil
}
