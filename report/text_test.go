package report

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/verify"
)

// TestSummaryText: the text report's summary counts ticks by status, failing
// ones by reason too, and objects by outcome.
func TestSummaryText(t *testing.T) {
	branch := &verify.Report{Mode: "branch", Conclusion: verify.Failure, Ticks: []verify.TickResult{
		{Status: verify.StatusEvidenced}, {Status: verify.StatusEvidenced},
		{Status: verify.StatusUnverifiable, Reason: verify.ReasonTickedWithoutEvidence, Failing: true},
		{Status: verify.StatusUnverifiable, Reason: string(verify.BadSignature), Failing: true},
		{Status: verify.StatusUnverifiable, Reason: string(verify.BadSignature), Failing: true},
	}, Unticks: []verify.TickResult{{}}}
	objects := &verify.Report{Mode: "objects", Conclusion: verify.Failure, Objects: []verify.ObjectResult{{Outcome: verify.OK}, {Outcome: verify.Missing}, {Outcome: verify.OK}}}
	for _, c := range []struct {
		rep  *verify.Report
		want string
	}{
		{branch, "summary: 2 evidenced, 1 unticked, 3 unverifiable (2 bad_signature, 1 ticked_without_evidence)\n"},
		{objects, "summary: 1 missing, 2 ok\n"},
		{&verify.Report{Mode: "branch", Conclusion: verify.Neutral}, ""},
	} {
		var b strings.Builder
		if err := WriteText(&b, c.rep, false); err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			if strings.HasPrefix(line, "summary: ") {
				got = line
			}
		}
		if got != c.want {
			t.Errorf("%s report: summary %q, want %q", c.rep.Mode, got, c.want)
		}
	}
}
