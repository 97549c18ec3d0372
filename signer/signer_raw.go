package signer

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/keys"
)

// rawSigner signs with a go-securesystemslib SignerVerifier, or, for an RSA
// key in PKCS#1 v1.5 (pkcs1), with crypto/rsa: go-securesystemslib signs RSA
// in PSS only.
type rawSigner struct {
	sv interface {
		Sign(context.Context, []byte) ([]byte, error)
	}
	rsaKey *rsa.PrivateKey // nil for other key types
	pkcs1  bool
	keyID  string
}

func (s *rawSigner) Kind() Kind    { return KindRaw }
func (s *rawSigner) KeyID() string { return s.keyID }
func (s *rawSigner) Sign(pae []byte) ([]byte, error) {
	var sig []byte
	var err error
	if s.pkcs1 {
		sum := sha256.Sum256(pae)
		sig, err = rsa.SignPKCS1v15(rand.Reader, s.rsaKey, crypto.SHA256, sum[:])
	} else {
		sig, err = s.sv.Sign(context.Background(), pae)
	}
	if err != nil {
		return nil, fmt.Errorf("raw signing with %s: %w", s.keyID, err)
	}
	return sig, nil
}

// RSAScheme is the signature scheme of a raw RSA key
// (docs/format.md#signatures-dsse-v1).
type RSAScheme string

// RSA signature schemes: RSASSA-PSS is what taskproof and securesystemslib
// sign with; PKCS#1 v1.5 is cosign's and Sigstore's, for a consumer that
// verifies only that. Both hash with SHA-256.
const (
	RSAPSS      RSAScheme = "pss"
	RSAPKCS1v15 RSAScheme = "pkcs1v15"
)

// ErrNotRSA: an RSA signature scheme was asked for a key that is not a raw
// RSA key.
var ErrNotRSA = errors.New("not a raw RSA key")

// WithRSAScheme returns s signing in scheme when s is a raw RSA signer; the
// keyid follows the scheme (securesystemslib's keyid covers it). Another
// signer gives an error matching [ErrNotRSA]; "" and [RSAPSS] leave s as it is.
func WithRSAScheme(s Signer, scheme RSAScheme) (Signer, error) {
	switch scheme {
	case "", RSAPSS, RSAPKCS1v15:
	default:
		return nil, fmt.Errorf("%w: RSA scheme %q (want pss or pkcs1v15)", ErrUnsupportedKey, scheme)
	}
	rs, ok := s.(*rawSigner)
	if !ok || rs.rsaKey == nil {
		return nil, fmt.Errorf("%w: an RSA scheme applies to raw RSA keys only (this signer is %s, keyid %s)", ErrNotRSA, s.Kind(), s.KeyID())
	}
	if scheme != RSAPKCS1v15 {
		return s, nil
	}
	id, err := keys.SSLibKeyID(rs.rsaKey.Public(), keys.SchemeRSAPKCS1)
	if err != nil {
		return nil, err
	}
	return &rawSigner{sv: rs.sv, rsaKey: rs.rsaKey, pkcs1: true, keyID: id}, nil
}

// NewRaw returns a [KindRaw] signer for an unencrypted PEM private key
// (PKCS#8, PKCS#1 or SEC1) of one of the types docs/format.md#signatures-dsse-v1 allows. The
// signature schemes are go-securesystemslib's:
//   - ed25519: pure Ed25519 over the PAE (64 bytes);
//   - ECDSA P-256: ECDSA over SHA-256(PAE), ASN.1 DER encoded;
//   - RSA (≥ 2048 bits): RSASSA-PSS with SHA-256, MGF1-SHA-256, salt
//     length 32.
//
// Other curves and key types give [ErrUnsupportedKey]. The keyid is
// securesystemslib's ([keys.SSLibKeyID]), which go-securesystemslib's and
// in-toto-golang's verifiers match; [WithRSAScheme] makes an RSA signer sign
// in PKCS#1 v1.5 instead.
func NewRaw(pemBytes []byte) (Signer, error) {
	sv, key, _, err := keys.ParseRawSignerVerifier(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("loading raw signing key: %w", err)
	}
	if key.KeyVal.Private == "" {
		return nil, fmt.Errorf("loading raw signing key: %w: a public key cannot sign", ErrNoSigningKey)
	}
	id, err := keys.SSLibKeyID(sv.Public(), keys.RawSchemes(sv.Public())[0])
	if err != nil {
		return nil, fmt.Errorf("loading raw signing key: %w", err)
	}
	s := &rawSigner{sv: sv, keyID: id}
	if _, ok := sv.Public().(*rsa.PublicKey); ok {
		// Kept for PKCS#1 v1.5 signing (WithRSAScheme): go-securesystemslib
		// signs RSA keys in PSS only.
		if s.rsaKey, err = parseRSAPrivatePEM(pemBytes); err != nil {
			return nil, fmt.Errorf("loading raw signing key: %w", err)
		}
	}
	return s, nil
}

// parseRSAPrivatePEM parses the RSA private key of a PEM block (PKCS#8 or
// PKCS#1) that go-securesystemslib has already read as one.
func parseRSAPrivatePEM(pemBytes []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var k any
	var err error
	if block.Type == "RSA PRIVATE KEY" {
		k, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	} else {
		k, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, err
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: PEM block %q holds %T", ErrUnsupportedKey, block.Type, k)
	}
	return rk, nil
}
