package signer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/inputfile"
	"github.com/taskproof/taskproof/keys"
)

// MaxKeyFile is the most bytes of a key file read (a private key, a public
// key beside it, an OpenPGP secret key); a larger one, or one that does not
// end, is refused.
const MaxKeyFile = 1 << 20

// Kind names a signer kind ([keys.Kind]).
type Kind = keys.Kind

// Signer kinds ([keys.Kind]).
const (
	KindSSH     = keys.KindSSH
	KindOpenPGP = keys.KindOpenPGP
	KindRaw     = keys.KindRaw
)

// Errors of signer construction and signing.
var (
	// ErrPassphraseRequired: the key is encrypted and no passphrase was given.
	// The CLI then prompts (or reads --key-passphrase-env) and retries.
	ErrPassphraseRequired = errors.New("key is encrypted: passphrase required")
	// ErrBadPassphrase: the passphrase does not decrypt the key.
	ErrBadPassphrase = errors.New("incorrect passphrase")
	// ErrUnsupportedKey: the key's type, curve or size is not one
	// docs/format.md#signatures-dsse-v1 allows ([keys.ErrUnsupportedKey]).
	ErrUnsupportedKey = keys.ErrUnsupportedKey
	// ErrNoSigningKey: the key material holds no usable signing key (no secret
	// key, no signing-capable key, or more than one candidate).
	ErrNoSigningKey = errors.New("no usable signing key")
	// ErrAgent: ssh-agent is unreachable or does not hold the requested key.
	ErrAgent = errors.New("ssh-agent")
	// ErrTooManySignatures: more signers than an envelope may carry (docs/format.md#limits).
	ErrTooManySignatures = errors.New("too many signatures")
	// ErrPayloadTooLarge: the statement exceeds dsse.MaxPayloadSize (docs/format.md#limits).
	ErrPayloadTooLarge = errors.New("payload too large")
)

// Signer signs DSSE pre-authentication encodings in-process
// (docs/format.md#signatures-dsse-v1). Sign receives the PAE bytes and returns
// the bytes that become the envelope's sig before base64: armored SSHSIG text
// (KindSSH), an armored OpenPGP detached signature (KindOpenPGP) or the raw
// signature (KindRaw). KeyID is the keyid hint written beside it.
type Signer interface {
	Kind() Kind
	KeyID() string
	Sign(pae []byte) ([]byte, error)
}

// dsseSigner adapts a Signer to go-securesystemslib's dsse.Signer.
type dsseSigner struct{ s Signer }

func (d dsseSigner) Sign(_ context.Context, data []byte) ([]byte, error) { return d.s.Sign(data) }
func (d dsseSigner) KeyID() (string, error)                              { return d.s.KeyID(), nil }

// Sign wraps statement (the canonical Statement bytes,
// docs/format.md#statements) in a DSSE v1 envelope with payloadType
// [dsse.PayloadType] and one signature per signer, in the order given, each over
// PAE(payloadType, statement) (docs/format.md#signatures-dsse-v1). It fails for
// no signers, more than [dsse.MaxSignatures] signers, a statement over
// [dsse.MaxPayloadSize] bytes, or any signer's error.
func Sign(ctx context.Context, statement []byte, signers ...Signer) (*dsse.Envelope, error) {
	if len(statement) > dsse.MaxPayloadSize {
		return nil, fmt.Errorf("signing statement of %d bytes: %w (limit %d)", len(statement), ErrPayloadTooLarge, dsse.MaxPayloadSize)
	}
	if len(signers) > dsse.MaxSignatures {
		return nil, fmt.Errorf("signing with %d signers: %w (limit %d)", len(signers), ErrTooManySignatures, dsse.MaxSignatures)
	}
	adapters := make([]ssldsse.Signer, 0, len(signers))
	for _, s := range signers {
		if s != nil {
			adapters = append(adapters, dsseSigner{s})
		}
	}
	es, err := ssldsse.NewEnvelopeSigner(adapters...)
	if err != nil {
		return nil, fmt.Errorf("signing statement: %w", err)
	}
	de, err := es.SignPayload(ctx, dsse.PayloadType, statement)
	if err != nil {
		return nil, fmt.Errorf("signing statement: %w", err)
	}
	env := &dsse.Envelope{PayloadType: de.PayloadType, Payload: append([]byte(nil), statement...)}
	for _, s := range de.Signatures {
		sig, err := dsse.DecodeBase64(s.Sig)
		if err != nil {
			return nil, fmt.Errorf("signing statement: re-reading signature: %w", err)
		}
		env.Signatures = append(env.Signatures, dsse.Signature{KeyID: s.KeyID, Sig: sig})
	}
	return env, nil
}

// Load builds a signer of kind from keyRef, the way git's user.signingKey
// names keys:
//   - KindSSH: a private key file (OpenSSH or PEM, see [NewSSH]); a public
//     key file, a "key::<authorized key>" literal or a "SHA256:…" fingerprint
//     select a key held by ssh-agent (SSH_AUTH_SOCK).
//   - KindOpenPGP: an armored OpenPGP secret key file.
//   - KindRaw: a PEM private key file ([NewRaw]).
//
// passphrase decrypts an encrypted key; nil for none. Errors: the file's read
// error (wrapped), [ErrPassphraseRequired] (an encrypted key and no
// passphrase), [ErrBadPassphrase], [ErrUnsupportedKey] (a key type
// docs/format.md#signatures-dsse-v1 does not allow), [ErrNoSigningKey] (no
// usable secret key in the file), [ErrAgent] (the agent is unreachable or
// lacks the key), and an error for a kind Load does not build (Sigstore signs
// with [NewSigstore]).
func Load(kind Kind, keyRef string, passphrase []byte) (Signer, error) {
	switch kind {
	case KindSSH:
		if strings.HasPrefix(keyRef, "key::") || strings.HasPrefix(keyRef, "SHA256:") {
			return newSSHAgent(keyRef)
		}
		data, err := inputfile.Read(keyRef, MaxKeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading ssh signing key: %w", err)
		}
		if isSSHPublicKey(data) {
			return newSSHAgent(keyRef)
		}
		return newSSHSignerFromBytes(data, keyRef, passphrase)
	case KindOpenPGP:
		data, err := inputfile.Read(keyRef, MaxKeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading openpgp signing key: %w", err)
		}
		return newOpenPGP(data, passphrase)
	case KindRaw:
		data, err := inputfile.Read(keyRef, MaxKeyFile)
		if err != nil {
			return nil, fmt.Errorf("loading raw signing key: %w", err)
		}
		return NewRaw(data)
	default:
		return nil, fmt.Errorf("loading signer: unknown kind %q (want ssh, openpgp or raw)", kind)
	}
}
