package attest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
)

// KindSigstore is the kind of a Sigstore bundle's signature (docs/format.md#note-lines):
// a keyless signature by a short-lived Fulcio certificate, logged in Rekor.
const KindSigstore Kind = "sigstore"

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
// spellings) that a key differing only by case must not shadow. "keyid" (DSSE)
// and "keyId" (Rekor's logId) differ only by case and are both legitimate, so
// neither is listed.
var bundleKeys = []string{
	"mediaType", "verificationMaterial", "dsseEnvelope", "messageSignature",
	"payload", "payloadType", "signatures", "sig", "certificate", "rawBytes",
	"x509CertificateChain", "certificates", "publicKey", "hint", "tlogEntries",
	"timestampVerificationData", "rfc3161Timestamps", "signedTimestamp",
	"logIndex", "logId", "kindVersion", "kind", "version", "integratedTime",
	"inclusionPromise", "signedEntryTimestamp", "inclusionProof", "rootHash",
	"treeSize", "hashes", "checkpoint", "envelope", "canonicalizedBody",
	"messageDigest", "algorithm", "digest", "signature",
}

// ErrSigstore is matched by every error of Sigstore signing: no OIDC token,
// Fulcio or Rekor unreachable or refusing, a timeout. The CLI maps it to exit
// code 3 (a trust or configuration error).
var ErrSigstore = errors.New("sigstore signing")

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
	Envelope *Envelope
	// Identity and Issuer are the leaf certificate's subject alternative name
	// and OIDC issuer extension; "" for a bundle with a public key instead of
	// a certificate.
	Identity, Issuer string
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
	if len(line) == 0 || line[0] != '{' || len(line) > MaxEnvelopeSize {
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
// matching [ErrMalformed]: input over [MaxEnvelopeSize] bytes; invalid UTF-8,
// duplicate keys, keys differing from a bundle member name only by case,
// nesting deeper than [MaxJSONDepth]; a mediaType other than the six
// BundleMediaType* constants; anything sigstore-go's bundle parser refuses
// (unknown members, a v0.1 bundle whose tlog entries lack inclusion promises, a
// v0.2+ bundle whose entries lack inclusion proofs, a certificate chain in a
// v0.3 bundle); content other than a dsseEnvelope (a messageSignature bundle
// signs a blob, not a Statement); more than [MaxSignatures] signatures; a
// payload over [MaxPayloadSize] bytes; a leaf certificate that does not parse.
// The DSSE payloadType is not checked here (see [Envelope.CheckPayloadType]).
func DecodeBundle(data []byte) (*Bundle, error) {
	if len(data) > MaxEnvelopeSize {
		return nil, &MalformedError{Field: "bundle", Reason: fmt.Sprintf("%d bytes exceeds the limit of %d", len(data), MaxEnvelopeSize)}
	}
	if err := checkStrictJSON(data, bundleKeys); err != nil {
		return nil, prefixField(err, "bundle")
	}
	var top struct {
		MediaType string `json:"mediaType"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, &MalformedError{Field: "bundle.mediaType", Reason: err.Error()}
	}
	version, ok := bundleVersions[top.MediaType]
	if !ok {
		return nil, &MalformedError{Field: "bundle.mediaType", Reason: fmt.Sprintf("unsupported bundle media type %q (taskproof reads bundle v0.1 to v0.3)", top.MediaType)}
	}
	var pb bundle.Bundle
	if err := pb.UnmarshalJSON(data); err != nil {
		return nil, &MalformedError{Field: "bundle", Reason: err.Error()}
	}
	de := pb.GetDsseEnvelope()
	if de == nil {
		return nil, &MalformedError{Field: "bundle.dsseEnvelope", Reason: "missing: the bundle does not hold a DSSE envelope"}
	}
	if len(de.GetPayload()) > MaxPayloadSize {
		return nil, &MalformedError{Field: "bundle.dsseEnvelope.payload", Reason: fmt.Sprintf("decoded size exceeds the limit of %d bytes", MaxPayloadSize)}
	}
	if len(de.GetSignatures()) > MaxSignatures {
		return nil, &MalformedError{Field: "bundle.dsseEnvelope.signatures", Reason: fmt.Sprintf("%d signatures exceeds the limit of %d", len(de.GetSignatures()), MaxSignatures)}
	}
	env := &Envelope{PayloadType: de.GetPayloadType(), Payload: append([]byte(nil), de.GetPayload()...)}
	for i, s := range de.GetSignatures() {
		if len(s.GetSig()) == 0 {
			return nil, &MalformedError{Field: fmt.Sprintf("bundle.dsseEnvelope.signatures[%d].sig", i), Reason: "empty"}
		}
		env.Signatures = append(env.Signatures, Signature{KeyID: s.GetKeyid(), Sig: append([]byte(nil), s.GetSig()...)})
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
			return nil, &MalformedError{Field: "bundle.verificationMaterial.certificate", Reason: err.Error()}
		}
		b.Leaf = leaf
		if sum, err := certificate.SummarizeCertificate(leaf); err == nil {
			b.Identity, b.Issuer = sum.SubjectAlternativeName, sum.Issuer
		}
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

// LineSigner is a [Signer] that writes a whole note line instead of one DSSE
// signature: the Sigstore signer, whose line is a bundle. [Tick], [Decide] and
// [Carry] call SignLine with the canonical statement when it is the only
// signer; it cannot be combined with other signers (a bundle holds exactly one
// signature).
type LineSigner interface {
	Signer
	SignLine(ctx context.Context, statement []byte) ([]byte, error)
}

// signedLine returns the note line for one statement: a LineSigner's line when
// the only signer is one, else the DSSE envelope signed by every signer (or
// unsigned for none).
func signedLine(ctx context.Context, statement []byte, signers []Signer) ([]byte, error) {
	var ls LineSigner
	for _, s := range signers {
		if l, ok := s.(LineSigner); ok {
			ls = l
		}
	}
	if ls != nil {
		if len(signers) != 1 {
			return nil, fmt.Errorf("%w: the %s signer writes a bundle with exactly one signature and cannot be combined with other signers", ErrRequest, ls.Kind())
		}
		return ls.SignLine(ctx, statement)
	}
	env, err := envelopeFor(ctx, statement, signers)
	if err != nil {
		return nil, err
	}
	return env.MarshalJSON()
}

// SigstoreOptions configure a [SigstoreSigner]. Either the URLs (with IDToken)
// or the injected providers must be given.
type SigstoreOptions struct {
	// FulcioURL is the Fulcio instance issuing the signing certificate
	// (e.g. https://fulcio.sigstore.dev).
	FulcioURL string
	// RekorURL is the Rekor (v1 API) instance logging each signature
	// (e.g. https://rekor.sigstore.dev).
	RekorURL string
	// IDToken is the OIDC identity token sent to Fulcio (a JWT).
	IDToken string
	// Timeout bounds every network request and the whole signing of one
	// statement; zero means 30 seconds.
	Timeout time.Duration
	// CertificateProvider, when set, replaces Fulcio (a private CA, tests).
	CertificateProvider sign.CertificateProvider
	// TransparencyLogs, when set, replace Rekor (tests, other logs).
	TransparencyLogs []sign.Transparency
	// TrustedRoot, when set, is used by sigstore-go to verify each bundle right
	// after it is made.
	TrustedRoot root.TrustedMaterial
}

// SigstoreSigner signs statements keylessly (docs/format.md#note-lines): an ephemeral
// ECDSA P-256 key, a Fulcio certificate for the OIDC identity (requested once
// and reused for every statement the signer signs), one Rekor entry per
// statement; each statement becomes a Sigstore bundle v0.3 whose dsseEnvelope
// holds it, written as the note line. It is a [LineSigner]; its Sign method
// refuses (a bundle is not a DSSE signature).
type SigstoreSigner struct {
	opts    SigstoreOptions
	keypair *sign.EphemeralKeypair
	certs   *cachedCertificate
	tlogs   []sign.Transparency

	mu       sync.Mutex
	identity string // the certificate's SAN, once issued
}

// NewSigstoreSigner builds a Sigstore signer. It fails with [ErrSigstore] when
// neither FulcioURL (with IDToken) nor CertificateProvider is given, or
// neither RekorURL nor TransparencyLogs: taskproof never signs keylessly
// without a transparency log. Nothing is contacted until SignLine.
func NewSigstoreSigner(opts SigstoreOptions) (*SigstoreSigner, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	provider := opts.CertificateProvider
	if provider == nil {
		if opts.FulcioURL == "" {
			return nil, fmt.Errorf("%w: no Fulcio URL (e.g. https://fulcio.sigstore.dev)", ErrSigstore)
		}
		if opts.IDToken == "" {
			return nil, fmt.Errorf("%w: no OIDC identity token (from an environment variable or a file)", ErrSigstore)
		}
		provider = sign.NewFulcio(&sign.FulcioOptions{BaseURL: opts.FulcioURL, Timeout: opts.Timeout})
	}
	tlogs := opts.TransparencyLogs
	if len(tlogs) == 0 {
		if opts.RekorURL == "" {
			return nil, fmt.Errorf("%w: no Rekor URL (e.g. https://rekor.sigstore.dev): taskproof does not sign keylessly without a transparency log", ErrSigstore)
		}
		tlogs = []sign.Transparency{sign.NewRekor(&sign.RekorOptions{BaseURL: opts.RekorURL, Timeout: opts.Timeout})}
	}
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		return nil, fmt.Errorf("%w: ephemeral key: %v", ErrSigstore, err)
	}
	return &SigstoreSigner{opts: opts, keypair: kp, certs: &cachedCertificate{inner: provider}, tlogs: tlogs}, nil
}

// Kind returns [KindSigstore].
func (s *SigstoreSigner) Kind() Kind { return KindSigstore }

// KeyID returns the certificate identity (its subject alternative name) once a
// statement has been signed, "" before.
func (s *SigstoreSigner) KeyID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identity
}

// Sign refuses: a Sigstore signature is written as a whole bundle
// ([SigstoreSigner.SignLine]), never as one DSSE signature beside others.
func (s *SigstoreSigner) Sign([]byte) ([]byte, error) {
	return nil, fmt.Errorf("%w: the sigstore signer writes bundles, not DSSE signatures (it cannot re-sign an existing envelope)", ErrSigstore)
}

// SignLine signs statement (canonical Statement bytes, docs/format.md#statements) and returns the
// Sigstore bundle v0.3 JSON, one line, whose dsseEnvelope (payloadType
// [PayloadType]) holds it. Every request is bounded by the signer's timeout.
// Errors match [ErrSigstore] (or [ErrPayloadTooLarge]).
func (s *SigstoreSigner) SignLine(ctx context.Context, statement []byte) ([]byte, error) {
	if len(statement) > MaxPayloadSize {
		return nil, fmt.Errorf("signing statement of %d bytes: %w (limit %d)", len(statement), ErrPayloadTooLarge, MaxPayloadSize)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	content := &sign.DSSEData{Data: statement, PayloadType: PayloadType}
	pb, err := sign.Bundle(content, s.keypair, sign.BundleOptions{
		CertificateProvider:        s.certs,
		CertificateProviderOptions: &sign.CertificateProviderOptions{IDToken: s.opts.IDToken},
		TransparencyLogs:           s.tlogs,
		Context:                    ctx,
		TrustedRoot:                s.opts.TrustedRoot,
	})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: timed out after %s: %v", ErrSigstore, s.opts.Timeout, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrSigstore, err)
	}
	line, err := (&bundle.Bundle{Bundle: pb}).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%w: writing the bundle: %v", ErrSigstore, err)
	}
	// protojson may write a space after ':' or ',' (it randomises whitespace);
	// re-encode compactly so that the line has one stable form.
	var buf bytes.Buffer
	if err := json.Compact(&buf, line); err != nil {
		return nil, fmt.Errorf("%w: writing the bundle: %v", ErrSigstore, err)
	}
	if der := s.certs.leaf(); der != nil {
		if cert, err := x509.ParseCertificate(der); err == nil {
			if sum, err := certificate.SummarizeCertificate(cert); err == nil {
				s.mu.Lock()
				s.identity = sum.SubjectAlternativeName
				s.mu.Unlock()
			}
		}
	}
	return buf.Bytes(), nil
}

// cachedCertificate asks its provider once per signer: the ephemeral key is the
// same for every statement, so one certificate covers them all (Fulcio's are
// valid ten minutes).
type cachedCertificate struct {
	inner sign.CertificateProvider
	mu    sync.Mutex
	der   []byte
}

func (c *cachedCertificate) GetCertificate(ctx context.Context, kp sign.Keypair, opts *sign.CertificateProviderOptions) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.der != nil {
		if cert, err := x509.ParseCertificate(c.der); err == nil && time.Now().Before(cert.NotAfter.Add(-30*time.Second)) {
			return c.der, nil
		}
	}
	der, err := c.inner.GetCertificate(ctx, kp, opts)
	if err != nil {
		return nil, fmt.Errorf("getting a signing certificate: %w", err)
	}
	c.der = der
	return der, nil
}

func (c *cachedCertificate) leaf() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.der
}
