package verify

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/policy"
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
		"tasks_file_not_regular", "unrecognized_tasks_file", "tasks_file_moved_out", "superseded", "trailer", "policy_sha256_unverified",
		hintPolicyEvalError,
	}
	for _, c := range codes {
		if strings.TrimSpace(fixHints[c]) == "" {
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

// TestPolicyEvalErrorHint: a tick or object that only rules which could not
// be evaluated fail is told to guard the rule with has(), not to attest the
// task "so that the rule holds"; one a rule rejects keeps that hint.
func TestPolicyEvalErrorHint(t *testing.T) {
	evalErr := policy.Result{Rule: "r", Status: policy.StatusEvalError, Level: policy.LevelError, Message: "require: no such key: kind"}
	violated := policy.Result{Rule: "v", Status: policy.StatusViolated, Level: policy.LevelError, Message: "no"}
	tr := &TickResult{Commit: "0123456789abcdef0123456789abcdef01234567", TaskID: "T1", Status: StatusRejected, Reason: ReasonPolicy,
		Failing: true, Policy: []policy.Result{evalErr}}
	if h := tickHint(tr); !strings.Contains(h, "has()") || strings.Contains(h, "so that the rule holds") {
		t.Errorf("an evaluation error's hint: %q", h)
	}
	tr.Policy = append(tr.Policy, violated)
	if h := tickHint(tr); !strings.Contains(h, "so that the rule holds") {
		t.Errorf("a violated rule's hint: %q", h)
	}
	o := &ObjectResult{Object: "0123456789abcdef0123456789abcdef01234567", Outcome: OK, Policy: []policy.Result{evalErr}}
	if h := objectHint(o, GateOptions{}); !strings.Contains(h, "has()") {
		t.Errorf("an object's evaluation error's hint: %q", h)
	}
}
