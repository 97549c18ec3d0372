package trust

import (
	"bytes"
	"context"
	"crypto"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/noteline"
)

// verifyKeyBundle checks a Sigstore bundle whose verification material is a
// public key, not a certificate (what `cosign attest-blob --key` writes in
// the bundle format; docs/format.md#sigstore-bundles-signed-with-a-key). It
// verifies like a DSSE envelope signed by that key: the signature over
// PAE(payloadType, payload) must verify with a trusted raw key (the bundle's
// publicKey.hint is a hint, as a keyid is), and is credited to that key, kind
// raw. What the bundle adds is checked as for a keyless bundle: its
// transparency log entries and signed timestamps, with the Sigstore trust's
// trusted root and thresholds, by sigstore-go. Without a Sigstore trust a
// bundle that carries entries or timestamps is untrusted (they cannot be
// checked), and one that carries none verifies as the envelope it holds.
//
// refusal is set when sigstore-go's subject check (the statement's gitCommit
// subject is commit) refused a bundle that verifies otherwise.
func verifyKeyBundle(b *noteline.Bundle, trust *Trust, commit gitref.Hash) (r SignatureResult, refusal string) {
	hint := b.Parsed.GetVerificationMaterial().GetPublicKey().GetHint()
	s := b.Envelope.Signatures[0]
	r = verifyRaw(b.Envelope.PAE(), dsse.Signature{KeyID: hint, Sig: s.Sig}, trust)
	r.KeyIDHint = hint
	if r.Status != OK {
		r.Reason = "sigstore bundle signed with a key: " + r.Reason
		return r, ""
	}
	key := trust.rawKey(r.KeyID)
	tlogs, stamps := len(b.Parsed.GetVerificationMaterial().GetTlogEntries()), 0
	if ts, err := b.Parsed.Timestamps(); err == nil {
		stamps = len(ts)
	}
	st := trust.sigstore
	if st == nil {
		if tlogs+stamps > 0 {
			return fail(keys.KindRaw, UntrustedSigner, "sigstore bundle signed with the trusted key %s carries %d transparency log entries and %d signed timestamps, which need a Sigstore trusted root to be checked (--trusted-root FILE or --sigstore-public-good)",
				key.KeyID, tlogs, stamps), ""
		}
		return r, ""
	}
	v, err := st.newVerifier(root.TrustedMaterialCollection{st.material, &keyMaterial{key: key}})
	if err != nil {
		return fail(keys.KindRaw, UntrustedSigner, "sigstore bundle signed with the key %s: %v", key.KeyID, err), ""
	}
	refusal, err = verifyWithSubject(v, b, commit, sgverify.WithKey())
	if err != nil {
		return fail(keys.KindRaw, UntrustedSigner, "sigstore bundle signed with the key %s not trusted (%s): %v", key.KeyID, st.description, err), ""
	}
	return r, refusal
}

// verifyWithSubject runs sigstore-go's verification of b with its subject
// check (the statement names commit as a gitCommit subject). When only that
// check fails — the bundle verifies without it — the error is nil and refusal
// says why: the statement is signed, but about another commit, which the
// caller reports as the subject check of docs/format.md#checks-in-order
// does.
func verifyWithSubject(v *sgverify.Verifier, b *noteline.Bundle, commit gitref.Hash, opts ...sgverify.PolicyOption) (refusal string, err error) {
	digest, derr := hex.DecodeString(string(commit))
	if derr == nil && len(digest) > 0 {
		_, err = v.Verify(b.Parsed, sgverify.NewPolicy(sgverify.WithArtifactDigest("gitCommit", digest), opts...))
		if err == nil {
			return "", nil
		}
	}
	if _, werr := v.Verify(b.Parsed, sgverify.NewPolicy(sgverify.WithoutArtifactUnsafe(), opts...)); werr != nil {
		return "", werr
	}
	if err == nil {
		return fmt.Sprintf("sigstore-go's subject check cannot read commit %q", commit), nil
	}
	return "sigstore-go's subject check: " + err.Error(), nil
}

// rawKey is the trusted raw key whose report keyid is id.
func (t *Trust) rawKey(id string) *RawKey {
	for _, k := range t.raw {
		if k.KeyID == id {
			return k
		}
	}
	return nil
}

// keyMaterial is trusted material holding one trusted raw key, returned for
// any hint: the key that verified the signature is the one sigstore-go must
// check the transparency log entries against (the hint decides nothing).
type keyMaterial struct {
	root.BaseTrustedMaterial
	key *RawKey
}

func (m *keyMaterial) PublicKeyVerifier(string) (root.TimeConstrainedVerifier, error) {
	return keyVerifier{m.key}, nil
}

// keyVerifier is a trusted raw key as a sigstore signature verifier, checking
// the schemes docs/format.md#signatures-dsse-v1 reads. A raw key has no
// validity window.
type keyVerifier struct{ key *RawKey }

func (v keyVerifier) PublicKey(...signature.PublicKeyOption) (crypto.PublicKey, error) {
	return v.key.Public, nil
}

func (v keyVerifier) VerifySignature(sig, message io.Reader, _ ...signature.VerifyOption) error {
	// Both are bounded by the bundle's own limits (docs/format.md#limits).
	s, err := io.ReadAll(io.LimitReader(sig, dsse.MaxEnvelopeSize))
	if err != nil {
		return err
	}
	var m bytes.Buffer
	if _, err := io.Copy(&m, io.LimitReader(message, 2*dsse.MaxEnvelopeSize)); err != nil {
		return err
	}
	return v.key.verifier.Verify(context.Background(), m.Bytes(), s)
}

func (keyVerifier) ValidAtTime(time.Time) bool { return true }
