package verify

import (
	"strings"
	"testing"
)

// TestSummaryText: the text report's summary counts ticks by status, failing
// ones by reason too, and objects by outcome.
func TestSummaryText(t *testing.T) {
	branch := &Report{Mode: "branch", Conclusion: Failure, Ticks: []TickResult{
		{Status: StatusEvidenced}, {Status: StatusEvidenced},
		{Status: StatusUnverifiable, Reason: ReasonTickedWithoutEvidence, Failing: true},
		{Status: StatusUnverifiable, Reason: string(BadSignature), Failing: true},
		{Status: StatusUnverifiable, Reason: string(BadSignature), Failing: true},
	}, Unticks: []TickResult{{}}}
	objects := &Report{Mode: "objects", Conclusion: Failure, Objects: []ObjectResult{{Outcome: OK}, {Outcome: Missing}, {Outcome: OK}}}
	for _, c := range []struct {
		rep  *Report
		want string
	}{
		{branch, "summary: 2 evidenced, 1 unticked, 3 unverifiable (2 bad_signature, 1 ticked_without_evidence)\n"},
		{objects, "summary: 1 missing, 2 ok\n"},
		{&Report{Mode: "branch", Conclusion: Neutral}, ""},
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
