package attest

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
)

const (
	testCommit = "0123456789abcdef0123456789abcdef01234567"
	testTree   = "89abcdef0123456789abcdef0123456789abcdef"
)

// testPredicate builds a predicate for task T001 of a spec-kit unit with the
// given verdict and evidence (JSON object text or "").
func testPredicate(t *testing.T, verdict predicate.Verdict, evidence string) *predicate.Predicate {
	t.Helper()
	unit := specfmt.Unit{Format: specfmt.Speckit, Feature: "001-x", Dir: "specs/001-x"}
	tf, err := specfmt.ParseTasks(unit, []byte("- [x] T001 [US1] Do the thing\n"))
	if err != nil {
		t.Fatal(err)
	}
	in := predicate.Input{Unit: unit, Task: tf.Tasks[0], Tree: testTree, Verdict: verdict,
		Time: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
	if evidence != "" {
		in.Evidence = []byte(evidence)
	}
	if verdict == predicate.Attested || verdict == predicate.Skipped {
		in.Decider = &predicate.Decider{By: "ada", Reason: "checked by hand"}
	}
	p, err := predicate.Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return p
}

// decodeJSON decodes canonical bytes with encoding/json for assertions.
func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

func TestPhasesFromTrace(t *testing.T) {
	tests := []struct {
		name  string
		trace string
		want  []testPhase
	}{
		{"absent", `null`, nil},
		{"not an array", `{"phase":"red"}`, nil},
		{"no test rows", `[{"event":"start"},{"phase":"red"},{"test":"t"},1,"x"]`, nil},
		{
			"two phases in first-row order, results case-insensitive",
			`[{"phase":"red","test":"a","result":"FAIL"},
			  {"phase":"green","test":"a","result":"Passed"},
			  {"phase":"red","test":"b","result":"ok"},
			  {"phase":"green","test":"b","result":"pass"},
			  {"phase":"green","test":"c"},
			  {"phase":"green","test":"d","result":7}]`,
			[]testPhase{
				{Name: "red", Passed: []string{"b"}, Failed: []string{"a"}},
				{Name: "green", Passed: []string{"a", "b"}, Failed: []string{"c", "d"}},
			},
		},
		{"empty phase or test names are not rows", `[{"phase":"","test":"a","result":"pass"},{"phase":"x","test":"","result":"pass"}]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := strictjson.Decode([]byte(tt.trace), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := phasesFromTrace(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("phasesFromTrace = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestPhasesFromReportRows: trace rows as the test reports give them
// (package evidence) are read into phases in the order of their first row, a
// skipped case counted in the phase's warnedTests and making its test-result
// WARNED.
func TestPhasesFromReportRows(t *testing.T) {
	const id = "tests.test_greet::test_hello_greets_by_name"
	junit := `[{"requirement":"US1","scenario":"greets by name","test":"` + id + `"},{"phase":"green","result":"pass","test":"manual check"},` +
		`{"file":"tests/test_greet.py","phase":"red","requirement":"US1","result":"fail","scenario":"greets by name","test":"` + id + `"},` +
		`{"file":"tests/test_greet.py","phase":"green","requirement":"US1","result":"pass","scenario":"greets by name","test":"` + id + `"}]`
	phases := phasesFromTrace(mustValue(t, []byte(junit)))
	if len(phases) != 2 || phases[0].Name != "green" || len(phases[0].Passed) != 2 || phases[1].Name != "red" || len(phases[1].Failed) != 1 {
		t.Errorf("phases %+v", phases)
	}

	skipped := `[{"file":"src/greet.test.js","phase":"green","result":"pass","test":" hello greets by name:: hello greets by name"},` +
		`{"file":"src/greet.test.js","phase":"green","result":"skip","test":" hello in French:: hello in French"}]`
	ph := phasesFromTrace(mustValue(t, []byte(skipped)))
	if len(ph) != 1 || len(ph[0].Passed) != 1 || len(ph[0].Warned) != 1 || len(ph[0].Failed) != 0 {
		t.Fatalf("phases %+v", ph)
	}
	ph[0].URL = "reports/jest-junit-green.xml"
	tr := testResultPredicate(ph[0], strings.Repeat("ab", 32))
	if tr["result"] != "WARNED" || tr["url"] != "reports/jest-junit-green.xml" || len(tr["warnedTests"].([]any)) != 1 {
		t.Errorf("test result %v", tr)
	}
}

func TestTestResultPredicate(t *testing.T) {
	pol := strings.Repeat("ab", 32)
	for _, tt := range []struct {
		phase  testPhase
		result string
	}{
		{testPhase{Name: "green", Passed: []string{"a"}}, "PASSED"},
		{testPhase{Name: "red", Passed: []string{"a"}, Failed: []string{"b"}}, "FAILED"},
	} {
		got := testResultPredicate(tt.phase, pol)
		b, err := strictjson.Canonical(got)
		if err != nil {
			t.Fatal(err)
		}
		m := decodeJSON(t, b)
		if m["result"] != tt.result || m["url"] != "phase:"+tt.phase.Name {
			t.Errorf("%s: result=%v url=%v", tt.phase.Name, m["result"], m["url"])
		}
		conf := m["configuration"].([]any)[0].(map[string]any)
		if conf["uri"] != judgePolicyURI || conf["digest"].(map[string]any)["sha256"] != pol {
			t.Errorf("configuration = %v", conf)
		}
		if n := len(m["passedTests"].([]any)) + len(m["failedTests"].([]any)); n != len(tt.phase.Passed)+len(tt.phase.Failed) {
			t.Errorf("%d tests listed", n)
		}
	}
}

// TestTickStatementsOrderAndVSA checks docs/format.md#statements: test-result
// statements per phase, then the task-verification statement, then the VSA
// naming the others by the SHA-256 of their canonical payloads, with every VSA
// field as docs/format.md#statements defines it.
func TestTickStatementsOrderAndVSA(t *testing.T) {
	const trace = `{"trace":[{"phase":"red","test":"t1","result":"fail"},{"phase":"green","test":"t1","result":"pass"}]}`
	tests := []struct {
		name     string
		verdict  predicate.Verdict
		evidence string
		types    []string
		level    string
	}{
		{"verified with two phases", predicate.Verified, trace,
			[]string{statement.TestResultType, statement.TestResultType, predicate.PredicateType, statement.VSAType}, "TASK_VERIFIED"},
		{"verified without trace", predicate.Verified, "",
			[]string{predicate.PredicateType, statement.VSAType}, "TASK_VERIFIED"},
		{"regression_only", predicate.RegressionOnly, `{"regression":{"reason":"planning_work"}}`,
			[]string{predicate.PredicateType, statement.VSAType}, "TASK_REGRESSION_ONLY"},
		{"attested alone", predicate.Attested, "", []string{predicate.PredicateType}, ""},
		{"skipped alone", predicate.Skipped, "", []string{predicate.PredicateType}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPredicate(t, tt.verdict, tt.evidence)
			subject := statement.Subject{Name: "001-x/T001", GitCommit: testCommit}
			stmts, err := TickStatements(subject, p)
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, s := range stmts {
				st, err := statement.Decode(s)
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if len(st.Subjects) != 1 || st.Subjects[0].Name != subject.Name || st.Subjects[0].Digest["gitCommit"] != testCommit {
					t.Errorf("subject = %+v", st.Subjects)
				}
				if c, err := strictjson.Canonical(mustValue(t, s)); err != nil || string(c) != string(s) {
					t.Errorf("statement bytes are not canonical: %s", s)
				}
				types = append(types, st.PredicateType)
			}
			if !reflect.DeepEqual(types, tt.types) {
				t.Fatalf("predicateTypes = %v, want %v", types, tt.types)
			}
			if tt.level == "" {
				return
			}
			// The phases in trace order.
			if len(stmts) == 4 {
				for i, ph := range []string{"red", "green"} {
					if u := decodeJSON(t, stmts[i])["predicate"].(map[string]any)["url"]; u != "phase:"+ph {
						t.Errorf("statement %d url = %v, want phase:%s", i, u, ph)
					}
				}
			}
			vsa := decodeJSON(t, stmts[len(stmts)-1])["predicate"].(map[string]any)
			var inputs []any
			for _, s := range stmts[:len(stmts)-1] {
				inputs = append(inputs, map[string]any{
					"name":   decodeJSON(t, s)["predicateType"],
					"uri":    "git-note:" + testCommit + "#sha256=" + statement.SHA256Hex(s),
					"digest": map[string]any{"sha256": statement.SHA256Hex(s)},
				})
			}
			want := map[string]any{
				"verifier":           map[string]any{"id": "https://github.com/taskproof/taskproof", "version": map[string]any{"taskproof": Version}},
				"timeVerified":       "2026-03-04T05:06:07Z",
				"resourceUri":        "git:" + testCommit,
				"policy":             map[string]any{"uri": "https://speccoder.dev/policy/judge-config/v0", "digest": map[string]any{"sha256": p.PolicySHA256}},
				"inputAttestations":  inputs,
				"verificationResult": "PASSED",
				"verifiedLevels":     []any{tt.level},
			}
			if !reflect.DeepEqual(vsa, want) {
				gb, _ := json.Marshal(vsa)
				wb, _ := json.Marshal(want)
				t.Errorf("VSA predicate\n got %s\nwant %s", gb, wb)
			}
		})
	}
}

func mustValue(t *testing.T, b []byte) any {
	t.Helper()
	v, err := strictjson.Decode(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVSAPredicateRefusesDecisions(t *testing.T) {
	for _, v := range []predicate.Verdict{predicate.Attested, predicate.Skipped, "bogus"} {
		if _, err := VSAPredicate(testCommit, v, "", "", nil, nil); err == nil {
			t.Errorf("VSAPredicate(%s) succeeded", v)
		}
	}
	if _, err := VSAPredicate(testCommit, predicate.Verified, "", "", [][]byte{{}}, nil); err == nil {
		t.Error("VSAPredicate with mismatched statements and types succeeded")
	}
}

func TestParseRegressionReason(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical JSON; "" = error
		msg  string // part of the error message
	}{
		{"planning_work", `{"reason":"planning_work"}`, ""},
		{"no_story", `{"reason":"no_story"}`, ""},
		{"acceptance_off", `{"reason":"acceptance_off"}`, ""},
		{"author_wrote_none", `{"reason":"author_wrote_none"}`, ""},
		{"tests_not_collected", `{"reason":"tests_not_collected"}`, ""},
		{"no_scenarios:story=US2", `{"reason":"no_scenarios","story":"US2"}`, ""},
		{"author_failed:detail=timeout: 30s, twice", `{"detail":"timeout: 30s, twice","reason":"author_failed"}`, ""},
		{"not_red:red_class=build_error", `{"reason":"not_red","red_class":"build_error"}`, ""},
		{"already_passing", `{"implemented_by":null,"reason":"already_passing"}`, ""},
		{"already_passing:implemented_by=before_feature", `{"implemented_by":{"before_feature":true},"reason":"already_passing"}`, ""},
		{"already_passing:implemented_by=T003@abc1234", `{"implemented_by":{"commit":"abc1234","task":"T003"},"reason":"already_passing"}`, ""},
		{"", "", "unknown regression reason"},
		{"unrecorded", "", "unknown regression reason"},
		{"Planning_Work", "", "unknown regression reason"},
		{"no_scenarios", "", "needs story="},
		{"author_failed", "", "needs detail="},
		{"not_red", "", "needs red_class="},
		{"no_scenarios:story=", "", "story is empty"},
		{"no_scenarios:detail=x", "", "takes story="},
		{"planning_work:story=US1", "", "takes no key"},
		{"no_scenarios:US2", "", "want REASON[:key=value]"},
		{"already_passing:implemented_by=T003", "", "want TASK@COMMIT"},
		{"already_passing:implemented_by=@abc", "", "want TASK@COMMIT"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRegressionReason(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("= %v, want error", got)
				}
				if !errors.Is(err, ErrRequest) || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("err = %v, want ErrRequest mentioning %q", err, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := strictjson.Canonical(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("= %s, want %s", b, tt.want)
			}
		})
	}
}

// TestParseRegressionReasonBuilds checks every accepted reason builds a
// regression_only predicate that validates against the schema (all but
// not_red's class, which must be a schema red_class).
func TestParseRegressionReasonBuilds(t *testing.T) {
	for _, in := range []string{"planning_work", "no_scenarios:story=US2", "author_failed:detail=x",
		"not_red:red_class=build_error", "already_passing", "already_passing:implemented_by=before_feature",
		"already_passing:implemented_by=T003@abc1234"} {
		r, err := ParseRegressionReason(in)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := mergeRegression(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		p := testPredicate(t, predicate.RegressionOnly, string(ev))
		b, err := p.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := predicate.Decode(b); err != nil {
			t.Errorf("%s: predicate does not validate: %v", in, err)
		}
	}
}

func TestMergeRegression(t *testing.T) {
	reason := map[string]any{"reason": "planning_work"}
	tests := []struct {
		name, evidence, want string
		isErr                bool
	}{
		{"no evidence", "", `{"regression":{"reason":"planning_work"}}`, false},
		{"evidence kept", `{"run":{"id":1}}`, `{"regression":{"reason":"planning_work"},"run":{"id":1}}`, false},
		{"same reason", `{"regression":{"reason":"planning_work"}}`, `{"regression":{"reason":"planning_work"}}`, false},
		{"null reason replaced", `{"regression":null}`, `{"regression":{"reason":"planning_work"}}`, false},
		{"different reason", `{"regression":{"reason":"no_story"}}`, "", true},
		{"not an object", `[1]`, "", true},
		{"duplicate key", `{"a":1,"a":2}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ev []byte
			if tt.evidence != "" {
				ev = []byte(tt.evidence)
			}
			got, err := mergeRegression(ev, reason)
			if tt.isErr {
				if err == nil {
					t.Fatalf("= %s, want error", got)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("= %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	if got, err := mergeRegression([]byte(`{"x":1}`), nil); err != nil || string(got) != `{"x":1}` {
		t.Errorf("nil reason: = %s, %v; want the evidence unchanged", got, err)
	}
}
