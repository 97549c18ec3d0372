package evidence

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
	red := func(c predicate.RedClass) testreport.Classification { return testreport.Classification{Class: c} }
	// own: a tick judging one file whose test passed green.
	own := func(f reportFacts) reportFacts {
		f.Judged, f.Own = 1, 1
		f.Red = red(f.RedClass)
		return f
	}
	files := func(f reportFacts, files ...fileFacts) reportFacts {
		f = own(f)
		f.Judged, f.Own, f.Files = len(files), len(files), files
		return f
	}
	for _, tc := range []struct {
		name    string
		f       reportFacts
		verdict predicate.Verdict
		reason  string // canonical regression, "" none
		file    string // the judged file that decided it
		err     string
	}{
		{"assertion then green", own(reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 1, Collection: collected}), predicate.Verified, "", "", ""},
		{"missing symbol then green", own(reportFacts{HasRed: true, RedClass: predicate.ClassAbsent, HasGreen: true, GreenRan: 2}), predicate.Verified, "", "", ""},
		{"red passed", own(reportFacts{HasRed: true, RedClass: predicate.ClassPassed, HasGreen: true, GreenRan: 1}), predicate.RegressionOnly, `{"implemented_by":null,"reason":"already_passing"}`, "", ""},
		{"red did not build", own(reportFacts{HasRed: true, RedClass: predicate.ClassBuildError, HasGreen: true, GreenRan: 1}), predicate.RegressionOnly, `{"reason":"not_red","red_class":"build_error"}`, "", ""},
		{"red ran nothing", own(reportFacts{HasRed: true, RedClass: predicate.ClassNoTests, HasGreen: true, GreenRan: 1}), predicate.RegressionOnly, `{"reason":"not_red","red_class":"no_tests"}`, "", ""},
		{"green ran nothing", own(reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true}), predicate.RegressionOnly, `{"reason":"tests_not_collected"}`, "", ""},
		{"no test file judged", reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 3}, predicate.RegressionOnly, `{"reason":"tests_not_collected"}`, "", ""},
		{"changed test file not collected", reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 3, Judged: 1, Collection: notCollected}, predicate.RegressionOnly, `{"reason":"tests_not_collected"}`, "", ""},
		{"green failed", own(reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 1, GreenFail: true}), "", "", "", "green report shows failing tests"},
		{"no green", own(reportFacts{HasRed: true, RedClass: predicate.ClassAssertion}), "", "", "", "only with a green test report"},
		{"no red", own(reportFacts{HasGreen: true, GreenRan: 1}), "", "", "", "only with a red test report"},
		{"files all red", files(reportFacts{HasRed: true, RedClass: predicate.ClassAbsent, HasGreen: true, GreenRan: 2},
			fileFacts{Path: "a_test.go", Own: 1, Red: red(predicate.ClassAbsent)}, fileFacts{Path: "b_test.go", Own: 1, Red: red(predicate.ClassAssertion)}), predicate.Verified, "", "", ""},
		{"a file not red", files(reportFacts{HasRed: true, RedClass: predicate.ClassAbsent, HasGreen: true, GreenRan: 2},
			fileFacts{Path: "a_test.go", Own: 1, Red: red(predicate.ClassNoTests)}, fileFacts{Path: "b_test.go", Own: 1, Red: red(predicate.ClassAbsent)}), predicate.RegressionOnly, `{"reason":"not_red","red_class":"no_tests"}`, "a_test.go", ""},
		{"a file passed red", files(reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 2},
			fileFacts{Path: "a_test.go", Own: 1, Red: red(predicate.ClassAssertion)}, fileFacts{Path: "b_test.go", Own: 1, Red: red(predicate.ClassPassed)}), predicate.RegressionOnly, `{"implemented_by":null,"reason":"already_passing"}`, "b_test.go", ""},
		{"a file not collected (a helper)", files(reportFacts{HasRed: true, RedClass: predicate.ClassAssertion, HasGreen: true, GreenRan: 2},
			fileFacts{Path: "a_test.go", Own: 1, Red: red(predicate.ClassAssertion)}, fileFacts{Path: "b_test.go"}), predicate.Verified, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := verdictFromEvidence(tc.f)
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
			if j.reason != nil {
				got = canon(j.reason)
			}
			if j.verdict != tc.verdict || got != tc.reason || j.file != tc.file {
				t.Errorf("%s %s %q, want %s %s %q", j.verdict, got, j.file, tc.verdict, tc.reason, tc.file)
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

	contra := []any{map[string]any{"test": id, "phase": "green", "result": "fail"}}
	if _, err := traceRows(contra, reports, files); !errors.Is(err, ErrRequest) || !strings.Contains(err.Error(), "the green report says pass") {
		t.Errorf("contradicting row: %v", err)
	}
}

// TestTraceRowsSkipped: a skipped case is a "skip" row.
func TestTraceRowsSkipped(t *testing.T) {
	rows, err := traceRows(nil, []PhaseReport{sample(t, PhaseGreen, "jest-junit-green.xml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"file":"src/greet.test.js","phase":"green","result":"pass","test":" hello greets by name:: hello greets by name"},` +
		`{"file":"src/greet.test.js","phase":"green","result":"skip","test":" hello in French:: hello in French"}]`
	if got := canon(rows); got != want {
		t.Errorf("rows\n%s\nwant\n%s", got, want)
	}
}

// TestWhyOf: the verdict's reason names the report line and failure that
// decided it.
func TestWhyOf(t *testing.T) {
	red := testreport.Classification{Class: predicate.ClassBuildError, Line: 4, Detail: "./t.go:5:2: cannot use x"}
	files := []predicate.FileCollection{{Path: "a_test.go"}, {Path: "b_test.go"}, {Path: "c_test.go"}, {Path: "d_test.go"}, {Path: "e_test.go"}}
	notRed := func(c predicate.RedClass) map[string]any {
		return map[string]any{"reason": "not_red", "red_class": string(c)}
	}
	tnc := map[string]any{"reason": "tests_not_collected"}
	for _, tc := range []struct {
		name string
		f    reportFacts
		j    judgement
		want string
	}{
		{"not red", reportFacts{RedName: "red.json"}, judgement{verdict: predicate.RegressionOnly, red: red, reason: notRed(predicate.ClassBuildError)},
			"not_red (build_error: red.json:4: ./t.go:5:2: cannot use x)"},
		{"verified", reportFacts{RedName: "red.json"}, judgement{verdict: predicate.Verified, red: testreport.Classification{Class: predicate.ClassAbsent, Line: 2, Detail: "undefined: Greet"}},
			"red absent (red.json:2: undefined: Greet)"},
		{"already passing", reportFacts{RedName: "red.xml"}, judgement{verdict: predicate.RegressionOnly, reason: map[string]any{"reason": "already_passing"}},
			"already_passing (the tick's own tests passed in the red report red.xml)"},
		{"own tests did not run red", reportFacts{RedName: "red.json"}, judgement{verdict: predicate.RegressionOnly, red: testreport.Classification{Class: predicate.ClassNoTests}, reason: notRed(predicate.ClassNoTests)},
			"not_red (no_tests: the red report red.json ran none of the tick's own tests)"},
		{"one of the files", reportFacts{RedName: "red.json", Ticks: 2}, judgement{verdict: predicate.RegressionOnly, red: testreport.Classification{Class: predicate.ClassNoTests}, reason: notRed(predicate.ClassNoTests), file: "a_test.go"},
			"not_red (no_tests: the red report red.json ran none of a_test.go's tests; each test file the tick judges must fail red: name the task's own with --test-files (the commit ticks 2 tasks: attest each with --task))"},
		{"nothing ran", reportFacts{GreenName: "green.xml"}, judgement{verdict: predicate.RegressionOnly, reason: tnc, missing: greenRanNothing},
			"tests_not_collected (the green report green.xml ran no test)"},
		{"no test files", reportFacts{GreenName: "green.xml"}, judgement{verdict: predicate.RegressionOnly, reason: tnc, missing: noTestFiles},
			"tests_not_collected (the tick changed no test file since the unit's previous tick: name the task's test files with --test-files)"},
		{"files not collected", reportFacts{GreenName: "green.xml", GreenRan: 2, Collection: files}, judgement{verdict: predicate.RegressionOnly, reason: tnc, missing: filesNotCollected},
			"tests_not_collected (the green report green.xml runs no test from a_test.go, b_test.go, c_test.go, 2 more)"},
		{"jest-junit without files", reportFacts{GreenName: "green.xml", GreenRan: 1, Collection: files[:1], GreenJestNoFile: true}, judgement{verdict: predicate.RegressionOnly, reason: tnc, missing: filesNotCollected},
			"tests_not_collected (the green report green.xml runs no test from a_test.go; " + testreport.JestJUnitFileHint + ")"},
	} {
		if got := whyOf(tc.f, tc.j).Text; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
