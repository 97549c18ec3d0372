package verify

import "github.com/taskproof/taskproof/trust"

// Outcome is the verdict on one signature, on all of an envelope's signatures
// together, or on one object: [trust.Outcome], where its values are defined
// (docs/format.md#outcomes-and-reasons).
type Outcome = trust.Outcome

// The outcomes of docs/format.md#outcomes-and-reasons ([trust.Outcome]).
const (
	OK              = trust.OK
	Unsigned        = trust.Unsigned
	UntrustedSigner = trust.UntrustedSigner
	Mismatch        = trust.Mismatch
	BadSignature    = trust.BadSignature
	Malformed       = trust.Malformed
	Missing         = trust.Missing
)

// worse returns the more severe of a and b (a when they rank alike).
func worse(a, b Outcome) Outcome { return trust.Worse(a, b) }

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
