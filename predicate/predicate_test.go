package predicate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/strictjson"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCanonical(t *testing.T, data []byte) []byte {
	t.Helper()
	v, err := strictjson.Decode(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := strictjson.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDecodeRoundTrip(t *testing.T) {
	for _, name := range []string{"full_v3.json", "v1_regression_only.json", "decision_skipped.json", "v3_regression_missing.json"} {
		t.Run(name, func(t *testing.T) {
			data := readTestdata(t, name)
			p, err := Decode(data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got, err := p.Canonical()
			if err != nil {
				t.Fatalf("Canonical: %v", err)
			}
			if want := mustCanonical(t, data); !bytes.Equal(got, want) {
				t.Errorf("round trip changed bytes\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestDecodeFields(t *testing.T) {
	p, err := Decode(readTestdata(t, "full_v3.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := p.Revision.Get(); !ok || n != 3 {
		t.Errorf("Revision = %+v", p.Revision)
	}
	if p.Verdict != RegressionOnly || p.Unit.Dir != "specs/007-config" || p.Task.ID != "T012" {
		t.Errorf("verdict/unit/task = %q %q %q", p.Verdict, p.Unit.Dir, p.Task.ID)
	}
	if !p.Mutation.Set || !p.Mutation.Null {
		t.Errorf("mutation: want present null, got %+v", p.Mutation)
	}
	if p.Decider.Set {
		t.Errorf("decider: want absent, got %+v", p.Decider)
	}
	g, _ := p.Regression.Get()
	b, _ := g.ImplementedBy.Get()
	if g.Reason != ReasonAlreadyPassing || b.Task.V != "T011" || b.Commit.V != "abc1234" || b.BeforeFeature.Set {
		t.Errorf("regression = %+v, implemented_by = %+v", g, b)
	}
	c, _ := p.Collection.Get()
	if len(c.Files) != 3 {
		t.Fatalf("files = %d", len(c.Files))
	}
	f1 := c.Files[1]
	rule, _ := f1.Rule.Get()
	if f1.State != StateNotCollected || f1.DecidedBy.V != DecidedByStatic || rule.Toolchain != ToolchainRust ||
		rule.Extra["since"] != "rev4" || f1.Extra["hint"] == nil {
		t.Errorf("files[1] = %+v", f1)
	}
	if f0 := c.Files[0]; f0.Tests != 3 || !f0.Rule.Null || !f0.Why.Null || !f0.Fixes.Set || len(f0.Fixes.V) != 0 {
		t.Errorf("files[0] = %+v", f0)
	}
	if f2 := c.Files[2]; f2.DecidedBy.Set || f2.Rule.Set || f2.Why.Set || f2.Fixes.Set {
		t.Errorf("files[2] absent members read as present: %+v", f2)
	}
	runs, _ := c.Listing.Get()
	if len(runs) != 1 || runs[0].DurationMS != 1234 || runs[0].Status != CheckPassed {
		t.Errorf("listing = %+v", runs)
	}
	if p.Extra["unit_of_work"] != json.Number("7") || p.Extra["future_field"] == nil {
		t.Errorf("Extra = %v", p.Extra)
	}
	red, _ := p.Red.Get()
	if red.Excerpt.V != "FAIL\u2028 ünïcode \x01" {
		t.Errorf("red.excerpt = %q", red.Excerpt.V)
	}
}

func TestRead(t *testing.T) {
	tests := []struct {
		file        string
		revision    uint32
		reason      Reason
		missing     bool
		redExpected bool
		red         bool
		newer       []string
	}{
		{"full_v3.json", 3, ReasonAlreadyPassing, false, true, true,
			[]string{"collection.files[].hint", "collection.files[].rule.since", "future_field", "unit_of_work"}},
		{"v1_regression_only.json", 1, ReasonUnrecorded, false, false, false, []string{"red"}},
		{"decision_skipped.json", 3, "", false, true, false, nil},
		{"v3_regression_missing.json", 3, "", true, true, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p, err := Decode(readTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			v := p.Read()
			if v.Revision != tt.revision || v.RegressionMissing != tt.missing || v.RedExpected != tt.redExpected || (v.Red != nil) != tt.red {
				t.Errorf("view = %+v", v)
			}
			var reason Reason
			if v.Regression != nil {
				reason = v.Regression.Reason
			}
			if reason != tt.reason {
				t.Errorf("regression reason = %q, want %q", reason, tt.reason)
			}
			if !slices.Equal(v.NewerFields, tt.newer) {
				t.Errorf("NewerFields = %q, want %q", v.NewerFields, tt.newer)
			}
		})
	}
	// revision 2 without regression also reads as unrecorded; null revision reads as 1.
	for _, rev := range []string{`2`, `null`} {
		data := bytes.Replace(readTestdata(t, "v3_regression_missing.json"), []byte(`"revision":3`), []byte(`"revision":`+rev), 1)
		p, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		if v := p.Read(); v.Regression == nil || v.Regression.Reason != ReasonUnrecorded || v.RegressionMissing {
			t.Errorf("revision %s: view = %+v", rev, v)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	base := string(readTestdata(t, "decision_skipped.json"))
	tests := []struct {
		name     string
		in       string
		wantPath string
		kind     error
	}{
		{"schema: wrong type", strings.Replace(base, `"line_hash":"00"`, `"line_hash":7`, 1), "task.line_hash", ErrSchema},
		{"schema: required", strings.Replace(base, `"tree":"4b825dc642cb6eb9a060e54bf8d69288fbee4904",`, "", 1), "", ErrSchema},
		{"schema: red kind", strings.Replace(base, `"time"`, `"red":{"kind":"boom","output_sha256":"x","withheld":false},"time"`, 1), "red.kind", ErrSchema},
		{"schema: regression reason", strings.Replace(base, `"time"`, `"regression":{"reason":"no_scenarios"},"time"`, 1), "regression", ErrSchema},
		{"schema: negative tests", strings.Replace(base, `"time"`, `"collection":{"files":[{"path":"a","state":"collected","tests":-1,"test_ids":[]}]},"time"`, 1), "collection.files[0].tests", ErrSchema},
		{"integer not plain", strings.Replace(base, `"revision":3`, `"revision":3.0`, 1), "revision", ErrMalformed},
		{"integer too big", strings.Replace(base, `"revision":3`, `"revision":4294967296`, 1), "revision", ErrMalformed},
		{"duplicate", strings.Replace(base, `"by":`, `"by":"x","by":`, 1), "decider.by", ErrMalformed},
		{"case variant", strings.Replace(base, `"verdict"`, `"Verdict"`, 1), "Verdict", ErrMalformed},
		{"case variant nested", strings.Replace(base, `"feature"`, `"FEATURE"`, 1), "unit.FEATURE", ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in))
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			if !errors.Is(err, tt.kind) || !errors.Is(err, ErrMalformed) {
				t.Errorf("error kind: %v", err)
			}
			var path string
			var de *DecodeError
			var se *SchemaError
			switch {
			case errors.As(err, &de):
				path = de.Path
			case errors.As(err, &se):
				path = se.Path
			}
			if path != tt.wantPath {
				t.Errorf("path = %q, want %q (%v)", path, tt.wantPath, err)
			}
		})
	}
}

func TestCanonicalRejectsKnownKeyInExtra(t *testing.T) {
	p, err := Decode(readTestdata(t, "decision_skipped.json"))
	if err != nil {
		t.Fatal(err)
	}
	p.Unit.Extra = map[string]any{"Dir": "x"}
	if _, err := p.Canonical(); err == nil || !strings.Contains(err.Error(), "unit") {
		t.Errorf("Canonical with Extra[\"Dir\"] = %v, want an error naming unit", err)
	}
}

func TestUnmarshalJSONIsStrict(t *testing.T) {
	var p Predicate
	data := strings.Replace(string(readTestdata(t, "decision_skipped.json")), `"verdict"`, `"verdict":"verified","verdict"`, 1)
	if err := json.Unmarshal([]byte(data), &p); !errors.Is(err, ErrMalformed) {
		t.Errorf("json.Unmarshal with a duplicate key: %v", err)
	}
}

// TestPropertyRoundTrip generates random valid predicates: their canonical bytes
// decode back to the same value, and re-encode to the same bytes.
func TestPropertyRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 400; seed++ {
		g := gen{rand.New(rand.NewPCG(seed, 7))}
		p := g.predicate()
		c, err := p.Canonical()
		if err != nil {
			t.Fatalf("seed %d: Canonical: %v", seed, err)
		}
		q, err := Decode(c)
		if err != nil {
			t.Fatalf("seed %d: Decode(%s): %v", seed, c, err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("seed %d: decode(encode(p)) != p\n p = %+v\n q = %+v", seed, p, q)
		}
		c2, err := q.Canonical()
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("seed %d: canonical bytes not stable (%v)", seed, err)
		}
	}
}

type gen struct{ r *rand.Rand }

func (g gen) str() string {
	pool := []string{"a", "Z", "0", " ", "\n", "\x00", "\x1f", "\x7f", "\"", "\\", "/", "<", "&", "é", "日", "😀", "\u2028", "\ufeff"}
	var b strings.Builder
	for range g.r.IntN(8) {
		b.WriteString(pool[g.r.IntN(len(pool))])
	}
	return b.String()
}

func (g gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func opt[T any](g gen, f func() T) Opt[T] {
	switch g.r.IntN(3) {
	case 0:
		return Opt[T]{}
	case 1:
		return Null[T]()
	default:
		return Some(f())
	}
}

func (g gen) strs() []string {
	out := make([]string, g.r.IntN(3))
	for i := range out {
		out[i] = g.str()
	}
	return out
}

func (g gen) value(depth int) any {
	k := g.r.IntN(7)
	if depth > 3 {
		k %= 4
	}
	switch k {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return json.Number(g.pick("0", "-0", "1.50", "1e5", "-2.5E-3", "12345678901234567890"))
	case 3:
		return g.str()
	case 4:
		out := make([]any, g.r.IntN(3))
		for i := range out {
			out[i] = g.value(depth + 1)
		}
		return out
	default:
		out := map[string]any{}
		for range g.r.IntN(3) {
			out[g.str()] = g.value(depth + 1)
		}
		return out
	}
}

func (g gen) opaque() Opt[any] {
	o := opt(g, func() any { return g.value(1) })
	if o.Set && !o.Null && o.V == nil {
		o.V = "x"
	}
	return o
}

func (g gen) extra() map[string]any {
	if g.r.IntN(2) == 0 {
		return nil
	}
	out := map[string]any{}
	for i := range 1 + g.r.IntN(2) {
		out[fmt.Sprintf("zz_%d%s", i, g.str())] = g.value(1)
	}
	return out
}

func (g gen) predicate() *Predicate {
	return &Predicate{
		Revision: opt(g, func() uint32 { return g.r.Uint32() }),
		Verdict:  Verdict(g.pick("verified", "regression_only", "attested", "skipped", g.str())),
		Unit:     Unit{Format: g.str(), Feature: g.str(), Dir: g.str(), Extra: g.extra()},
		Task:     TaskRef{ID: g.str(), LineHash: g.str(), Title: g.str(), Extra: g.extra()},
		Tree:     g.str(),
		Spec: opt(g, func() SpecRef {
			return SpecRef{Section: opt(g, g.str), SectionHash: g.str(), Extra: g.extra()}
		}),
		Trace: g.opaque(), Integrity: g.opaque(), Monitor: g.opaque(), Mutation: g.opaque(),
		Sandbox: g.opaque(), Executor: g.opaque(), Model: g.opaque(), Run: g.opaque(),
		Decisions: g.opaque(), Strength: g.opaque(), Instructions: g.opaque(),
		Decider:      opt(g, func() Decider { return Decider{By: g.str(), Reason: g.str(), Extra: g.extra()} }),
		PolicySHA256: g.str(),
		Time:         g.str(),
		Red: opt(g, func() Red {
			return Red{Kind: RedKind(g.pick("assertion", "missing_symbol")), Excerpt: opt(g, g.str),
				ExcerptSHA256: opt(g, g.str), OutputSHA256: g.str(), Withheld: g.r.IntN(2) == 0, Extra: g.extra()}
		}),
		Bug: g.opaque(), Acceptance: g.opaque(),
		Regression:   opt(g, g.regression),
		Collection:   opt(g, g.collection),
		Context:      g.opaque(),
		Dependencies: g.opaque(),
		Extra:        g.extra(),
	}
}

func (g gen) regression() RegressionReason {
	r := RegressionReason{Extra: g.extra()}
	switch g.r.IntN(10) {
	case 0:
		r.Reason = ReasonNoScenarios
		r.Story = Some(g.str())
	case 1:
		r.Reason = ReasonAuthorFailed
		r.Detail = Some(g.str())
	case 2:
		r.Reason = ReasonAlreadyPassing
		r.ImplementedBy = opt(g, func() ImplementedBy {
			if g.r.IntN(2) == 0 {
				return ImplementedBy{BeforeFeature: Some(true), Extra: g.extra()}
			}
			return ImplementedBy{Task: Some(g.str()), Commit: Some(g.str())}
		})
	case 3:
		r.Reason = ReasonNotRed
		r.RedClass = Some(RedClass(g.pick("assertion", "absent", "build_error", "collection_error",
			"timeout", "no_tests", "flaky", "unclassified", "passed")))
	default:
		r.Reason = Reason(g.pick("no_story", "acceptance_off", "author_wrote_none",
			"tests_not_collected", "planning_work", "unrecorded"))
	}
	return r
}

func (g gen) collection() Collection {
	c := Collection{Files: make([]FileCollection, g.r.IntN(3)), Extra: g.extra()}
	for i := range c.Files {
		c.Files[i] = FileCollection{
			Path:      g.str(),
			State:     FileState(g.pick("collected", "not_collected", "unknown")),
			DecidedBy: opt(g, func() DecidedBy { return DecidedBy(g.pick("static", "junit", "listing")) }),
			Tests:     g.r.Uint64(),
			TestIDs:   g.strs(),
			Rule: opt(g, func() CollectionRule {
				return CollectionRule{Toolchain: Toolchain(g.pick("rust", "python", "javascript", "go")),
					Text: g.str(), Source: g.str(), Extra: g.extra()}
			}),
			Why:   opt(g, g.str),
			Fixes: opt(g, g.strs),
			Extra: g.extra(),
		}
		if c.Files[i].Fixes.Null { // fixes is not nullable in the schema
			c.Files[i].Fixes = Opt[[]string]{}
		}
	}
	c.Listing = opt(g, func() []ListingRun {
		runs := make([]ListingRun, g.r.IntN(3))
		for i := range runs {
			runs[i] = ListingRun{Argv: g.strs(), DurationMS: g.r.Uint64(),
				Status: CheckStatus(g.pick("passed", "failed", "timed_out", "skipped", "error")), Extra: g.extra()}
		}
		return runs
	})
	if c.Listing.Null { // listing is not nullable in the schema
		c.Listing = Opt[[]ListingRun]{}
	}
	return c
}

func BenchmarkDecodeAndCanonical(b *testing.B) {
	data, err := os.ReadFile("testdata/full_v3.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		p, err := Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Canonical(); err != nil {
			b.Fatal(err)
		}
	}
}
