package attest_test

import (
	"errors"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/evidence"
	"github.com/taskproof/taskproof/predicate"
)

// TestTickRequestCheck: the combinations a tick request refuses before any
// key is looked for, each an ErrRequest, and those it takes.
func TestTickRequestCheck(t *testing.T) {
	reason := map[string]any{"reason": "planning_work"}
	green := []evidence.PhaseReport{{}}
	for _, c := range []struct {
		name string
		req  attest.TickRequest
		ok   bool
	}{
		{"verified", attest.TickRequest{Verdict: predicate.Verified}, true},
		{"regression_only with a reason", attest.TickRequest{Verdict: predicate.RegressionOnly, Regression: reason}, true},
		{"regression_only with evidence", attest.TickRequest{Verdict: predicate.RegressionOnly, Evidence: []byte("{}")}, true},
		{"regression_only from reports", attest.TickRequest{Verdict: predicate.RegressionOnly, Reports: green}, true},
		{"test files with reports", attest.TickRequest{Reports: green, TestFiles: []string{"a_test.go"}}, true},
		{"no test files", attest.TickRequest{Verdict: predicate.Verified, TestFiles: []string{}}, true},
		{"force", attest.TickRequest{Verdict: predicate.Verified, Force: true}, true},
		{"force and skip attested", attest.TickRequest{Verdict: predicate.Verified, Force: true, SkipAttested: true}, false},
		{"no verdict", attest.TickRequest{}, false},
		{"a decision's verdict", attest.TickRequest{Verdict: predicate.Attested}, false},
		{"test files without reports", attest.TickRequest{Verdict: predicate.Verified, TestFiles: []string{"a_test.go"}}, false},
		{"regression_only without a reason", attest.TickRequest{Verdict: predicate.RegressionOnly}, false},
		{"a reason with verified", attest.TickRequest{Verdict: predicate.Verified, Regression: reason}, false},
	} {
		err := c.req.Check()
		if c.ok && err != nil || !c.ok && !errors.Is(err, attest.ErrRequest) {
			t.Errorf("%s: Check() = %v, want ok %v", c.name, err, c.ok)
		}
	}
}
