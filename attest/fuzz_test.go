package attest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/taskproof/taskproof/internal/strictjson"
)

// FuzzParseRegressionReason: no input panics; an accepted one names a known
// reason, and its object is canonical JSON whenever the input is UTF-8.
func FuzzParseRegressionReason(f *testing.F) {
	for _, s := range []string{"planning_work", "no_scenarios:story=US2", "author_failed:detail=a:b=c,d",
		"not_red:red_class=build_error", "already_passing", "already_passing:implemented_by=T1@abc",
		"already_passing:implemented_by=before_feature", "unrecorded", ":", "no_story:", "=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRegressionReason(s)
		if err != nil {
			return
		}
		reason, _ := r["reason"].(string)
		if reason == "" || reason == "unrecorded" || !strings.HasPrefix(s, reason) {
			t.Fatalf("%q → reason %q", s, reason)
		}
		if _, err := strictjson.Canonical(r); err != nil && utf8.ValidString(s) {
			t.Fatalf("%q → %v not canonical: %v", s, r, err)
		}
	})
}
