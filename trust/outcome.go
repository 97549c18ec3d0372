package trust

// Outcome is the verdict on one signature, on all of an envelope's signatures
// together, or on one object (docs/format.md#outcomes-and-reasons). A
// signature's outcome is ok, bad_signature, untrusted_signer or malformed; an
// envelope's signatures together add unsigned; an object's can be any of
// them, or mismatch or missing.
type Outcome string

// The outcomes of docs/format.md#outcomes-and-reasons, least severe first.
const (
	// OK: every check held. For a signature: it verifies with a key the
	// verifier trusts.
	OK Outcome = "ok"
	// Unsigned: an envelope has no signature (never a single signature's).
	Unsigned Outcome = "unsigned"
	// UntrustedSigner: the signature is cryptographically sound (or cannot
	// be checked because no trusted key matches), but the verifier's trust does
	// not accept its key for in-toto now: unknown key, a namespaces= list without
	// in-toto, outside valid-after/valid-before or a certificate's window,
	// expired or revoked OpenPGP key.
	UntrustedSigner Outcome = "untrusted_signer"
	// Mismatch: a statement is about something else than the object (subject,
	// tree, task line, spec section, policy_sha256, VSA); never a signature's.
	Mismatch Outcome = "mismatch"
	// BadSignature: the signature does not verify against the key it
	// embeds or names (SSH: the key in the SSHSIG blob; OpenPGP: the trusted
	// issuer key; raw: the trusted key its keyid names), or it is not one
	// taskproof accepts (SSHSIG namespace other than in-toto, OpenPGP text-mode
	// or weak-hash signature).
	BadSignature Outcome = "bad_signature"
	// Malformed: the signature cannot be parsed (bad armor, bad SSHSIG or
	// OpenPGP packets); for an object, a note line, its envelope, Statement or
	// predicate cannot be read.
	Malformed Outcome = "malformed"
	// Missing: the object has no statement to check (no note, or no
	// task-verification statement in it); never a signature's.
	Missing Outcome = "missing"
)

// precedence orders the outcomes from least to most severe
// (docs/format.md#outcomes-and-reasons: malformed > bad_signature > mismatch >
// untrusted_signer > unsigned > ok). missing stands alone above them: it is
// only ever the outcome of an object with no statement to check.
var precedence = [...]Outcome{OK, Unsigned, UntrustedSigner, Mismatch, BadSignature, Malformed, Missing}

// rank is o's position in precedence. The zero Outcome (nothing judged yet)
// ranks with ok; an outcome outside the list ranks above every other, so
// that it can never make a verdict milder.
func (o Outcome) rank() int {
	if o == "" {
		return 0
	}
	for i, p := range precedence {
		if o == p {
			return i
		}
	}
	return len(precedence)
}

// Worse returns the more severe of a and b (a when they rank alike).
func Worse(a, b Outcome) Outcome {
	if b.rank() > a.rank() {
		return b
	}
	return a
}
