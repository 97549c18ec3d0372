package trust

import (
	"bytes"
	"crypto"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"

	"github.com/taskproof/taskproof/internal/inputfile"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/trust/internal/openpgpkeys"
)

var (
	// ErrTrust is matched by every error reading or parsing trust input (an
	// unreadable or invalid allowed signers file, keyring or PEM key): a trust or
	// config error, docs/format.md#exit-codes exit code 3.
	ErrTrust = errors.New("invalid trust input")
	// ErrNoTrust is returned by [NewTrust] when no trust input was given: no
	// trust input is an error, never a pass. It also matches [ErrTrust].
	ErrNoTrust = fmt.Errorf("%w: no trust input (allowed signers, keyring or key)", ErrTrust)
)

// Trust is the verifier's set of trusted keys
// (docs/format.md#choices-where-the-brief-leaves-room, "Trust and policy come
// from outside what is verified"): an allowed signers file for SSH signatures,
// an OpenPGP keyring, raw public keys. Build it with [NewTrust]; the zero value
// trusts nothing and is refused by [VerifySignatures].
type Trust struct {
	allowed []*AllowedSigners
	keyring *Keyring
	raw     []*RawKey
	// sigstore is the Sigstore trust (sigstore.go), nil when none.
	sigstore *SigstoreTrust
	// revs are the inputs LoadTrust read from git, which the commits verified
	// must not be (verify.Verifier.FromVerifiedUnsafe).
	revs []SourceRev
}

// FromGit are the trust inputs [LoadTrust] read from git (REV:PATH), which a
// verifier refuses to judge the commits they were read from with.
func (t *Trust) FromGit() []SourceRev { return t.revs }

// Option adds one trust input to a [Trust].
type Option func(*Trust) error

// WithAllowedSigners trusts SSH signatures as the allowed signers file as says
// (repeatable: entries of every file are consulted).
func WithAllowedSigners(as *AllowedSigners) Option {
	return func(t *Trust) error {
		if as == nil {
			return fmt.Errorf("%w: nil allowed signers", ErrTrust)
		}
		t.allowed = append(t.allowed, as)
		return nil
	}
}

// WithKeyring trusts OpenPGP signatures by the keys of k (repeatable: keyrings
// are merged).
func WithKeyring(k *Keyring) Option {
	return func(t *Trust) error {
		if k == nil {
			return fmt.Errorf("%w: nil keyring", ErrTrust)
		}
		bodies := k.bodies
		if t.keyring != nil {
			bodies = append(append([][]byte{}, t.keyring.bodies...), k.bodies...)
		}
		merged, err := keyringOf(bodies)
		if err != nil {
			return err
		}
		t.keyring = merged
		return nil
	}
}

// WithRawKeys trusts raw signatures by keys (repeatable, like --key).
func WithRawKeys(keys ...*RawKey) Option {
	return func(t *Trust) error {
		for _, k := range keys {
			if k == nil {
				return fmt.Errorf("%w: nil raw key", ErrTrust)
			}
			t.raw = append(t.raw, k)
		}
		return nil
	}
}

// NewTrust combines trust inputs. With none (or only empty ones: an allowed
// signers file without entries, an empty keyring) it returns [ErrNoTrust].
func NewTrust(opts ...Option) (*Trust, error) {
	t := &Trust{}
	for _, o := range opts {
		if err := o(t); err != nil {
			return nil, err
		}
	}
	if t.empty() {
		return nil, ErrNoTrust
	}
	return t, nil
}

func (t *Trust) empty() bool {
	if t == nil {
		return true
	}
	n := len(t.raw)
	if t.sigstore != nil {
		n++
	}
	for _, as := range t.allowed {
		n += len(as.Entries)
	}
	if t.keyring != nil {
		n += len(t.keyring.ring.Certs())
	}
	return n == 0
}

// Keyring is a set of trusted OpenPGP public keys (verify --keyring), judged
// as gpg judges them (docs/format.md#openpgp-keys).
type Keyring struct {
	// bodies are the binary keyrings read, kept so that keyrings merge as gpg
	// merges keys imported twice.
	bodies [][]byte
	ring   *openpgpkeys.Keyring
}

// keyringOf reads binary keyrings into one [Keyring].
func keyringOf(bodies [][]byte) (*Keyring, error) {
	ring := openpgpkeys.NewKeyring()
	for _, b := range bodies {
		if err := ring.Add(bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTrust, err)
		}
	}
	if err := ring.ApplyRevocationCerts(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTrust, err)
	}
	return &Keyring{bodies: bodies, ring: ring}, nil
}

// LoadKeyring reads and parses the keyring file at path (see [ParseKeyring]).
func LoadKeyring(path string) (*Keyring, error) {
	return readTrustFile(path, "keyring", ParseKeyring)
}

// MaxTrustFile is the most bytes of a trust input file read (an allowed
// signers file, a keyring, a key, a trusted root); a larger one, or one that
// does not end, is refused.
const MaxTrustFile = 16 << 20

// readTrustFile reads the trust input file at path and parses it; what names
// the input in errors ("keyring", "key").
func readTrustFile[T any](path, what string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	data, err := inputfile.Read(path, MaxTrustFile)
	if err != nil {
		return zero, fmt.Errorf("%w: reading %s: %v", ErrTrust, what, err)
	}
	k, err := parse(data)
	if err != nil {
		return zero, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return k, nil
}

// ParseKeyring parses an OpenPGP keyring: `gpg --export` output, binary or
// armored (one or more "PGP PUBLIC KEY BLOCK"s, each starting a line, text
// between them ignored, as gpg reads it; secret key blocks are read for their
// public keys), and revocation certificates (docs/format.md#openpgp-keys). An
// input holding neither a key nor a revocation certificate, or a key
// taskproof does not judge, is an error. Errors match [ErrTrust].
func ParseKeyring(data []byte) (*Keyring, error) {
	var bodies [][]byte
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0]&0x80 == 0 {
		// Text: an OpenPGP packet starts with a byte whose high bit is set.
		blocks := armorStarts(data)
		if len(blocks) == 0 {
			if bytes.Contains(data, []byte("\n:-----BEGIN PGP ")) || bytes.HasPrefix(data, []byte(":-----BEGIN PGP ")) {
				return nil, fmt.Errorf("%w: armored keyring: the block starts with \":-----BEGIN\": gpg writes the revocation certificate it keeps that way so that it is not used by accident; remove the colon to publish the revocation", ErrTrust)
			}
			return nil, fmt.Errorf("%w: neither a binary OpenPGP keyring nor an armored one (no line starts with \"-----BEGIN PGP\")", ErrTrust)
		}
		for _, at := range blocks {
			block, err := armor.Decode(bytes.NewReader(data[at:]))
			if err != nil {
				return nil, fmt.Errorf("%w: armored keyring: %v", ErrTrust, err)
			}
			if block.Type != openpgp.PublicKeyType && block.Type != openpgp.PrivateKeyType {
				return nil, fmt.Errorf("%w: armored keyring: unexpected block %q", ErrTrust, block.Type)
			}
			body, err := io.ReadAll(block.Body)
			if err != nil {
				return nil, fmt.Errorf("%w: armored keyring: %v", ErrTrust, err)
			}
			bodies = append(bodies, body)
		}
	} else {
		bodies = [][]byte{data}
	}
	k, err := keyringOf(bodies)
	if err != nil {
		return nil, err
	}
	if k.ring.Empty() {
		return nil, fmt.Errorf("%w: keyring holds no key", ErrTrust)
	}
	return k, nil
}

// armorStarts are the offsets of the armor header lines ("-----BEGIN PGP …")
// of data that start a line, each after the end of the block before it.
func armorStarts(data []byte) []int {
	var out []int
	const begin, end = "-----BEGIN PGP ", "-----END PGP "
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], []byte(begin))
		if i < 0 {
			break
		}
		at := off + i
		if at > 0 && data[at-1] != '\n' {
			off = at + len(begin)
			continue
		}
		out = append(out, at)
		j := bytes.Index(data[at:], []byte(end))
		if j < 0 {
			break
		}
		off = at + j + len(end)
	}
	return out
}

// RawKey is a trusted raw public key (docs/format.md#signatures-dsse-v1; verify --key FILE.pem).
type RawKey struct {
	// KeyID is [keys.RawKeyID] of the key: hex SHA-256 of its DER SPKI.
	KeyID string
	// Public is the parsed key: ed25519.PublicKey, *ecdsa.PublicKey (P-256) or
	// *rsa.PublicKey.
	Public crypto.PublicKey
	// Source names where the key came from (a file name), for reports.
	Source   string
	verifier rawVerifier
	// hints are the keyids that name the key (keys.RawKeyHints).
	hints []string
}

// LoadRawKey reads a PEM public key file (see [ParseRawKey]).
func LoadRawKey(path string) (*RawKey, error) {
	k, err := readTrustFile(path, "key", ParseRawKey)
	if err != nil {
		return nil, err
	}
	k.Source = path
	return k, nil
}

// ParseRawKey parses one PEM "PUBLIC KEY" (SubjectPublicKeyInfo) block of an
// ed25519, ECDSA P-256 or RSA (≥ 2048 bits) key. A private key, another type,
// or bytes beyond the block other than whitespace are errors matching
// [ErrTrust]. Signatures are then checked in the schemes
// docs/format.md#signatures-dsse-v1 reads: go-securesystemslib's (see
// signer.NewRaw), RSA PKCS#1 v1.5 and Ed25519ph.
func ParseRawKey(pemBytes []byte) (*RawKey, error) {
	block, rest := pem.Decode(pemBytes)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM block", ErrTrust)
	}
	if block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("%w: PEM block %q: want a \"PUBLIC KEY\"", ErrTrust, block.Type)
	}
	if len(strings.TrimSpace(string(rest))) != 0 {
		return nil, fmt.Errorf("%w: data after the PEM block", ErrTrust)
	}
	sv, _, id, err := keys.ParseRawSignerVerifier(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTrust, err)
	}
	v, hints := newRawVerifier(sv)
	return &RawKey{KeyID: id, Public: sv.Public(), verifier: v, hints: hints}, nil
}
