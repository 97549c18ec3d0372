package signer

import (
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	pgperrors "github.com/ProtonMail/go-crypto/openpgp/errors"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// openPGPSigner makes armored detached binary-mode signatures (signature type
// 0x00) with SHA-256.
type openPGPSigner struct {
	entity *openpgp.Entity
	keyID  string
}

func (s *openPGPSigner) Kind() Kind    { return KindOpenPGP }
func (s *openPGPSigner) KeyID() string { return s.keyID }
func (s *openPGPSigner) Sign(pae []byte) ([]byte, error) {
	var buf bytes.Buffer
	cfg := &packet.Config{DefaultHash: crypto.SHA256}
	if err := openpgp.ArmoredDetachSign(&buf, s.entity, bytes.NewReader(pae), cfg); err != nil {
		return nil, fmt.Errorf("openpgp signing with %s: %w", s.keyID, err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// newOpenPGP returns a [KindOpenPGP] signer for the secret key
// armoredKey, armored (`gpg --export-secret-keys --armor`) or binary
// (`gpg --export-secret-keys`). The key material must hold
// exactly one entity with secret keys; its newest valid signing-capable key
// (a subkey, else the primary key) signs. passphrase decrypts encrypted secret
// keys: nil with an encrypted key gives [ErrPassphraseRequired], a wrong one
// [ErrBadPassphrase].
//
// The keyid is the primary key's v4/v6 fingerprint in upper-case hex, as gpg
// prints it; verifiers compare keyids case-insensitively, and the keyid is a
// hint only (docs/format.md#signatures-dsse-v1).
func newOpenPGP(armoredKey []byte, passphrase []byte) (Signer, error) {
	var (
		el  openpgp.EntityList
		err error
	)
	if bytes.HasPrefix(bytes.TrimSpace(armoredKey), []byte("-----BEGIN ")) {
		el, err = openpgp.ReadArmoredKeyRing(bytes.NewReader(armoredKey))
	} else {
		el, err = openpgp.ReadKeyRing(bytes.NewReader(armoredKey))
	}
	if err != nil {
		return nil, fmt.Errorf("loading openpgp signing key: %w", err)
	}
	var secret []*openpgp.Entity
	for _, e := range el {
		if e.PrivateKey != nil {
			secret = append(secret, e)
		}
	}
	if len(secret) != 1 {
		return nil, fmt.Errorf("loading openpgp signing key: %w: %d entities with secret keys, want exactly 1", ErrNoSigningKey, len(secret))
	}
	e := secret[0]
	key, ok := e.SigningKey(time.Now())
	if !ok || key.PrivateKey == nil || key.PrivateKey.Dummy() {
		return nil, fmt.Errorf("loading openpgp signing key %X: %w: no valid signing-capable secret key", e.PrimaryKey.Fingerprint, ErrNoSigningKey)
	}
	if key.PrivateKey.Encrypted {
		if passphrase == nil {
			return nil, fmt.Errorf("loading openpgp signing key %X: %w", e.PrimaryKey.Fingerprint, ErrPassphraseRequired)
		}
		if err := key.PrivateKey.Decrypt(passphrase); err != nil {
			var kerr pgperrors.KeyInvalidError
			if errors.As(err, &kerr) || strings.Contains(err.Error(), "incorrect") || strings.Contains(err.Error(), "checksum") {
				return nil, fmt.Errorf("loading openpgp signing key %X: %w", e.PrimaryKey.Fingerprint, ErrBadPassphrase)
			}
			return nil, fmt.Errorf("loading openpgp signing key %X: %w", e.PrimaryKey.Fingerprint, err)
		}
	}
	return &openPGPSigner{entity: e, keyID: strings.ToUpper(fmt.Sprintf("%x", e.PrimaryKey.Fingerprint))}, nil
}
