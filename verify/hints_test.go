package verify

import (
	"strings"
	"testing"
)

// TestHintsCoverEveryFailingCode: every status, sub-reason, outcome and
// reason code a failing tick or object can carry has its own hint, and so do
// the codes other parts of the gate name.
func TestHintsCoverEveryFailingCode(t *testing.T) {
	codes := []string{
		StatusStale, StatusUnverifiable, StatusEdited, StatusBornTicked, StatusRejected,
		ReasonTickedWithoutEvidence, ReasonCommitUnreachable, ReasonEditedAfterTick, ReasonNotVerified, ReasonPolicy,
		string(Unsigned), string(Missing), string(BadSignature), string(UntrustedSigner), string(Mismatch), string(Malformed),
		CodeNoteMalformed, CodeLineMalformed, CodePayloadType, CodeStatement, CodeSignature, CodeUntrusted, CodeUnsigned,
		CodeSubjectCount, CodeSubjectName, CodeSubjectCommit, CodePredicate, CodeVerdict, CodeDuplicate, CodeTree,
		CodeTaskMissing, CodeLineHash, CodeSectionHash, CodePolicySHA256, CodeRegressionReason, CodeVSA, CodeNoEvidence,
		CodeDuplicateTaskID,
		"tasks_file_not_regular", "unrecognized_tasks_file", "superseded", "trailer", "policy_sha256_unverified",
	}
	for _, c := range codes {
		if strings.TrimSpace(Hints[c]) == "" {
			t.Errorf("no hint for %q", c)
		}
	}
}

func TestTickHint(t *testing.T) {
	tr := &TickResult{Commit: "0123456789abcdef0123456789abcdef01234567", TaskID: "T00$(x)", Path: "specs/a/tasks.md",
		Status: StatusUnverifiable, Reason: string(Mismatch), Failing: true,
		Reasons: []Reason{{Code: CodeSubjectCommit, Found: "fedcba9876543210fedcba9876543210fedcba98"}, {Code: CodeTree}}}
	h := tickHint(tr)
	for _, want := range []string{
		"taskproof attest carry fedcba9876543210fedcba9876543210fedcba98 0123456789ab",
		"taskproof attest tick --commit 0123456789ab --task 'T00$(x)'",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("hint %q does not hold %q", h, want)
		}
	}
	tr = &TickResult{Commit: "0123456789abcdef0123456789abcdef01234567", TaskID: "T1", Status: "brand_new", Failing: true}
	if h := tickHint(tr); h != hintFallback {
		t.Errorf("unknown status: hint %q", h)
	}
}
