package signer

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/keys"
)

// KindSigstore is the kind of a Sigstore bundle's signature ([keys.KindSigstore]).
const KindSigstore = keys.KindSigstore

// ErrSigstore is matched by every error of Sigstore signing: no OIDC token,
// Fulcio or Rekor unreachable or refusing, a timeout. The CLI maps it to exit
// code 3 (a trust or configuration error).
var ErrSigstore = errors.New("sigstore signing")

// LineSigner is a [Signer] that writes a whole note line instead of one DSSE
// signature: the Sigstore signer, whose line is a bundle
// (docs/format.md#note-lines). The writers of package attest call SignLine
// with the canonical statement when it is the only signer; it cannot be
// combined with other signers (a bundle holds exactly one signature).
type LineSigner interface {
	Signer
	SignLine(ctx context.Context, statement []byte) ([]byte, error)
}

// SigstoreOptions configure a [Sigstore]. Either the URLs (with IDToken)
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

// Sigstore signs statements keylessly (docs/format.md#note-lines): an ephemeral
// ECDSA P-256 key, a Fulcio certificate for the OIDC identity (requested once
// and reused for every statement the signer signs), one Rekor entry per
// statement; each statement becomes a Sigstore bundle v0.3 whose dsseEnvelope
// holds it, written as the note line. It is a [LineSigner]; its Sign method
// refuses (a bundle is not a DSSE signature).
type Sigstore struct {
	opts    SigstoreOptions
	keypair *sign.EphemeralKeypair
	certs   *cachedCertificate
	tlogs   []sign.Transparency

	mu       sync.Mutex
	identity string // the certificate's SAN, once issued
}

// NewSigstore builds a Sigstore signer. It fails with [ErrSigstore] when
// neither FulcioURL (with IDToken) nor CertificateProvider is given, or
// neither RekorURL nor TransparencyLogs: taskproof never signs keylessly
// without a transparency log. Nothing is contacted until SignLine.
func NewSigstore(opts SigstoreOptions) (*Sigstore, error) {
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
	return &Sigstore{opts: opts, keypair: kp, certs: &cachedCertificate{inner: provider}, tlogs: tlogs}, nil
}

// Kind returns [KindSigstore].
func (s *Sigstore) Kind() Kind { return KindSigstore }

// KeyID returns the certificate identity (its subject alternative name) once a
// statement has been signed, "" before.
func (s *Sigstore) KeyID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identity
}

// Sign refuses: a Sigstore signature is written as a whole bundle
// ([Sigstore.SignLine]), never as one DSSE signature beside others.
func (s *Sigstore) Sign([]byte) ([]byte, error) {
	return nil, fmt.Errorf("%w: the sigstore signer writes bundles, not DSSE signatures (it cannot re-sign an existing envelope)", ErrSigstore)
}

// SignLine signs statement (canonical Statement bytes, docs/format.md#statements) and returns the
// Sigstore bundle v0.3 JSON, one line, whose dsseEnvelope (payloadType
// [dsse.PayloadType]) holds it. Every request is bounded by the signer's timeout.
// Errors match [ErrSigstore] (or [ErrPayloadTooLarge]).
func (s *Sigstore) SignLine(ctx context.Context, statement []byte) ([]byte, error) {
	if len(statement) > dsse.MaxPayloadSize {
		return nil, fmt.Errorf("signing statement of %d bytes: %w (limit %d)", len(statement), ErrPayloadTooLarge, dsse.MaxPayloadSize)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	content := &sign.DSSEData{Data: statement, PayloadType: dsse.PayloadType}
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
