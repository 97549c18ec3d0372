package trust

import (
	"errors"
	"fmt"
	"time"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/inputfile"
	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/noteline"
)

// SigstoreOptions are the verifier's Sigstore trust (docs/format.md#note-lines): a
// trusted root, the certificate identity expected (exact, or a regular
// expression matched against the whole identity) and its OIDC issuer (exact),
// and how many transparency log entries and signed timestamps a bundle must
// carry.
type SigstoreOptions struct {
	// TrustedRoot holds the Fulcio CAs, Rekor logs and timestamp authorities
	// trusted (see [LoadTrustedRoot], [PublicGoodTrustedRoot]).
	TrustedRoot root.TrustedMaterial
	// Identity is the exact certificate identity (subject alternative name: a
	// workflow URI, an e-mail address); IdentityRegexp a regular expression for
	// it, which must parse on its own and is then anchored: taskproof matches
	// ^(?:IdentityRegexp)$. At most one; with neither (and no Issuer) the trust
	// checks only the transparency log entries and timestamps of bundles
	// signed with a trusted raw key, and trusts no certificate.
	Identity, IdentityRegexp string
	// Issuer is the exact OIDC issuer (e.g.
	// https://token.actions.githubusercontent.com); required with an identity.
	Issuer string
	// TlogThreshold is how many verified transparency log entries a bundle
	// needs; 0 means 1. Requiring none takes TlogThresholdZeroUnsafe.
	TlogThreshold int
	// TlogThresholdZeroUnsafe accepts bundles without a transparency log entry.
	TlogThresholdZeroUnsafe bool
	// TimestampThreshold is how many verified RFC 3161 signed timestamps a
	// bundle needs (default 0).
	TimestampThreshold int
	// Description names the trust input in reports ("trusted root FILE").
	Description string
}

// SigstoreTrust is the verifier's checked Sigstore trust; build it with
// [NewSigstoreTrust] and add it to a [Trust] with [WithSigstore].
type SigstoreTrust struct {
	material      root.TrustedMaterial
	identity      string
	pattern       *identityPattern
	issuer        string
	tlogThreshold int
	tsThreshold   int
	verifier      *sgverify.Verifier
	verifierOpts  []sgverify.VerifierOption
	identityOpt   sgverify.PolicyOption // nil: no certificate identity is trusted
	description   string
}

// NewSigstoreTrust checks o and builds the sigstore-go verifier and policy.
// Errors match [ErrTrust]: no trusted root, no identity or both forms, an
// identity regexp that does not compile, no issuer, a negative threshold.
//
// Time: with a transparency log or timestamp threshold of at least 1, the
// certificate must be valid at a verified observer time (Rekor's integrated
// time, an RFC 3161 timestamp): times countersigned by a trusted log or
// authority, never by the signer. With both thresholds at 0 it must be valid
// at the current time — which a Fulcio certificate (ten minutes) no longer is
// soon after signing. sigstore-go uses its own clock for that check: --at does
// not apply to it.
func NewSigstoreTrust(o SigstoreOptions) (*SigstoreTrust, error) {
	if o.TrustedRoot == nil {
		return nil, fmt.Errorf("%w: no trusted root (a trusted root file, or Sigstore's public-good instance)", ErrSigstoreOptions)
	}
	keysOnly := o.Identity == "" && o.IdentityRegexp == "" && o.Issuer == ""
	switch {
	case !keysOnly && o.Identity == "" && o.IdentityRegexp == "":
		return nil, fmt.Errorf("%w: a certificate identity (exact, or a regular expression) is required with an issuer", ErrSigstoreOptions)
	case o.Identity != "" && o.IdentityRegexp != "":
		return nil, fmt.Errorf("%w: give the certificate identity exact or as a regular expression, not both", ErrSigstoreOptions)
	case !keysOnly && o.Issuer == "":
		return nil, fmt.Errorf("%w: a certificate OIDC issuer is required with a certificate identity", ErrSigstoreOptions)
	case o.TlogThreshold < 0 || o.TimestampThreshold < 0:
		return nil, fmt.Errorf("%w: thresholds must not be negative", ErrSigstoreOptions)
	}
	t := &SigstoreTrust{material: o.TrustedRoot, identity: o.Identity, issuer: o.Issuer,
		tlogThreshold: o.TlogThreshold, tsThreshold: o.TimestampThreshold, description: o.Description}
	if t.tlogThreshold == 0 && !o.TlogThresholdZeroUnsafe {
		t.tlogThreshold = 1
	}
	var anchored string
	if o.IdentityRegexp != "" {
		p, err := compileIdentityPattern(o.IdentityRegexp)
		if err != nil {
			return nil, err
		}
		t.pattern, anchored = p, p.applied
	}
	var vopts []sgverify.VerifierOption
	if t.tlogThreshold > 0 {
		vopts = append(vopts, sgverify.WithTransparencyLog(t.tlogThreshold))
	}
	if t.tsThreshold > 0 {
		vopts = append(vopts, sgverify.WithSignedTimestamps(t.tsThreshold))
	}
	if t.tlogThreshold > 0 || t.tsThreshold > 0 {
		vopts = append(vopts, sgverify.WithObserverTimestamps(1))
	} else {
		vopts = append(vopts, sgverify.WithCurrentTime())
	}
	t.verifierOpts = vopts
	v, err := t.newVerifier(o.TrustedRoot)
	if err != nil {
		return nil, err
	}
	t.verifier = v
	if keysOnly {
		return t, nil
	}
	id, err := sgverify.NewShortCertificateIdentity(o.Issuer, "", o.Identity, anchored)
	if err != nil {
		return nil, fmt.Errorf("%w: sigstore: %v", ErrTrust, err)
	}
	// sigstore-go checks the statement's gitCommit subject too (with the
	// object's id as the artifact digest, verifyWithSubject); taskproof's own
	// subject check of docs/format.md#checks-in-order still applies, as for
	// every DSSE line.
	t.identityOpt = sgverify.WithCertificateIdentity(id)
	return t, nil
}

// newVerifier is a sigstore-go verifier of material with the trust's
// thresholds and time rules.
func (t *SigstoreTrust) newVerifier(material root.TrustedMaterial) (*sgverify.Verifier, error) {
	v, err := sgverify.NewVerifier(material, t.verifierOpts...)
	if err != nil {
		return nil, fmt.Errorf("%w: sigstore: %v", ErrTrust, err)
	}
	return v, nil
}

// WithSigstore trusts Sigstore bundles as st says. One Sigstore
// trust per [Trust]: a second is an error.
func WithSigstore(st *SigstoreTrust) Option {
	return func(t *Trust) error {
		if st == nil {
			return fmt.Errorf("%w: nil sigstore trust", ErrTrust)
		}
		if t.sigstore != nil {
			return fmt.Errorf("%w: sigstore trust given twice", ErrTrust)
		}
		t.sigstore = st
		return nil
	}
}

// LoadTrustedRoot reads a Sigstore trusted root JSON file (the
// trusted_root.json of a TUF repository, `cosign trusted-root create` output).
// Errors match [ErrTrust].
func LoadTrustedRoot(path string) (*root.TrustedRoot, error) {
	b, err := inputfile.Read(path, MaxTrustFile)
	if err != nil {
		return nil, fmt.Errorf("%w: reading trusted root: %v", ErrTrust, err)
	}
	tr, err := root.NewTrustedRootFromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%w: trusted root %s: %v", ErrTrust, path, err)
	}
	return tr, nil
}

// PublicGoodTrustedRoot returns the trusted root of Sigstore's public-good
// instance. sigstore-go v1.3.0 embeds only the TUF root metadata, not the
// trusted root itself: it is fetched with TUF from tuf-repo-cdn.sigstore.dev
// and cached under ~/.sigstore/root, so the first use needs the network (later
// ones read the cache while it is fresh). It gives up after timeout (a zero
// timeout means 30 seconds) with an error matching [ErrTrust].
func PublicGoodTrustedRoot(timeout time.Duration) (*root.TrustedRoot, error) {
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	type result struct {
		tr  *root.TrustedRoot
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var tr *root.TrustedRoot
		err := panics.Call(func() error {
			var err error
			tr, err = root.FetchTrustedRootWithOptions(tuf.DefaultOptions())
			return err
		})
		ch <- result{tr, err}
	}()
	select {
	case r := <-ch:
		if pe := (*panics.Error)(nil); errors.As(r.err, &pe) {
			return nil, r.err // taskproof's bug, not the trust input's
		}
		if r.err != nil {
			return nil, fmt.Errorf("%w: sigstore public-good trusted root (TUF, needs network on first use): %v", ErrTrust, r.err)
		}
		return r.tr, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("%w: sigstore public-good trusted root: no answer from TUF within %s (offline? give a trusted root file)", ErrTrust, timeout)
	}
}

// Sigstore verification errors a caller may match; the reasons of failed
// bundles are in [SignatureResult.Reason].
// ErrSigstoreOptions: the Sigstore trust options are incomplete or
// contradict each other (no trusted root, no identity or both forms, no
// issuer, a negative threshold, a bad identity expression). It matches
// [ErrTrust].
var ErrSigstoreOptions = fmt.Errorf("%w: sigstore", ErrTrust)

var errNoSigstoreTrust = errors.New("no sigstore trust (a trusted root, and a certificate identity with its OIDC issuer)")

// VerifyBundle checks a Sigstore bundle note line's signature against trust
// (docs/format.md#note-lines, docs/format.md#verification-rules) for the
// object commit and returns the same shape as [VerifySignatures] does for a
// DSSE line, with one signature of kind [keys.KindSigstore] (kind
// [keys.KindRaw] for a bundle signed with a key). In order:
//
//  1. Exactly one DSSE signature (a bundle's certificate binds one key):
//     otherwise malformed.
//  2. A bundle whose verification material is a public key verifies as an
//     envelope signed by that key, its transparency log entries and
//     timestamps checked as below (verifyKeyBundle).
//  3. The signature verifies over PAE(payloadType, payload) with the
//     certificate's key: otherwise bad_signature.
//  4. The certificate's OIDC issuer is the trusted one, exactly, and its
//     identity the trusted one, exactly or matching the anchored regexp;
//     the certificate has the code-signing leaf profile
//     ([checkCodeSigningLeaf]): otherwise untrusted_signer, naming what was
//     expected and found.
//  5. sigstore-go's verification with the trusted root (chain to a trusted
//     Fulcio CA, transparency log entries and timestamps up to the
//     thresholds, certificate validity at the verified time, the identity
//     policy again, the statement's gitCommit subject being commit):
//     otherwise untrusted_signer with sigstore-go's reason. A bundle that
//     fails only sigstore-go's subject check verifies here and is a
//     mismatch of the subject check (docs/format.md#checks-in-order), which
//     taskproof also applies itself, as for DSSE lines.
//
// The error is non-nil only for a nil bundle or a trust without input.
func VerifyBundle(b *noteline.Bundle, trust *Trust, commit gitref.Hash) (*SignaturesResult, error) {
	if b == nil || b.Envelope == nil || b.Parsed == nil {
		return nil, errors.New("verifying a sigstore bundle: nil bundle")
	}
	if trust.empty() {
		return nil, ErrNoTrust
	}
	var r SignatureResult
	var refusal string
	switch {
	case len(b.Envelope.Signatures) != 1:
		r = fail(keys.KindSigstore, Malformed, "sigstore bundle: its DSSE envelope must hold exactly one signature, found %d", len(b.Envelope.Signatures))
	case b.Leaf == nil:
		r, refusal = verifyKeyBundle(b, trust, commit)
	default:
		r, refusal = verifyBundleSignature(b, trust.sigstore, commit)
	}
	res := &SignaturesResult{Status: r.Status, Signatures: []SignatureResult{r}, subjectRefusal: refusal}
	if r.Status == OK {
		var tlog *int64
		if st := trust.sigstore; st != nil {
			material := st.material
			if k := trust.rawKey(r.KeyID); b.Leaf == nil && k != nil {
				material = root.TrustedMaterialCollection{st.material, &keyMaterial{key: k}}
			}
			tlog = verifiedTlogIndex(b, material, st.tlogThreshold)
		}
		keys := r.keys // a bundle signed with a key: the trusted raw key's
		if keys == nil {
			keys = bundleKeyNames(b)
		}
		res.Signers = []Signer{{Kind: r.Kind, KeyID: r.KeyID, Principal: r.Principal,
			Identity: b.Identity, Issuer: b.Issuer, TlogIndex: tlog, keys: keys}}
	}
	return res, nil
}

// verifyBundleSignature checks a bundle signed with a certificate (steps 3 to
// 5 of VerifyBundle).
func verifyBundleSignature(b *noteline.Bundle, st *SigstoreTrust, commit gitref.Hash) (SignatureResult, string) {
	const kind = keys.KindSigstore
	keyID := noteline.CertificateFingerprint(b.Leaf)
	withKey := func(r SignatureResult) (SignatureResult, string) {
		r.KeyID, r.KeyIDHint = keyID, b.Identity
		return r, ""
	}
	// 3. The signature verifies with the certificate's key.
	sc, err := b.Parsed.SignatureContent()
	if err != nil {
		return withKey(fail(kind, Malformed, "sigstore bundle: %v", err))
	}
	vc, err := b.Parsed.VerificationContent()
	if err != nil {
		return withKey(fail(kind, Malformed, "sigstore bundle: %v", err))
	}
	if err := sgverify.VerifySignature(sc, vc, &emptyMaterial{}); err != nil {
		return withKey(fail(kind, BadSignature, "sigstore signature by %s does not verify: %v", describe(b), err))
	}
	if st == nil || st.identityOpt == nil {
		return withKey(fail(kind, UntrustedSigner, "sigstore signature by %s: %v", describe(b), errNoSigstoreTrust))
	}
	// 4. Issuer and identity, with reasons naming both sides.
	sum, err := certificate.SummarizeCertificate(b.Leaf)
	if err != nil {
		return withKey(fail(kind, UntrustedSigner, "sigstore certificate: %v", err))
	}
	if sum.Issuer != st.issuer {
		return withKey(fail(kind, UntrustedSigner, "sigstore certificate issuer %q, want %q", sum.Issuer, st.issuer))
	}
	if st.pattern != nil {
		if !st.pattern.re.MatchString(sum.SubjectAlternativeName) {
			return withKey(fail(kind, UntrustedSigner, "sigstore certificate identity %q does not match the %s", sum.SubjectAlternativeName, st.pattern))
		}
	} else if sum.SubjectAlternativeName != st.identity {
		return withKey(fail(kind, UntrustedSigner, "sigstore certificate identity %q, want %q", sum.SubjectAlternativeName, st.identity))
	}
	if err := checkCodeSigningLeaf(b.Leaf); err != nil {
		return withKey(fail(kind, UntrustedSigner, "sigstore certificate of %s %v", describe(b), err))
	}
	// An expired certificate with nothing to show when it was used: say so
	// (sigstore-go's own message is "leaf certificate verification failed").
	if now := time.Now(); now.After(b.Leaf.NotAfter) && b.TlogIndex < 0 && !hasTimestamps(b) {
		return withKey(fail(kind, UntrustedSigner, "sigstore certificate of %s expired at %s and the bundle has no transparency log entry or signed timestamp showing it was used while valid",
			describe(b), b.Leaf.NotAfter.UTC().Format(time.RFC3339)))
	}
	// 5. The whole of sigstore-go's verification.
	refusal, err := verifyWithSubject(st.verifier, b, commit, st.identityOpt)
	if err != nil {
		return withKey(fail(kind, UntrustedSigner, "sigstore bundle by %s not trusted: %v", describe(b), err))
	}
	return SignatureResult{Kind: kind, KeyID: keyID, KeyIDHint: b.Identity, Principal: sum.SubjectAlternativeName, Status: OK}, refusal
}

func describe(b *noteline.Bundle) string {
	if b.Identity == "" {
		return "an unnamed certificate"
	}
	return fmt.Sprintf("%s (%s)", b.Identity, b.Issuer)
}

// emptyMaterial is trusted material with nothing in it: VerifySignature uses
// trusted material only to look up public keys by hint, which a certificate
// bundle never needs.
type emptyMaterial struct{ root.BaseTrustedMaterial }

func hasTimestamps(b *noteline.Bundle) bool {
	ts, err := b.Parsed.Timestamps()
	return err == nil && len(ts) > 0
}

// loadSigstore builds the Sigstore trust of src, or nil when src names none.
// Certificate identity flags without a trusted root (or the reverse) are an
// error, never silently ignored.
func loadSigstore(src Sources) (*SigstoreTrust, string, error) {
	identityGiven := src.CertIdentity != "" || src.CertIdentityRegexp != "" || src.CertOIDCIssuer != "" ||
		src.SigstoreTlogThreshold != nil || src.SigstoreTimestampThreshold != nil
	if src.TrustedRoot == "" && !src.SigstorePublicGood {
		if identityGiven {
			return nil, "", fmt.Errorf("%w: a certificate identity, OIDC issuer or threshold needs a trusted root (a file, or Sigstore's public-good instance)", ErrSigstoreOptions)
		}
		return nil, "", nil
	}
	if src.TrustedRoot != "" && src.SigstorePublicGood {
		return nil, "", fmt.Errorf("%w: give a trusted root file or Sigstore's public-good instance, not both", ErrSigstoreOptions)
	}
	o := SigstoreOptions{Identity: src.CertIdentity, IdentityRegexp: src.CertIdentityRegexp, Issuer: src.CertOIDCIssuer}
	if src.SigstoreTlogThreshold != nil {
		o.TlogThreshold = *src.SigstoreTlogThreshold
		o.TlogThresholdZeroUnsafe = *src.SigstoreTlogThreshold == 0
	}
	if src.SigstoreTimestampThreshold != nil {
		o.TimestampThreshold = *src.SigstoreTimestampThreshold
	}
	var desc string
	if src.TrustedRoot != "" {
		tr, err := LoadTrustedRoot(src.TrustedRoot)
		if err != nil {
			return nil, "", err
		}
		o.TrustedRoot, desc = tr, "sigstore trusted root "+src.TrustedRoot
	} else {
		tr, err := PublicGoodTrustedRoot(0)
		if err != nil {
			return nil, "", err
		}
		o.TrustedRoot, desc = tr, "sigstore public-good trusted root (TUF)"
	}
	st, err := NewSigstoreTrust(o)
	if err != nil {
		return nil, "", err
	}
	id := fmt.Sprintf("%q", o.Identity)
	if st.pattern != nil {
		id = st.pattern.String()
	}
	if st.identityOpt == nil {
		return st, fmt.Sprintf("%s for bundles signed with a trusted key, no certificate identity, tlog threshold %d, timestamp threshold %d", desc, st.tlogThreshold, st.tsThreshold), nil
	}
	return st, fmt.Sprintf("%s, identity %s, issuer %q, tlog threshold %d, timestamp threshold %d", desc, id, o.Issuer, st.tlogThreshold, st.tsThreshold), nil
}
