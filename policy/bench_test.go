package policy

import (
	"bytes"
	"os"
	"testing"

	"github.com/taskproof/taskproof/predicate"
)

// benchInputs builds n inputs (decoded predicates of revisions 1-3, mixed
// verdicts): the per-tick results verify builds before any policy runs.
func benchInputs(b *testing.B, n int) []*Input {
	b.Helper()
	kinds := []struct {
		rev     int
		verdict string
	}{{0, "regression_only"}, {2, "verified"}, {3, "verified"}, {3, "regression_only"}, {3, "attested"}}
	base := make([]*predicate.Predicate, len(kinds))
	for i, k := range kinds {
		base[i] = predicateJSON(b, k.rev, k.verdict, nil)
	}
	out := make([]*Input, n)
	for i := range out {
		in := input(base[i%len(base)], ssh1)
		v := in.Predicate.Read()
		in.View = &v
		out[i] = in
	}
	return out
}

// BenchmarkBuildResults is the baseline: decoding 10,000 predicates and
// reading their views, as verify does for every tick before the policy.
func BenchmarkBuildResults(b *testing.B) {
	raw := []byte(`{"revision":3,"verdict":"verified","unit":{"format":"speckit","feature":"001-greeting","dir":"specs/001-greeting"},"task":{"id":"T002","line_hash":"aa","title":"t"},"tree":"bb","spec":{"section":"US1","section_hash":"cc"},"policy_sha256":"dd","time":"2026-05-01T09:30:00Z","monitor":{"state":"clean"},"mutation":{"caught":8,"missed":2},"red":{"kind":"assertion","excerpt":"FAIL","excerpt_sha256":"ee","output_sha256":"ff","withheld":false}}`)
	b.ReportAllocs()
	for b.Loop() {
		for range 10000 {
			p, err := predicate.Decode(raw)
			if err != nil {
				b.Fatal(err)
			}
			_ = p.Read()
		}
	}
}

// BenchmarkEvaluateDefault: the default policy over 10,000 ticks.
func BenchmarkEvaluateDefault(b *testing.B) { benchEvaluate(b, Default()) }

// BenchmarkEvaluateExample: the example policy (every built-in rule and three
// CEL rules) over 10,000 ticks, range rules included.
func BenchmarkEvaluateExample(b *testing.B) {
	src, err := os.ReadFile("../testdata/policy/example.toml")
	if err != nil {
		b.Fatal(err)
	}
	p, err := Parse(src, "example.toml")
	if err != nil {
		b.Fatal(err)
	}
	benchEvaluate(b, p)
}

func benchEvaluate(b *testing.B, p *Policy) {
	ins := benchInputs(b, 10000)
	items := make([]RangeItem, len(ins))
	for i, in := range ins {
		items[i] = RangeItem{Verdict: string(in.Predicate.Verdict)}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, in := range ins {
			p.Evaluate(in)
		}
		p.EvaluateRange(items)
	}
}

// BenchmarkEvaluateBuiltins: the example policy without its CEL rules.
func BenchmarkEvaluateBuiltins(b *testing.B) {
	src, err := os.ReadFile("../testdata/policy/example.toml")
	if err != nil {
		b.Fatal(err)
	}
	if i := bytes.Index(src, []byte("[[rule]]")); i > 0 {
		src = src[:i]
	}
	p, err := Parse(src, "example-builtins.toml")
	if err != nil {
		b.Fatal(err)
	}
	benchEvaluate(b, p)
}
