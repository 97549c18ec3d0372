package verify

// Outcome is the verdict on one object (docs/format.md#verification-rules): ok, unsigned, missing,
// bad_signature, untrusted_signer, mismatch or malformed.
type Outcome string

// The outcomes of docs/format.md#verification-rules.
const (
	OK              Outcome = "ok"
	Unsigned        Outcome = "unsigned"
	Missing         Outcome = "missing"
	BadSignature    Outcome = "bad_signature"
	UntrustedSigner Outcome = "untrusted_signer"
	Mismatch        Outcome = "mismatch"
	Malformed       Outcome = "malformed"
)

// rank orders outcomes by docs/format.md#verification-rules precedence: malformed > bad_signature >
// mismatch > untrusted_signer > unsigned > ok. missing stands alone (it is only
// ever the outcome of an object with no statement to check).
func (o Outcome) rank() int {
	switch o {
	case Malformed:
		return 6
	case BadSignature:
		return 5
	case Mismatch:
		return 4
	case UntrustedSigner:
		return 3
	case Unsigned:
		return 2
	case Missing:
		return 7
	}
	return 0
}

// worse returns the more severe of a and b.
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

// Reason codes used in reports (README "Verification reasons").
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
