package testreport

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/taskproof/taskproof/predicate"
)

func readSample(t *testing.T, name string) *Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(name, b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// TestSamples reads every runner's checked-in reports (testdata/README.md says
// where each comes from) and checks what each shows.
func TestSamples(t *testing.T) {
	for _, tc := range []struct {
		file                    string
		format                  Format
		class                   predicate.RedClass
		passed, failed, skipped int
		testFile                string // collected by the report
		wantIDs                 []string
	}{
		{"pytest-red-assertion.xml", FormatJUnit, predicate.ClassAssertion, 0, 1, 0, "tests/test_greet.py", []string{"tests.test_greet::test_hello_greets_by_name"}},
		{"pytest-red-missing.xml", FormatJUnit, predicate.ClassAbsent, 0, 1, 0, "", nil},
		{"pytest-green.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 0, "tests/test_greet.py", []string{"tests.test_greet::test_hello_greets_by_name"}},
		{"pytest-green-missing.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 0, "tests/test_farewell.py", []string{"tests.test_farewell::test_farewell_says_bye"}},
		{"jest-junit-red.xml", FormatJUnit, predicate.ClassAssertion, 0, 1, 1, "src/greet.test.js", []string{" hello greets by name:: hello greets by name"}},
		{"jest-junit-missing.xml", FormatJUnit, predicate.ClassAbsent, 0, 1, 0, "src/greet2.test.js", nil},
		{"jest-junit-green.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 1, "src/greet.test.js", []string{" hello greets by name:: hello greets by name"}},
		{"jest-junit-default-red.xml", FormatJUnit, predicate.ClassAbsent, 0, 1, 0, "", nil},
		{"jest-junit-default-green.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 0, "", nil},
		{"jest-junit-green-missing.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 0, "src/greet2.test.js", []string{" greet greets by name:: greet greets by name"}},
		{"vitest-red.xml", FormatJUnit, predicate.ClassAssertion, 0, 1, 0, "src/greet.test.mjs", []string{"src/greet.test.mjs::greet > hello greets by name"}},
		{"vitest-green.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 0, "src/greet.test.mjs", nil},
		{"go-junit-report-red.xml", FormatJUnit, predicate.ClassAssertion, 0, 1, 1, "", nil},
		{"go-junit-report-missing.xml", FormatJUnit, predicate.ClassAbsent, 0, 1, 0, "", nil},
		{"go-junit-report-green.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 0, "greet_test.go", []string{"example.com/greet::TestGreet"}},
		{"go-test-json-red.json", FormatGoJSON, predicate.ClassAssertion, 0, 1, 1, "greet_test.go", []string{"example.com/greet::TestHello"}},
		{"go-test-json-missing.json", FormatGoJSON, predicate.ClassAbsent, 0, 0, 0, "", nil},
		{"surefire-red.xml", FormatJUnit, predicate.ClassAssertion, 0, 1, 1, "src/test/java/com/example/greet/GreetTest.java", []string{"com.example.greet.GreetTest::helloGreetsByName"}},
		{"surefire-green.xml", FormatJUnit, predicate.ClassPassed, 1, 0, 1, "src/test/java/com/example/greet/GreetTest.java", nil},
		{"nextest-red.xml", FormatJUnit, predicate.ClassAssertion, 1, 1, 0, "crates/greet/tests/greeting.rs", []string{"greet::greeting::hello_greets_by_name", "greet::greeting::hello_trims"}},
		{"nextest-green.xml", FormatJUnit, predicate.ClassPassed, 2, 0, 0, "tests/greeting.rs", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := readSample(t, tc.file)
			if r.Format != tc.format {
				t.Errorf("format %s, want %s", r.Format, tc.format)
			}
			if got := r.RedClass(); got != tc.class {
				t.Errorf("red class %s, want %s", got, tc.class)
			}
			if p, f, s := len(r.Passed()), len(r.Failed()), len(r.Skipped()); p != tc.passed || f != tc.failed || s != tc.skipped {
				t.Errorf("passed/failed/skipped %d/%d/%d, want %d/%d/%d", p, f, s, tc.passed, tc.failed, tc.skipped)
			}
			if tc.class != predicate.ClassPassed && len(r.FailureOutput()) == 0 {
				t.Error("no failure output")
			}
			if tc.testFile == "" {
				return
			}
			tree := fstest.MapFS{"tests/test_other.py": {Data: []byte("def test_hello_greets_by_name():\n    pass\n")}}
			if strings.HasSuffix(tc.testFile, "_test.go") {
				tree[tc.testFile] = &fstest.MapFile{Data: []byte("package greet\n\nfunc TestHello(t *testing.T) {}\nfunc TestGreet(t *testing.T) {}\n")}
			}
			got := Collect(r, []string{tc.testFile, "tests/test_other.py"}, tree)
			if got[0].State != predicate.StateCollected || got[0].Tests == 0 {
				t.Errorf("%s: %+v, want collected", tc.testFile, got[0])
			}
			if d, _ := got[0].DecidedBy.Get(); d != predicate.DecidedByJUnit {
				t.Errorf("decided_by %v", got[0].DecidedBy)
			}
			if tc.wantIDs != nil && !reflect.DeepEqual(got[0].TestIDs, tc.wantIDs) {
				t.Errorf("test_ids %q, want %q", got[0].TestIDs, tc.wantIDs)
			}
			if got[1].State != predicate.StateNotCollected || got[1].Tests != 0 || len(got[1].TestIDs) != 0 {
				t.Errorf("tests/test_other.py: %+v, want not_collected", got[1])
			}
		})
	}
}

// A skipped case does not collect its file; a report with nothing run is no_tests.
func TestSkippedIsNotCollected(t *testing.T) {
	r, err := Parse("r.xml", []byte(`<testsuite name="s"><testcase classname="tests.test_a" name="t"><skipped/></testcase></testsuite>`))
	if err != nil {
		t.Fatal(err)
	}
	if c := r.RedClass(); c != predicate.ClassNoTests {
		t.Errorf("class %s, want no_tests", c)
	}
	if got := Collect(r, []string{"tests/test_a.py"}, nil); got[0].State != predicate.StateNotCollected {
		t.Errorf("%+v", got[0])
	}
}

func TestRedClasses(t *testing.T) {
	for _, tc := range []struct {
		name, report string
		want         predicate.RedClass
	}{
		{"other build error", `{"ImportPath":"m [m.test]","Action":"build-output","Output":"./a_test.go:3:2: syntax error: unexpected }\n"}
{"ImportPath":"m [m.test]","Action":"build-fail"}
{"Action":"fail","Package":"m","FailedBuild":"m [m.test]"}`, predicate.ClassBuildError},
		{"missing symbol and a type error", `{"ImportPath":"m [m.test]","Action":"build-output","Output":"./a_test.go:3:2: undefined: Greet\n./a_test.go:4:2: cannot use 1 (untyped int constant) as string value\n"}
{"Action":"fail","Package":"m","FailedBuild":"m [m.test]"}`, predicate.ClassBuildError},
		{"panic", `{"Action":"run","Package":"m","Test":"TestA"}
{"Action":"output","Package":"m","Test":"TestA","Output":"panic: not implemented [recovered]\n"}
{"Action":"fail","Package":"m","Test":"TestA"}`, predicate.ClassUnclassified},
		{"timeout", `{"Action":"run","Package":"m","Test":"TestA"}
{"Action":"output","Package":"m","Output":"panic: test timed out after 1s\n"}
{"Action":"fail","Package":"m"}`, predicate.ClassTimeout},
		{"killed mid-test", `{"Action":"run","Package":"m","Test":"TestA"}`, predicate.ClassAssertion},
		{"empty run", `{"Action":"start","Package":"m"}
{"Action":"pass","Package":"m"}`, predicate.ClassNoTests},
		{"junit error", `<testsuites><testsuite name="s"><testcase classname="c" name="t"><error message="failed on setup with &quot;fixture 'db' not found&quot;"/></testcase></testsuite></testsuites>`, predicate.ClassCollectionError},
		{"junit exception", `<testsuite name="s"><testcase classname="c" name="t"><error type="java.lang.NullPointerException"/></testcase></testsuite>`, predicate.ClassUnclassified},
		{"assertion beside a setup error", `<testsuite name="s"><testcase classname="c" name="t"><failure/></testcase><testcase classname="c" name="u"><error message="collection failure"/></testcase></testsuite>`, predicate.ClassCollectionError},
		{"assertion beside a missing symbol", `<testsuite name="s"><testcase classname="c" name="t"><failure/></testcase><testcase classname="c" name="u"><failure>ReferenceError: greet is not defined</failure></testcase></testsuite>`, predicate.ClassAbsent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse("r", []byte(tc.report))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.RedClass(); got != tc.want {
				t.Errorf("class %s, want %s", got, tc.want)
			}
		})
	}
}

// An unreadable report names the file and the line.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, report, want string
	}{
		{"empty", "  \n", "test report r: empty file"},
		{"text", "\n\nok  \tm\t0.1s\n", "test report r:3: neither JUnit XML, `go test -json` nor"},
		{"bad json line", `{"Action":"start","Package":"m"}` + "\n" + `{"Action":"run","Package":"m","Test":"T"` + "\n", "test report r:2: not a `go test -json` event"},
		{"plain line among events", `{"Action":"start","Package":"m"}` + "\nFAIL\tm\n", "test report r:2: not a `go test -json` event"},
		{"unknown action", `{"Action":"explode","Package":"m"}`, "test report r:1: unknown `go test -json` action"},
		{"xml syntax", "<testsuites>\n<testsuite name=\"a\">\n<testcase name=\"x\">\n</testsuite>\n", "test report r:4:"},
		{"not junit", "<?xml version=\"1.0\"?>\n<html><body/></html>", "test report r:2: root element <html>"},
		{"cdata", "<testsuite><testcase name=\"x\"><failure>]]&gt;</failure></testcase></testsuite>", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("r", []byte(tc.report))
			if tc.want == "" {
				return // only: no panic
			}
			if !errors.Is(err, ErrUnreadable) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestIsTestFile(t *testing.T) {
	yes := []string{"a_test.go", "pkg/x/a_test.go", "tests/test_a.py", "a_test.py", "src/a.test.ts", "src/a.spec.jsx", "src/a.test.mjs", "tests/it.rs", "crates/c/tests/it.rs", "src/test/java/a/GreetTest.java", "TestGreet.kt", "GreetTests.java"}
	no := []string{"a.go", "test.go", "a.py", "testing.py", "src/a.ts", "src/tests.js", "src/lib.rs", "tests/common/mod.rs", "README.md", "src/main/java/a/Greet.java", "Testing.md"}
	for _, p := range yes {
		if !IsTestFile(p) {
			t.Errorf("%s: not a test file", p)
		}
	}
	for _, p := range no {
		if IsTestFile(p) {
			t.Errorf("%s: a test file", p)
		}
	}
}
