package trust

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"github.com/taskproof/taskproof/keys"
)

// errRawSignature: no scheme of docs/format.md#signatures-dsse-v1 verifies a
// raw signature with the key.
var errRawSignature = errors.New("raw signature does not verify")

// rawVerifier checks raw signatures with one trusted key in every scheme
// docs/format.md#signatures-dsse-v1 reads: go-securesystemslib's (pure
// Ed25519, ECDSA P-256 with SHA-256, RSASSA-PSS with SHA-256 and a 32-byte
// salt) first, then what cosign and other Sigstore signers write for the same
// key types — RSASSA-PSS with SHA-256 and another salt length, RSA PKCS#1
// v1.5 with SHA-256, and Ed25519ph (RFC 8032, SHA-512 prehash). Nothing
// weaker: SHA-1 and smaller hashes verify nothing.
type rawVerifier struct {
	sslib interface {
		Verify(ctx context.Context, data, sig []byte) error
	}
	pub crypto.PublicKey
}

func (v rawVerifier) Verify(ctx context.Context, data, sig []byte) error {
	if v.sslib.Verify(ctx, data, sig) == nil {
		return nil
	}
	switch k := v.pub.(type) {
	case *rsa.PublicKey:
		sum := sha256.Sum256(data)
		if rsa.VerifyPSS(k, crypto.SHA256, sum[:], sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthAuto, Hash: crypto.SHA256}) == nil ||
			rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig) == nil {
			return nil
		}
	case ed25519.PublicKey:
		sum := sha512.Sum512(data)
		if ed25519.VerifyWithOptions(k, sum[:], sig, &ed25519.Options{Hash: crypto.SHA512}) == nil {
			return nil
		}
	}
	return errRawSignature
}

// namedBy reports whether keyid (a hint written beside a signature, or a
// Sigstore bundle's publicKey.hint) is one of the forms that name k
// (keys.RawKeyHints); the hexadecimal forms compare case-insensitively.
func (k *RawKey) namedBy(keyid string) bool {
	if keyid == "" {
		return false
	}
	return slices.ContainsFunc(k.hints, func(h string) bool {
		if _, err := hex.DecodeString(h); err == nil {
			return strings.EqualFold(h, keyid)
		}
		return h == keyid
	})
}

// newRawVerifier wraps go-securesystemslib's verifier of pub.
func newRawVerifier(sv keys.RawSignerVerifier) (rawVerifier, []string) {
	return rawVerifier{sslib: sv, pub: sv.Public()}, keys.RawKeyHints(sv.Public())
}
