package dsse

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"

	"github.com/taskproof/taskproof/internal/strictjson"
)

// PayloadType is the DSSE payloadType of every taskproof envelope
// (docs/format.md#signatures-dsse-v1).
const PayloadType = "application/vnd.in-toto+json"

// Limits of docs/format.md#limits that apply to one envelope.
const (
	// MaxPayloadSize is the largest decoded payload, in bytes (1 MiB).
	MaxPayloadSize = 1 << 20
	// MaxSignatures is the largest number of signatures in one envelope.
	MaxSignatures = 16
	// MaxEnvelopeSize is the largest encoded envelope, in bytes: one note line
	// can be no larger than a whole note (4 MiB).
	MaxEnvelopeSize = 4 << 20
	// MaxJSONDepth is the deepest nesting of JSON arrays and objects accepted.
	MaxJSONDepth = strictjson.MaxDepth
)

// ErrMalformed is matched (errors.Is) by every error [DecodeEnvelope] returns:
// the bytes are not a well-formed DSSE envelope within the limits of docs/format.md#limits.
var ErrMalformed = errors.New("malformed envelope")

// ErrPayloadType is matched by the error of [Envelope.CheckPayloadType] when
// the payloadType is not [PayloadType]. The same error also matches
// [ErrMalformed]: docs/format.md#verification-rules checks payloadType right
// after parsing, and an envelope taskproof cannot interpret is malformed.
var ErrPayloadType = errors.New("unexpected payloadType")

// MalformedError describes why envelope bytes were refused. Field names the
// JSON member at fault ("payload", "signatures[2].sig", "" for the document).
// It matches [ErrMalformed].
type MalformedError struct {
	Field  string
	Reason string
}

func (e *MalformedError) Error() string {
	if e.Field == "" {
		return "malformed envelope: " + e.Reason
	}
	return "malformed envelope: " + e.Field + ": " + e.Reason
}

// Is reports whether target is [ErrMalformed].
func (e *MalformedError) Is(target error) bool { return target == ErrMalformed }

// PayloadTypeError is returned by [Envelope.CheckPayloadType]; it matches both
// [ErrPayloadType] and [ErrMalformed].
type PayloadTypeError struct {
	Found string
}

func (e *PayloadTypeError) Error() string {
	return fmt.Sprintf("unexpected payloadType %q: want %q", e.Found, PayloadType)
}

// Is reports whether target is [ErrPayloadType] or [ErrMalformed].
func (e *PayloadTypeError) Is(target error) bool {
	return target == ErrPayloadType || target == ErrMalformed
}

// Envelope is a decoded DSSE v1 envelope (docs/format.md#signatures-dsse-v1). Payload and each
// Signature.Sig hold decoded bytes; base64 exists only on the wire.
type Envelope struct {
	PayloadType string
	Payload     []byte
	Signatures  []Signature
}

// Signature is one DSSE signature. KeyID is the signer's hint as written (it is
// never trusted: a signature is credited to the key that verifies it); Sig is
// the decoded signature bytes, whose shape depends on the signer kind
// (docs/format.md#signatures-dsse-v1): armored SSHSIG text, an armored OpenPGP
// detached signature, or raw bytes.
type Signature struct {
	KeyID string
	Sig   []byte
}

// PAE returns the DSSE v1 pre-authentication encoding of the envelope's
// payloadType and payload, the bytes every signature covers
// (docs/format.md#signatures-dsse-v1, DSSE protocol v1):
// "DSSEv1" SP LEN(payloadType) SP payloadType SP LEN(payload) SP payload, where
// LEN is the length in bytes as ASCII decimal without leading zeros and SP one
// space.
func (e *Envelope) PAE() []byte {
	return ssldsse.PAE(e.PayloadType, e.Payload)
}

// CheckPayloadType returns a [*PayloadTypeError] unless the envelope's
// payloadType is exactly [PayloadType] (docs/format.md#signatures-dsse-v1,
// docs/format.md#verification-rules).
func (e *Envelope) CheckPayloadType() error {
	if e.PayloadType != PayloadType {
		return &PayloadTypeError{Found: e.PayloadType}
	}
	return nil
}

type wireSignature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

type wireEnvelope struct {
	Payload     string          `json:"payload"`
	PayloadType string          `json:"payloadType"`
	Signatures  []wireSignature `json:"signatures"`
}

// MarshalJSON writes the envelope as docs/format.md#signatures-dsse-v1 shows
// it, keys in byte order and no whitespace:
// {"payload":…,"payloadType":…,"signatures":[{"keyid":…,"sig":…}]}, payload and
// sig in standard padded base64. Zero signatures are written as [].
func (e *Envelope) MarshalJSON() ([]byte, error) {
	w := wireEnvelope{
		Payload:     base64.StdEncoding.EncodeToString(e.Payload),
		PayloadType: e.PayloadType,
		Signatures:  make([]wireSignature, 0, len(e.Signatures)),
	}
	for _, s := range e.Signatures {
		w.Signatures = append(w.Signatures, wireSignature{KeyID: s.KeyID, Sig: base64.StdEncoding.EncodeToString(s.Sig)})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, fmt.Errorf("encoding envelope: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// DecodeEnvelope decodes untrusted envelope bytes (one note line,
// docs/format.md#note-lines, docs/format.md#signatures-dsse-v1,
// docs/format.md#limits). It refuses, with an error matching [ErrMalformed]:
// input over [MaxEnvelopeSize], invalid UTF-8, anything but exactly one JSON
// object, nesting deeper than [MaxJSONDepth], unpaired UTF-16 surrogate
// escapes, duplicate keys (at any level) or keys differing only by case from
// the DSSE key of their position, a missing or
// non-string payload, payloadType or sig, a keyid that is present but not a
// string, signatures that is not an array of objects, more than [MaxSignatures]
// signatures, a payload over [MaxPayloadSize] bytes, an empty sig, and base64
// that is not entirely standard or entirely URL-safe (padding optional, see
// [DecodeBase64]). Unknown keys are ignored. The payloadType is not checked
// here: see [Envelope.CheckPayloadType]. An empty signatures array is accepted
// (docs/format.md#verification-rules reports it as unsigned).
func DecodeEnvelope(data []byte) (*Envelope, error) {
	if len(data) > MaxEnvelopeSize {
		return nil, &MalformedError{Reason: fmt.Sprintf("%d bytes exceeds the limit of %d", len(data), MaxEnvelopeSize)}
	}
	if !utf8.Valid(data) {
		return nil, &MalformedError{Reason: "invalid UTF-8"}
	}
	// One strict pass builds the tree (duplicate and case-variant keys, depth,
	// trailing data, unpaired surrogates).
	tree, err := strictjson.Decode(data, envelopeKeys)
	if err != nil {
		return nil, StrictJSONError(err)
	}
	top, ok := tree.(map[string]any)
	if !ok {
		return nil, &MalformedError{Reason: "not a JSON object"}
	}
	var env Envelope
	if env.PayloadType, err = stringMember(top, "payloadType", true); err != nil {
		return nil, err
	}
	payload, err := stringMember(top, "payload", true)
	if err != nil {
		return nil, err
	}
	if base64.RawStdEncoding.DecodedLen(len(strings.TrimRight(payload, "="))) > MaxPayloadSize {
		return nil, &MalformedError{Field: "payload", Reason: fmt.Sprintf("decoded size exceeds the limit of %d bytes", MaxPayloadSize)}
	}
	if env.Payload, err = DecodeBase64(payload); err != nil {
		return nil, &MalformedError{Field: "payload", Reason: err.Error()}
	}
	rawSigs, ok := top["signatures"]
	if !ok {
		return nil, &MalformedError{Field: "signatures", Reason: "missing"}
	}
	sigs, ok := rawSigs.([]any)
	if !ok {
		return nil, &MalformedError{Field: "signatures", Reason: "not an array"}
	}
	if len(sigs) > MaxSignatures {
		return nil, &MalformedError{Field: "signatures", Reason: fmt.Sprintf("%d signatures exceeds the limit of %d", len(sigs), MaxSignatures)}
	}
	env.Signatures = make([]Signature, 0, len(sigs))
	for i, raw := range sigs {
		obj, ok := raw.(map[string]any)
		if !ok {
			return nil, &MalformedError{Field: fmt.Sprintf("signatures[%d]", i), Reason: "not an object"}
		}
		keyid, err := stringMember(obj, "keyid", false)
		if err != nil {
			return nil, prefixField(err, fmt.Sprintf("signatures[%d]", i))
		}
		sig, err := stringMember(obj, "sig", true)
		if err != nil {
			return nil, prefixField(err, fmt.Sprintf("signatures[%d]", i))
		}
		if sig == "" {
			return nil, &MalformedError{Field: fmt.Sprintf("signatures[%d].sig", i), Reason: "empty"}
		}
		b, err := DecodeBase64(sig)
		if err != nil {
			return nil, &MalformedError{Field: fmt.Sprintf("signatures[%d].sig", i), Reason: err.Error()}
		}
		env.Signatures = append(env.Signatures, Signature{KeyID: keyid, Sig: b})
	}
	return &env, nil
}

// envelopeKeys is the strict decoder's known-key table of a DSSE envelope: a
// key equal to one of its member names but for case is refused, as
// encoding/json would match it case-insensitively.
var envelopeKeys = &strictjson.KnownKeys{Members: map[string]*strictjson.KnownKeys{
	"payloadType": nil,
	"payload":     nil,
	"signatures": {Elem: &strictjson.KnownKeys{Members: map[string]*strictjson.KnownKeys{
		"keyid": nil, "sig": nil,
	}}},
}}

// StrictJSONError is the [*MalformedError] of a strict-decoding error of a
// note line: a duplicate or case-variant key is named by the key alone, any
// other error is invalid JSON at the document. Readers of other JSON note
// lines (Sigstore bundles) report their strict-decoding errors through it.
func StrictJSONError(err error) error {
	var de *strictjson.DecodeError
	switch {
	case !errors.As(err, &de) || de.Key == "":
	case de.Known != "":
		return &MalformedError{Field: de.Key, Reason: fmt.Sprintf("key differs from %q only by case", de.Known)}
	default:
		return &MalformedError{Field: de.Key, Reason: de.Reason}
	}
	return &MalformedError{Reason: "invalid JSON: " + err.Error()}
}

func prefixField(err error, prefix string) error {
	var me *MalformedError
	if errors.As(err, &me) {
		return &MalformedError{Field: prefix + "." + me.Field, Reason: me.Reason}
	}
	return err
}

// stringMember returns obj[name] of a strictly decoded tree as a string. A
// member that is absent (and required), null, or not a string is a
// *MalformedError.
func stringMember(obj map[string]any, name string, required bool) (string, error) {
	v, ok := obj[name]
	if !ok {
		if required {
			return "", &MalformedError{Field: name, Reason: "missing"}
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", &MalformedError{Field: name, Reason: "not a string"}
	}
	return s, nil
}

// DecodeBase64 decodes s written in one base64 alphabet, standard (+/) or
// URL-safe (-_), with correct padding or none (docs/format.md#signatures-dsse-v1). It refuses mixed
// alphabets, misplaced or partial padding, whitespace and line breaks (which
// encoding/base64 would otherwise skip), and non-zero trailing bits, so each
// byte string has exactly one accepted spelling per alphabet and padding choice.
func DecodeBase64(s string) ([]byte, error) {
	std, url, space := base64Classes(s)
	if std && url {
		return nil, errors.New("base64 mixes the standard and URL-safe alphabets")
	}
	if space {
		return nil, errors.New("base64 contains whitespace")
	}
	padded := strings.HasSuffix(s, "=")
	var enc *base64.Encoding
	switch {
	case url && padded:
		enc = base64.URLEncoding
	case url:
		enc = base64.RawURLEncoding
	case padded:
		enc = base64.StdEncoding
	default:
		enc = base64.RawStdEncoding
	}
	b, err := enc.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("invalid base64: %w", err)
	}
	return b, nil
}

// base64Classes reports, in one pass over s (payloads and signatures are
// most of a note's bytes), whether it holds a character of the standard
// alphabet's own ("+/"), of the URL-safe one's ("-_"), and whitespace
// ("\r\n \t").
func base64Classes(s string) (std, url, space bool) {
	var seen uint8
	for i := 0; i < len(s); i++ {
		seen |= base64Class[s[i]]
	}
	return seen&classStd != 0, seen&classURL != 0, seen&classSpace != 0
}

// base64Classes' classes, by byte: a table, not a switch, for the note's
// bytes go through it one by one.
const (
	classStd = 1 << iota
	classURL
	classSpace
)

var base64Class = [256]uint8{'+': classStd, '/': classStd, '-': classURL, '_': classURL,
	'\r': classSpace, '\n': classSpace, ' ': classSpace, '\t': classSpace}
