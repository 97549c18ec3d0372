package verify

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

// worse returns the more severe of a and b (a when they rank alike).
func worse(a, b Outcome) Outcome {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Reason is one failed check (docs/format.md#verification-rules): Code names the check
// ("line_hash", "tree", "subject_commit", "bad_signature", …), Field the member
// at fault ("predicate.tree"), Expected what the verifier computed and Found what
// the attestation says.
type Reason struct {
	Code     string  `json:"code"`
	Field    string  `json:"field,omitempty"`
	Expected string  `json:"expected,omitempty"`
	Found    string  `json:"found,omitempty"`
	Message  string  `json:"message,omitempty"`
	Outcome  Outcome `json:"-"`
}

// Reason codes used in reports (docs/format.md#outcomes-and-reasons).
const (
	CodeNoteMalformed    = "note_malformed"    // the note is not text, too large, or has too many lines
	CodeLineMalformed    = "line_malformed"    // a note line is not a DSSE envelope within limits
	CodePayloadType      = "payload_type"      // payloadType is not application/vnd.in-toto+json
	CodeStatement        = "statement"         // the payload is not a Statement v1 taskproof can read
	CodeSignature        = "signature"         // a signature did not verify
	CodeUntrusted        = "untrusted_signer"  // no trusted key (for this namespace, at this time) made a signature
	CodeUnsigned         = "unsigned"          // an envelope has no signature
	CodeSubjectCount     = "subject_count"     // not exactly one subject
	CodeSubjectName      = "subject_name"      // subject name is not <feature>/<task id>
	CodeSubjectCommit    = "subject_commit"    // gitCommit is not the object
	CodePredicate        = "predicate"         // the predicate does not match its schema
	CodeVerdict          = "verdict"           // the verdict is not verified, regression_only, attested or skipped
	CodeDuplicate        = "duplicate"         // two task-verification statements for one task
	CodeTree             = "tree"              // predicate.tree is not the object's tree
	CodeTaskMissing      = "task_missing"      // the task is not in the object's tasks file
	CodeLineHash         = "line_hash"         // the task line read as open differs
	CodeSectionHash      = "section_hash"      // the cited spec section changed (stale)
	CodePolicySHA256     = "policy_sha256"     // the judge's configuration differs
	CodeRegressionReason = "regression_reason" // a revision ≥ 3 regression_only tick without a reason
	CodeVSA              = "vsa"               // the VSA does not name the tick's other statements
	CodeVSAMissing       = "vsa_missing"       // no VSA (reported, not failed)
	CodeNoEvidence       = "no_evidence"       // the note holds no task-verification statement
	CodeDuplicateTaskID  = "duplicate_task_id" // the tasks file names the ticked task's ID twice
)
