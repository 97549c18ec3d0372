package report

import (
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/verify"
)

// derivedID reports whether id is derived from a title: written IDs never
// start with "h-".
func derivedID(id string) bool { return strings.HasPrefix(id, "h-") }

// taskLabel names a task for people: its subject name, followed by its
// quoted title when its ID is derived from the title.
func taskLabel(task, taskID, title string) string {
	if task == "" || title == "" || !derivedID(taskID) {
		return task
	}
	return fmt.Sprintf("%s %q", task, title)
}

// policyRule is the CI rule id of the first failing policy result.
func policyRule(rs []policy.Result) string {
	for _, r := range rs {
		if r.Failing() {
			return verify.RulePolicyPrefix + r.Rule
		}
	}
	return ""
}

// policyText is one policy result as a report line: "policy error rule: message".
func policyText(r policy.Result) string {
	level := string(r.Level)
	if r.Status == policy.StatusEvalError {
		level = "error (evaluation failed)"
	}
	return fmt.Sprintf("policy %s %s: %s", level, r.Rule, r.Message)
}

// printableReasons is rs with every text field passed through printable.String.
func printableReasons(rs []verify.Reason) []verify.Reason {
	out := make([]verify.Reason, len(rs))
	for i, r := range rs {
		r.Code, r.Field, r.Expected, r.Found, r.Message = printable.String(r.Code), printable.String(r.Field), printable.String(r.Expected), printable.String(r.Found), printable.String(r.Message)
		out[i] = r
	}
	return out
}
