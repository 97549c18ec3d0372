package attest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/testreport"
)

func TestVerdictFromEvidence(t *testing.T) {
	collected := []predicate.FileCollection{{Path: "a_test.go", State: predicate.StateCollected, Tests: 1}}
	notCollected := []predicate.FileCollection{{Path: "a_test.go", State: predicate.StateNotCollected}}
	for _, tc := range []struct {
		name    string
		f       reportFacts
		verdict predicate.Verdict
		reason  string // canonical regression, "" none
		err     string
	}{
		{"assertion then green", reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 1, Collection: collected}, predicate.Verified, "", ""},
		{"missing symbol then green", reportFacts{HasRed: true, RedClass: predicate.ClassAbsent, HasGreen: true, GreenRan: 2}, predicate.Verified, "", ""},
		{"red passed", reportFacts{HasRed: true, RedClass: predicate.ClassPassed, HasGreen: true, GreenRan: 1}, predicate.RegressionOnly, `{"implemented_by":null,"reason":"already_passing"}`, ""},
		{"red did not build", reportFacts{HasRed: true, RedClass: predicate.ClassBuildError, HasGreen: true, GreenRan: 1}, predicate.RegressionOnly, `{"reason":"not_red","red_class":"build_error"}`, ""},
		{"red ran nothing", reportFacts{HasRed: true, RedClass: predicate.ClassNoTests, HasGreen: true, GreenRan: 1}, predicate.RegressionOnly, `{"reason":"not_red","red_class":"no_tests"}`, ""},
		{"green ran nothing", reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true}, predicate.RegressionOnly, `{"reason":"tests_not_collected"}`, ""},
		{"changed test file not collected", reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 3, Collection: notCollected}, predicate.RegressionOnly, `{"reason":"tests_not_collected"}`, ""},
		{"green failed", reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 1, GreenFail: true}, "", "", "green report shows failing tests"},
		{"no green", reportFacts{HasRed: true, RedClass: predicate.ClassAssertion}, "", "", "only with a green test report"},
		{"no red", reportFacts{HasGreen: true, GreenRan: 1}, "", "", "only with a red test report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, reason, err := verdictFromEvidence(tc.f)
			if tc.err != "" {
				if !errors.Is(err, ErrRequest) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if reason != nil {
				got = canon(reason)
			}
			if v != tc.verdict || got != tc.reason {
				t.Errorf("%s %s, want %s %s", v, got, tc.verdict, tc.reason)
			}
		})
	}
}

func sample(t *testing.T, phase, name string) PhaseReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testreport", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := testreport.Parse(name, b)
	if err != nil {
		t.Fatal(err)
	}
	return PhaseReport{Phase: phase, Name: name, Report: r}
}

// TestTraceRowsFromJUnit: the rows of a pytest red and green report keep the
// evidence's own rows, take its requirement and scenario for the same test,
// name the judged file, and refuse a row the report contradicts.
func TestTraceRowsFromJUnit(t *testing.T) {
	reports := []PhaseReport{sample(t, PhaseRed, "pytest-red-assertion.xml"), sample(t, PhaseGreen, "pytest-green.xml")}
	id := "tests.test_greet::test_hello_greets_by_name"
	existing := []any{
		map[string]any{"requirement": "US1", "scenario": "greets by name", "test": id},
		map[string]any{"test": "manual check", "phase": "green", "result": "pass"},
	}
	files := testreport.NewFiles([]string{"tests/test_greet.py"}, nil)
	rows, err := traceRows(existing, reports, files)
	if err != nil {
		t.Fatal(err)
	}
	got := canon(rows)
	want := `[{"requirement":"US1","scenario":"greets by name","test":"` + id + `"},{"phase":"green","result":"pass","test":"manual check"},` +
		`{"file":"tests/test_greet.py","phase":"red","requirement":"US1","result":"fail","scenario":"greets by name","test":"` + id + `"},` +
		`{"file":"tests/test_greet.py","phase":"green","requirement":"US1","result":"pass","scenario":"greets by name","test":"` + id + `"}]`
	if got != want {
		t.Errorf("rows\n%s\nwant\n%s", got, want)
	}
	phases := phasesFromTrace(rows)
	// Phases come in the order of their first row: the evidence's green row.
	if len(phases) != 2 || phases[0].Name != "green" || len(phases[0].Passed) != 2 || phases[1].Name != "red" || len(phases[1].Failed) != 1 {
		t.Errorf("phases %+v", phases)
	}

	contra := []any{map[string]any{"test": id, "phase": "green", "result": "fail"}}
	if _, err := traceRows(contra, reports, files); !errors.Is(err, ErrRequest) || !strings.Contains(err.Error(), "the green report says pass") {
		t.Errorf("contradicting row: %v", err)
	}
}

// TestTraceRowsSkipped: a skipped case is a "skip" row, counted in the phase's
// warnedTests and making its test-result WARNED.
func TestTraceRowsSkipped(t *testing.T) {
	rows, err := traceRows(nil, []PhaseReport{sample(t, PhaseGreen, "jest-junit-green.xml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ph := phasesFromTrace(rows)
	if len(ph) != 1 || len(ph[0].Passed) != 1 || len(ph[0].Warned) != 1 || len(ph[0].Failed) != 0 {
		t.Fatalf("phases %+v", ph)
	}
	ph[0].URL = "reports/jest-junit-green.xml"
	tr := testResultPredicate(ph[0], strings.Repeat("ab", 32))
	if tr["result"] != "WARNED" || tr["url"] != "reports/jest-junit-green.xml" || len(tr["warnedTests"].([]any)) != 1 {
		t.Errorf("test result %v", tr)
	}
}

// TestWhyOf: the verdict's reason names the report line and failure that
// decided it.
func TestWhyOf(t *testing.T) {
	red := testreport.Classification{Class: predicate.ClassBuildError, Line: 4, Detail: "./t.go:5:2: cannot use x"}
	files := []predicate.FileCollection{{Path: "a_test.go"}, {Path: "b_test.go"}, {Path: "c_test.go"}, {Path: "d_test.go"}, {Path: "e_test.go"}}
	for _, tc := range []struct {
		name    string
		f       reportFacts
		verdict predicate.Verdict
		reason  map[string]any
		want    string
	}{
		{"not red", reportFacts{RedClass: predicate.ClassBuildError, Red: red, RedName: "red.json"}, predicate.RegressionOnly,
			map[string]any{"reason": "not_red"}, "not_red (build_error: red.json:4: ./t.go:5:2: cannot use x)"},
		{"verified", reportFacts{RedClass: predicate.ClassAbsent, Red: testreport.Classification{Class: predicate.ClassAbsent, Line: 2, Detail: "undefined: Greet"}, RedName: "red.json"},
			predicate.Verified, nil, "red absent (red.json:2: undefined: Greet)"},
		{"already passing", reportFacts{RedName: "red.xml"}, predicate.RegressionOnly, map[string]any{"reason": "already_passing"}, "already_passing (the red report red.xml passed)"},
		{"nothing ran", reportFacts{GreenName: "green.xml"}, predicate.RegressionOnly, map[string]any{"reason": "tests_not_collected"}, "tests_not_collected (the green report green.xml ran no test)"},
		{"files not collected", reportFacts{GreenName: "green.xml", GreenRan: 2, Collection: files}, predicate.RegressionOnly, map[string]any{"reason": "tests_not_collected"},
			"tests_not_collected (the green report green.xml runs no test from a_test.go, b_test.go, c_test.go, 2 more)"},
	} {
		if got := whyOf(tc.f, tc.verdict, tc.reason).Text; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
