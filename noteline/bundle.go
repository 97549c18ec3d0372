package noteline

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/strictjson"
)

// Sigstore bundle media types taskproof reads (docs/format.md#note-lines): v0.1 to v0.3,
// each in both spellings sigstore has used. Any other media type, including a
// later version, is malformed.
const (
	BundleMediaType01    = "application/vnd.dev.sigstore.bundle+json;version=0.1"
	BundleMediaType02    = "application/vnd.dev.sigstore.bundle+json;version=0.2"
	BundleMediaType03    = "application/vnd.dev.sigstore.bundle+json;version=0.3"
	BundleMediaTypeV01   = "application/vnd.dev.sigstore.bundle.v0.1+json"
	BundleMediaTypeV02   = "application/vnd.dev.sigstore.bundle.v0.2+json"
	BundleMediaTypeV03   = "application/vnd.dev.sigstore.bundle.v0.3+json"
	bundleMediaTypeStart = "application/vnd.dev.sigstore.bundle"
)

// bundleVersions maps each accepted media type to its bundle version.
var bundleVersions = map[string]string{
	BundleMediaType01: "v0.1", BundleMediaTypeV01: "v0.1",
	BundleMediaType02: "v0.2", BundleMediaTypeV02: "v0.2",
	BundleMediaType03: "v0.3", BundleMediaTypeV03: "v0.3",
}

// bundleKeys are the bundle's JSON member names (protojson's camelCase
// spellings) that a key differing only by case must not shadow, at any depth:
// protojson matches names at every position. "keyid" (DSSE) and "keyId"
// (Rekor's logId) differ only by case and are both legitimate, so neither is
// listed.
var bundleKeys = strictjson.Everywhere(
	"mediaType", "verificationMaterial", "dsseEnvelope", "messageSignature",
	"payload", "payloadType", "signatures", "sig", "certificate", "rawBytes",
	"x509CertificateChain", "certificates", "publicKey", "hint", "tlogEntries",
	"timestampVerificationData", "rfc3161Timestamps", "signedTimestamp",
	"logIndex", "logId", "kindVersion", "kind", "version", "integratedTime",
	"inclusionPromise", "signedEntryTimestamp", "inclusionProof", "rootHash",
	"treeSize", "hashes", "checkpoint", "envelope", "canonicalizedBody",
	"messageDigest", "algorithm", "digest", "signature",
)

// Bundle is a decoded Sigstore bundle note line (docs/format.md#note-lines). Nothing
// in it is verified: Identity, Issuer and TlogIndex are read from the bundle as
// written, for display (`attest show`) and line ownership; package verify checks
// them against the verifier's trust.
type Bundle struct {
	// MediaType is the bundle's mediaType, one of the BundleMediaType* constants.
	MediaType string
	// Version is the bundle version: "v0.1", "v0.2" or "v0.3".
	Version string
	// Envelope is the bundle's dsseEnvelope, decoded (payload and signatures
	// as bytes).
	Envelope *dsse.Envelope
	// Identity and Issuer are the leaf certificate's subject alternative name
	// and OIDC issuer extension; "" for a bundle with a public key instead of
	// a certificate.
	Identity, Issuer string
	// KeyHint is the publicKey.hint of a bundle signed with a key instead of
	// a certificate (cosign's `attest-blob --key`); "" otherwise.
	KeyHint string
	// TlogIndex is the log index of the first transparency log entry; -1 when
	// the bundle has none.
	TlogIndex int64
	// Leaf is the signing certificate (nil for a public-key bundle).
	Leaf *x509.Certificate
	// Parsed is sigstore-go's view of the bundle, for verification.
	Parsed *bundle.Bundle
}

// IsBundle reports whether a note line claims to be a Sigstore bundle: a JSON
// object whose top-level "mediaType" member is a string starting with
// "application/vnd.dev.sigstore.bundle". It says nothing about validity: a line
// for which IsBundle is true is read with [DecodeBundle], and is malformed when
// that fails (an unknown bundle version included).
func IsBundle(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || len(line) > dsse.MaxEnvelopeSize {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		// Not valid JSON as a whole: decide on the raw text, so that a broken
		// bundle is still reported as a bundle.
		return bytes.Contains(line, []byte(`"mediaType"`)) && bytes.Contains(line, []byte(bundleMediaTypeStart))
	}
	var mt string
	if json.Unmarshal(top["mediaType"], &mt) != nil {
		return false
	}
	return strings.HasPrefix(mt, bundleMediaTypeStart)
}

// DecodeBundle decodes untrusted Sigstore bundle bytes (one note line,
// docs/format.md#note-lines, docs/format.md#limits). It refuses, with an error
// matching [dsse.ErrMalformed]: input over [dsse.MaxEnvelopeSize] bytes; invalid UTF-8,
// duplicate keys, keys differing from a bundle member name only by case,
// nesting deeper than [dsse.MaxJSONDepth]; a mediaType other than the six
// BundleMediaType* constants; anything sigstore-go's bundle parser refuses
// (unknown members, a v0.1 bundle whose tlog entries lack inclusion promises, a
// v0.2+ bundle whose entries lack inclusion proofs, a certificate chain in a
// v0.3 bundle); content other than a dsseEnvelope (a messageSignature bundle
// signs a blob, not a Statement); more than [dsse.MaxSignatures] signatures; a
// payload over [dsse.MaxPayloadSize] bytes; a leaf certificate that does not parse.
// The DSSE payloadType is not checked here (see [dsse.Envelope.CheckPayloadType]).
func DecodeBundle(data []byte) (*Bundle, error) {
	if len(data) > dsse.MaxEnvelopeSize {
		return nil, &dsse.MalformedError{Field: "bundle", Reason: fmt.Sprintf("%d bytes exceeds the limit of %d", len(data), dsse.MaxEnvelopeSize)}
	}
	if !utf8.Valid(data) {
		return nil, &dsse.MalformedError{Field: "bundle", Reason: "invalid UTF-8"}
	}
	tree, err := strictjson.Decode(data, bundleKeys)
	if err != nil {
		return nil, prefixField(dsse.StrictJSONError(err), "bundle")
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, &dsse.MalformedError{Field: "bundle", Reason: "not a JSON object"}
	}
	var top struct {
		MediaType string `json:"mediaType"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, &dsse.MalformedError{Field: "bundle.mediaType", Reason: err.Error()}
	}
	version, ok := bundleVersions[top.MediaType]
	if !ok {
		return nil, &dsse.MalformedError{Field: "bundle.mediaType", Reason: fmt.Sprintf("unsupported bundle media type %q (taskproof reads bundle v0.1 to v0.3)", top.MediaType)}
	}
	var pb bundle.Bundle
	if err := pb.UnmarshalJSON(data); err != nil {
		return nil, &dsse.MalformedError{Field: "bundle", Reason: err.Error()}
	}
	de := pb.GetDsseEnvelope()
	if de == nil {
		return nil, &dsse.MalformedError{Field: "bundle.dsseEnvelope", Reason: "missing: the bundle does not hold a DSSE envelope"}
	}
	if len(de.GetPayload()) > dsse.MaxPayloadSize {
		return nil, &dsse.MalformedError{Field: "bundle.dsseEnvelope.payload", Reason: fmt.Sprintf("decoded size exceeds the limit of %d bytes", dsse.MaxPayloadSize)}
	}
	if len(de.GetSignatures()) > dsse.MaxSignatures {
		return nil, &dsse.MalformedError{Field: "bundle.dsseEnvelope.signatures", Reason: fmt.Sprintf("%d signatures exceeds the limit of %d", len(de.GetSignatures()), dsse.MaxSignatures)}
	}
	env := &dsse.Envelope{PayloadType: de.GetPayloadType(), Payload: append([]byte(nil), de.GetPayload()...)}
	for i, s := range de.GetSignatures() {
		if len(s.GetSig()) == 0 {
			return nil, &dsse.MalformedError{Field: fmt.Sprintf("bundle.dsseEnvelope.signatures[%d].sig", i), Reason: "empty"}
		}
		env.Signatures = append(env.Signatures, dsse.Signature{KeyID: s.GetKeyid(), Sig: append([]byte(nil), s.GetSig()...)})
	}
	b := &Bundle{MediaType: top.MediaType, Version: version, Envelope: env, TlogIndex: -1, Parsed: &pb}
	vm := pb.GetVerificationMaterial()
	var leafDER []byte
	switch {
	case vm.GetCertificate() != nil:
		leafDER = vm.GetCertificate().GetRawBytes()
	case vm.GetX509CertificateChain() != nil && len(vm.GetX509CertificateChain().GetCertificates()) > 0:
		leafDER = vm.GetX509CertificateChain().GetCertificates()[0].GetRawBytes()
	}
	if leafDER != nil {
		leaf, err := x509.ParseCertificate(leafDER)
		if err != nil {
			return nil, &dsse.MalformedError{Field: "bundle.verificationMaterial.certificate", Reason: err.Error()}
		}
		b.Leaf = leaf
		if sum, err := certificate.SummarizeCertificate(leaf); err == nil {
			b.Identity, b.Issuer = sum.SubjectAlternativeName, sum.Issuer
		}
	}
	if pk := vm.GetPublicKey(); pk != nil {
		b.KeyHint = pk.GetHint()
	}
	if tl := vm.GetTlogEntries(); len(tl) > 0 {
		b.TlogIndex = tl[0].GetLogIndex()
	}
	return b, nil
}

// CertificateFingerprint is the lowercase hex SHA-256 of a certificate's DER
// bytes: the keyid taskproof reports for a Sigstore signature.
func CertificateFingerprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	return hex.EncodeToString(sum[:])
}

// prefixField puts prefix before the field a *dsse.MalformedError names.
func prefixField(err error, prefix string) error {
	var me *dsse.MalformedError
	if errors.As(err, &me) {
		if me.Field == "" {
			return &dsse.MalformedError{Field: prefix, Reason: me.Reason}
		}
		return &dsse.MalformedError{Field: prefix + "." + me.Field, Reason: me.Reason}
	}
	return err
}
