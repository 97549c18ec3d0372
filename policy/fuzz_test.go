package policy

import (
	"errors"
	"testing"
)

// FuzzParse: any bytes either load or fail with an *Error matching ErrPolicy;
// nothing panics, and a loaded policy evaluates a predicate without panicking.
func FuzzParse(f *testing.F) {
	f.Add([]byte("version = 1\n"))
	f.Add([]byte("version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.revision >= 2\"\n"))
	f.Add([]byte("version = 1\n[regression_only]\nmax_share = 0.5\ndenied_reasons = [\"unrecorded\"]\n"))
	in := input(predicateJSON(f, 3, "regression_only", nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "fuzz.toml")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, ErrPolicy) {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		p.Evaluate(in)
		p.EvaluateRange([]RangeItem{{Verdict: "regression_only"}})
	})
}
