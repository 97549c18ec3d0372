package trust

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/trust/internal/openpgpkeys"
)

// SignatureResult is the verdict on one envelope signature.
type SignatureResult struct {
	// Index is the signature's position in the envelope.
	Index int
	// Kind is the signature's kind, told from its bytes (SSH and OpenPGP armor;
	// anything else is raw).
	Kind keys.Kind
	// KeyIDHint is the keyid the envelope wrote; it decides nothing.
	KeyIDHint string
	// KeyID identifies the key that verified the signature cryptographically
	// (SSH "SHA256:…" fingerprint of the signing key, OpenPGP upper-case hex
	// primary key fingerprint, raw hex SHA-256 of the DER SPKI); "" when no key
	// verified it.
	KeyID string
	// Principal is the allowed signers principal (for a certificate: its
	// principals that the entry's patterns match, comma-joined) or the OpenPGP
	// primary user id; "" when not trusted.
	Principal string
	// Status is ok, bad_signature, untrusted_signer or malformed (see
	// [Outcome] for what each means for a signature).
	Status Outcome
	// Reason says why Status is not ok, in lower case; "" for ok.
	Reason string
	// keys name the key material of a trusted signer (signerkey.go).
	keys []string
}

// SignaturesResult is the verdict on all signatures of one envelope.
type SignaturesResult struct {
	// Status is the most severe of the per-signature statuses by
	// docs/format.md#outcomes-and-reasons precedence, or [Unsigned] for
	// zero signatures. It is [OK] only when every signature verified with
	// a trusted key: docs/format.md#verification-rules checks "every signature
	// against trust", so one bad or untrusted signature beside good ones fails
	// the envelope (the good ones are still listed).
	Status     Outcome
	Signatures []SignatureResult
	// Signers are the distinct trusted keys with an ok signature, in order of
	// first appearance; two signatures by one key count once.
	Signers []Signer
	// subjectRefusal is set when sigstore-go's subject check refused a
	// Sigstore bundle whose signature verifies (VerifyBundle): the statement
	// is about another commit, a mismatch.
	subjectRefusal string
}

// SubjectRefusal is why sigstore-go's subject check refused a Sigstore bundle
// whose signature verifies ([VerifyBundle]): the statement is about another
// commit. "" when it did not refuse.
func (r *SignaturesResult) SubjectRefusal() string { return r.subjectRefusal }

// VerifySignatures checks every signature of env against trust at the
// verifier's time at (docs/format.md#signatures-dsse-v1,
// docs/format.md#verification-rules). Each signature covers
// PAE(env.PayloadType, env.Payload); it is decoded and checked here, never by
// go-securesystemslib's EnvelopeVerifier. Validity windows (allowed signers
// valid-after/valid-before, certificate windows, OpenPGP key expiry and
// revocation) are judged at at; times the signer wrote are not trusted to widen
// them. The keyid is a hint only: a signature is credited to the key that
// verified it.
//
// The error is non-nil only for a nil envelope or a trust without input
// ([ErrNoTrust]); every verdict on the signatures is in the result.
func VerifySignatures(env *dsse.Envelope, trust *Trust, at time.Time) (*SignaturesResult, error) {
	if env == nil {
		return nil, errors.New("verifying signatures: nil envelope")
	}
	if trust.empty() {
		return nil, ErrNoTrust
	}
	res := &SignaturesResult{Status: OK}
	if len(env.Signatures) == 0 {
		res.Status = Unsigned
		return res, nil
	}
	pae := env.PAE()
	seen := map[string]bool{}
	for i, s := range env.Signatures {
		r := verifyOne(pae, s, trust, at)
		r.Index = i
		r.KeyIDHint = s.KeyID
		res.Signatures = append(res.Signatures, r)
		res.Status = Worse(res.Status, r.Status)
		if r.Status == OK {
			id := string(r.Kind) + "\x00" + r.KeyID
			if !seen[id] {
				seen[id] = true
				res.Signers = append(res.Signers, Signer{Kind: r.Kind, KeyID: r.KeyID, Principal: r.Principal, keys: r.keys})
			}
		}
	}
	return res, nil
}

const (
	sshArmorBegin = "-----BEGIN SSH SIGNATURE-----"
	pgpArmorBegin = "-----BEGIN PGP SIGNATURE-----"
)

// verifyOne tells the signature's kind from its bytes and checks it.
func verifyOne(pae []byte, s dsse.Signature, trust *Trust, at time.Time) SignatureResult {
	trimmed := bytes.TrimLeft(s.Sig, " \t\r\n")
	switch {
	case bytes.HasPrefix(trimmed, []byte(sshArmorBegin)):
		return verifySSH(pae, s.Sig, trust, at)
	case bytes.HasPrefix(trimmed, []byte(pgpArmorBegin)):
		return verifyOpenPGP(pae, s.Sig, trust, at)
	default:
		return verifyRaw(pae, s, trust)
	}
}

func fail(kind keys.Kind, status Outcome, format string, args ...any) SignatureResult {
	return SignatureResult{Kind: kind, Status: status, Reason: fmt.Sprintf(format, args...)}
}

// verifySSH checks an armored SSHSIG (docs/format.md#signatures-dsse-v1).
func verifySSH(pae, text []byte, trust *Trust, at time.Time) SignatureResult {
	const kind = keys.KindSSH
	sig, err := keys.ParseSSHSignature(text)
	if err != nil {
		return fail(kind, Malformed, "ssh signature: %v", err)
	}
	cert, _ := sig.PublicKey.(*ssh.Certificate)
	keyID := keys.SSHKeyID(sig.PublicKey)
	// The namespace binds the signature to its purpose, and the signature must
	// verify with the key it embeds (keys.VerifySSHSignature).
	if err := keys.VerifySSHSignature(pae, sig); err != nil {
		r := fail(kind, BadSignature, "%v", err)
		r.KeyID = keyID
		return r
	}
	// The key (or the certificate's CA) must be an allowed signer for
	// in-toto at the verifier's time.
	principal, reason := sshTrusted(trust, sig.PublicKey, cert, at)
	if reason != "" {
		r := fail(kind, UntrustedSigner, "ssh key %s: %s", keyID, reason)
		r.KeyID = keyID
		return r
	}
	return SignatureResult{Kind: kind, KeyID: keyID, Principal: principal, Status: OK, keys: sshKeyNames(sig.PublicKey)}
}

// sshTrusted finds an allowed signers entry accepting key (or cert) for the
// in-toto namespace at at. It returns the principal, or a reason when none
// accepts.
func sshTrusted(trust *Trust, key ssh.PublicKey, cert *ssh.Certificate, at time.Time) (string, string) {
	if len(trust.allowed) == 0 {
		return "", "no allowed signers file in trust"
	}
	reason := "not in allowed signers"
	var want []byte
	if cert != nil {
		want = cert.SignatureKey.Marshal()
	} else {
		want = key.Marshal()
	}
	for _, as := range trust.allowed {
		for _, e := range as.Entries {
			var principal string
			if cert != nil {
				if !e.CertAuthority || !bytes.Equal(e.keyBlob(), want) {
					continue
				}
				var why string
				principal, why = checkCert(cert, e, at)
				if why != "" {
					reason = fmt.Sprintf("%s:%d: %s", as.Name, e.Line, why)
					continue
				}
			} else {
				if e.CertAuthority || !bytes.Equal(e.keyBlob(), want) {
					continue
				}
				names := e.CreditedPrincipals()
				if len(names) == 0 {
					reason = fmt.Sprintf("%s:%d: principals %q accept no principal (docs/format.md#principal-patterns)", as.Name, e.Line, e.Principals)
					continue
				}
				principal = strings.Join(names, ",")
			}
			if e.Namespaces != "" && !MatchPatternList(keys.SSHNamespace, e.Namespaces) {
				reason = fmt.Sprintf("%s:%d: namespaces=%q does not include %s", as.Name, e.Line, e.Namespaces, keys.SSHNamespace)
				continue
			}
			if !e.ValidAfter.IsZero() && at.Before(e.ValidAfter) {
				reason = fmt.Sprintf("%s:%d: not valid before %s", as.Name, e.Line, e.ValidAfter.Format(time.RFC3339))
				continue
			}
			if !e.ValidBefore.IsZero() && at.After(e.ValidBefore) {
				reason = fmt.Sprintf("%s:%d: expired at %s", as.Name, e.Line, e.ValidBefore.Format(time.RFC3339))
				continue
			}
			return principal, ""
		}
	}
	return "", reason
}

// checkCert checks an SSH user certificate against a cert-authority entry at
// at, as ssh-keygen -Y verify does — a user certificate, principals that the
// entry's patterns match, inside its validity window, a valid CA signature —
// and, unlike ssh-keygen, with no critical option
// (docs/format.md#ssh-certificates). It returns the matching principals
// (comma-joined) or why the certificate is refused.
func checkCert(cert *ssh.Certificate, e AllowedSigner, at time.Time) (string, string) {
	if cert.CertType != ssh.UserCert {
		return "", "certificate is not a user certificate"
	}
	var matched []string
	for _, p := range cert.ValidPrincipals {
		if MatchPatternList(p, e.Principals) {
			matched = append(matched, p)
		}
	}
	if len(matched) == 0 {
		return "", fmt.Sprintf("certificate principals %q do not match %q", cert.ValidPrincipals, e.Principals)
	}
	checker := ssh.CertChecker{Clock: func() time.Time { return at }}
	if err := checker.CheckCert(matched[0], cert); err != nil {
		return "", "certificate refused: " + strings.TrimPrefix(err.Error(), "ssh: ")
	}
	return strings.Join(matched, ","), ""
}

// acceptedPGPHashes are the digest algorithms accepted in OpenPGP signatures.
var acceptedPGPHashes = map[crypto.Hash]bool{
	crypto.SHA256: true, crypto.SHA384: true, crypto.SHA512: true,
	crypto.SHA3_256: true, crypto.SHA3_512: true,
}

// verifyOpenPGP checks an armored detached OpenPGP signature (docs/format.md#signatures-dsse-v1).
func verifyOpenPGP(pae, text []byte, trust *Trust, at time.Time) SignatureResult {
	const kind = keys.KindOpenPGP
	trimmed := bytes.TrimSpace(text)
	if !bytes.HasPrefix(trimmed, []byte(pgpArmorBegin)) || !bytes.HasSuffix(trimmed, []byte("-----END PGP SIGNATURE-----")) ||
		bytes.Count(trimmed, []byte("-----BEGIN ")) != 1 {
		return fail(kind, Malformed, "openpgp signature: not exactly one armored signature block")
	}
	block, err := armor.Decode(bytes.NewReader(trimmed))
	if err != nil {
		return fail(kind, Malformed, "openpgp signature: %v", err)
	}
	if block.Type != openpgp.SignatureType {
		return fail(kind, Malformed, "openpgp signature: armored block %q", block.Type)
	}
	body, err := io.ReadAll(io.LimitReader(block.Body, dsse.MaxEnvelopeSize))
	if err != nil {
		return fail(kind, Malformed, "openpgp signature: %v", err)
	}
	// Exactly one signature packet: go-crypto would otherwise try each in turn.
	pr := packet.NewReader(bytes.NewReader(body))
	p, err := pr.Next()
	if err != nil {
		return fail(kind, Malformed, "openpgp signature: %v", err)
	}
	sig, ok := p.(*packet.Signature)
	if !ok {
		return fail(kind, Malformed, "openpgp signature: first packet is %T, not a signature", p)
	}
	if _, err := pr.Next(); err != io.EOF {
		return fail(kind, Malformed, "openpgp signature: more than one packet")
	}
	if sig.IssuerKeyId == nil {
		return fail(kind, Malformed, "openpgp signature: no issuer key id")
	}
	issuer := fmt.Sprintf("%016X", *sig.IssuerKeyId)
	if sig.SigType != packet.SigTypeBinary {
		return fail(kind, BadSignature, "openpgp signature by %s: type 0x%02x, want a binary-document signature (0x00)", issuer, uint8(sig.SigType))
	}
	if !acceptedPGPHashes[sig.Hash] {
		return fail(kind, BadSignature, "openpgp signature by %s: digest algorithm %v not accepted", issuer, sig.Hash)
	}
	if trust.keyring == nil {
		return fail(kind, UntrustedSigner, "openpgp key %s: no keyring in trust", issuer)
	}
	for _, n := range sig.Notations {
		if n.IsCritical {
			return fail(kind, BadSignature, "openpgp signature by %s: critical notation %q", issuer, n.Name)
		}
	}
	key, err := trust.keyring.ring.VerifyData(sig, pae)
	if key == nil {
		if errors.Is(err, openpgpkeys.ErrUnknownKey) {
			return fail(kind, UntrustedSigner, "openpgp key %s: not in the keyring", issuer)
		}
		return fail(kind, BadSignature, "openpgp signature by %s does not verify: %v", issuer, err)
	}
	keyID := key.Cert().Fingerprint()
	// The key is judged at the verifier's time as gpg --verify judges it with
	// its clock there (docs/format.md#openpgp-keys).
	if why := key.Judge(sig, at.Unix()); why != "" {
		r := fail(kind, UntrustedSigner, "openpgp key %s at %s: %s", keyID, at.UTC().Format(time.RFC3339), why)
		r.KeyID = keyID
		return r
	}
	return SignatureResult{Kind: kind, KeyID: keyID, Principal: key.Cert().PrimaryUserID(at.Unix()), Status: OK, keys: pgpCertNames(key.Cert())}
}

// verifyRaw checks a raw signature (docs/format.md#signatures-dsse-v1) against every trusted raw
// key. A signature no trusted key verifies is bad when its keyid names a
// trusted raw key, else untrusted (it cannot be checked).
func verifyRaw(pae []byte, s dsse.Signature, trust *Trust) SignatureResult {
	const kind = keys.KindRaw
	if len(trust.raw) == 0 {
		return fail(kind, UntrustedSigner, "raw signature (keyid %q): no raw keys in trust", s.KeyID)
	}
	for _, k := range trust.raw {
		if k.verifier.Verify(context.Background(), pae, s.Sig) == nil {
			return SignatureResult{Kind: kind, KeyID: k.KeyID, Principal: k.Source, Status: OK, keys: rawKeyNames(k)}
		}
	}
	for _, k := range trust.raw {
		if k.namedBy(s.KeyID) {
			return fail(kind, BadSignature, "raw signature does not verify with the trusted key %s it names", k.KeyID)
		}
	}
	return fail(kind, UntrustedSigner, "raw signature (keyid %q): no trusted raw key verifies it", s.KeyID)
}
