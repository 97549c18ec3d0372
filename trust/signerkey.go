package trust

import (
	"crypto"
	stdecdsa "crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"math/big"

	pgpecdsa "github.com/ProtonMail/go-crypto/openpgp/ecdsa"
	pgped25519 "github.com/ProtonMail/go-crypto/openpgp/ed25519"
	"github.com/ProtonMail/go-crypto/openpgp/eddsa"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/trust/internal/openpgpkeys"
)

// Signers are counted by public key material, whatever wrapper carried the
// signature (docs/format.md#signers-are-counted-by-key): an ed25519 key
// trusted in the allowed signers file and as a PEM --key is one signer,
// whether it signed as SSHSIG or raw. A key's material is named
// "spki:" + hex SHA-256 of its DER SubjectPublicKeyInfo (for a raw key, its
// keyid); a key Go cannot express that way is named by its wrapper's own
// fingerprint, which then only matches itself.

// spkiName names a public key by its SubjectPublicKeyInfo; "" when x509
// cannot encode it.
func spkiName(pub crypto.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(der)
	return "spki:" + hex.EncodeToString(sum[:])
}

// sshKeyNames names an SSH signing key (the certified key for a certificate).
func sshKeyNames(k ssh.PublicKey) []string {
	if c, ok := k.(*ssh.Certificate); ok {
		k = c.Key
	}
	if ck, ok := k.(ssh.CryptoPublicKey); ok {
		if n := spkiName(ck.CryptoPublicKey()); n != "" {
			return []string{n}
		}
	}
	return []string{"ssh:" + ssh.FingerprintSHA256(k)}
}

// rawKeyNames names a trusted raw key.
func rawKeyNames(k *RawKey) []string {
	if n := spkiName(k.Public); n != "" {
		return []string{n}
	}
	return []string{"raw:" + k.KeyID}
}

// bundleKeyNames names the key a Sigstore bundle was signed with: its
// certificate's public key.
func bundleKeyNames(b *noteline.Bundle) []string {
	if b.Leaf != nil {
		if n := spkiName(b.Leaf.PublicKey); n != "" {
			return []string{n}
		}
	}
	return nil
}

// pgpKeyName names one OpenPGP key's material.
func pgpKeyName(k *packet.PublicKey) string {
	var pub crypto.PublicKey
	switch p := k.PublicKey.(type) {
	case *rsa.PublicKey:
		pub = p
	case *eddsa.PublicKey:
		if p.GetCurve().GetCurveName() == "ed25519" && len(p.X) == ed25519.PublicKeySize {
			pub = ed25519.PublicKey(p.X)
		}
	case *pgped25519.PublicKey:
		pub = ed25519.PublicKey(p.Point)
	case *pgpecdsa.PublicKey:
		var c elliptic.Curve
		switch p.GetCurve().GetCurveName() {
		case "P-256":
			c = elliptic.P256()
		case "P-384":
			c = elliptic.P384()
		case "P-521":
			c = elliptic.P521()
		}
		if c != nil {
			pub = &stdecdsa.PublicKey{Curve: c, X: new(big.Int).Set(p.X), Y: new(big.Int).Set(p.Y)}
		}
	}
	if pub != nil {
		if n := spkiName(pub); n != "" {
			return n
		}
	}
	return "openpgp:" + openpgpkeys.FprHex(k.Fingerprint)
}

// pgpCertNames names an OpenPGP signer: its certificate (one key, whichever
// of its keys signed) and the material of every key in it.
func pgpCertNames(c *openpgpkeys.Cert) []string {
	names := []string{"openpgp:" + c.Fingerprint()}
	for _, k := range c.Keys() {
		names = append(names, pgpKeyName(k))
	}
	return names
}

// SignerKeys gives each signer the name of the key it is counted as: signers
// sharing any key material (or one OpenPGP certificate) get one name, the
// first such signer's first name.
func SignerKeys(ss []Signer) []string {
	parent := make([]int, len(ss))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	for i, s := range ss {
		names := s.keys
		if len(names) == 0 {
			names = []string{string(s.Kind) + ":" + s.KeyID}
		}
		for _, n := range names {
			if j, ok := owner[n]; ok {
				a, b := find(i), find(j)
				if a < b {
					a, b = b, a
				}
				parent[a] = b
			} else {
				owner[n] = i
			}
		}
	}
	out := make([]string, len(ss))
	for i := range ss {
		r := ss[find(i)]
		if len(r.keys) > 0 {
			out[i] = r.keys[0]
		} else {
			out[i] = string(r.Kind) + ":" + r.KeyID
		}
	}
	return out
}

// Signer is a trusted key credited with a statement's signature: the key that
// verified it, never the keyid the envelope wrote (docs/format.md#signatures-dsse-v1).
// [SignaturesResult] lists the distinct ones of one envelope, verify.ObjectResult
// those of a task's task-verification envelope.
type Signer struct {
	Kind      keys.Kind `json:"kind"`
	KeyID     string    `json:"keyid"`
	Principal string    `json:"principal"`
	// Identity and Issuer are a Sigstore signer's certificate identity and OIDC
	// issuer, TlogIndex its transparency log entry's index (docs/format.md#signatures-dsse-v1).
	Identity  string `json:"identity,omitempty"`
	Issuer    string `json:"issuer,omitempty"`
	TlogIndex *int64 `json:"tlog_index,omitempty"`
	// keys name its key material: signers are counted by it
	// (docs/format.md#signers-are-counted-by-key).
	keys []string
}
