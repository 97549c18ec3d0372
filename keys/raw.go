package keys

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
)

// ErrUnsupportedKey: the key's type, curve or size is not one
// docs/format.md#signatures-dsse-v1 allows.
var ErrUnsupportedKey = errors.New("unsupported key")

// minRSABits is the smallest RSA modulus accepted for raw keys.
const minRSABits = 2048

// RawSignerVerifier is go-securesystemslib's signer-verifier of one raw key.
type RawSignerVerifier interface {
	Sign(ctx context.Context, data []byte) ([]byte, error)
	Verify(ctx context.Context, data, sig []byte) error
	Public() crypto.PublicKey
}

// ParseRawSignerVerifier parses PEM key bytes (a private or a public key) with
// go-securesystemslib and returns its signer-verifier, the parsed key and its
// keyid ([RawKeyID]), for the key types docs/format.md#signatures-dsse-v1
// allows (ed25519, ECDSA P-256, RSA of at least 2048 bits); other types give
// an error matching [ErrUnsupportedKey]. Signing and verifying use the
// schemes signer.NewRaw describes. It reads no file.
func ParseRawSignerVerifier(pemBytes []byte) (RawSignerVerifier, *signerverifier.SSLibKey, string, error) {
	key, err := signerverifier.LoadKey(pemBytes)
	if err != nil {
		return nil, nil, "", err
	}
	var sv RawSignerVerifier
	switch key.KeyType {
	case signerverifier.ED25519KeyType:
		sv, err = signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
	case signerverifier.ECDSAKeyType:
		sv, err = signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
	case signerverifier.RSAKeyType:
		sv, err = signerverifier.NewRSAPSSSignerVerifierFromSSLibKey(key)
	default:
		return nil, nil, "", fmt.Errorf("%w: type %q", ErrUnsupportedKey, key.KeyType)
	}
	if err != nil {
		return nil, nil, "", err
	}
	if err := checkRawPublicKey(sv.Public()); err != nil {
		return nil, nil, "", err
	}
	id, err := RawKeyID(sv.Public())
	if err != nil {
		return nil, nil, "", err
	}
	return sv, key, id, nil
}

// checkRawPublicKey returns nil for the raw key types docs/format.md#signatures-dsse-v1 allows:
// ed25519, ECDSA on P-256, RSA of at least minRSABits bits; otherwise an error
// matching [ErrUnsupportedKey].
func checkRawPublicKey(pub crypto.PublicKey) error {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return fmt.Errorf("%w: ed25519 key of %d bytes", ErrUnsupportedKey, len(k))
		}
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return fmt.Errorf("%w: ECDSA curve %s (want P-256)", ErrUnsupportedKey, k.Curve.Params().Name)
		}
	case *rsa.PublicKey:
		if k.N.BitLen() < minRSABits {
			return fmt.Errorf("%w: RSA key of %d bits (want at least %d)", ErrUnsupportedKey, k.N.BitLen(), minRSABits)
		}
	default:
		return fmt.Errorf("%w: %T", ErrUnsupportedKey, pub)
	}
	return nil
}

// RawKeyID returns the fingerprint reports name a raw public key by
// (docs/format.md#signatures-dsse-v1), one of the keyids it is read by: lowercase hex
// SHA-256 of its DER SubjectPublicKeyInfo (64 characters).
func RawKeyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("computing raw keyid: %w", err)
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:]), nil
}
