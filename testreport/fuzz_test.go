package testreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func seed(f *testing.F, ext string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*"+ext))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// check is what every report that parses must allow: classifying it, cutting
// its failure output, judging files against it.
func check(t *testing.T, r *Report) {
	switch r.RedClass() {
	case "assertion", "absent", "build_error", "collection_error", "timeout", "no_tests", "unclassified", "passed":
	default:
		t.Fatalf("class %q", r.RedClass())
	}
	_ = r.FailureOutput()
	paths := []string{"a_test.go", "tests/test_a.py", "src/a.test.js", "tests/a.rs"}
	files := NewFiles(paths, fstest.MapFS{
		"a_test.go":       {Data: []byte("func TestA(t *testing.T) {}")},
		"tests/test_a.py": {Data: []byte("def test_a():\n    pass\n")},
		"src/a.test.js":   {Data: []byte("describe('a', () => { test('b', () => {}) })\n")},
	})
	fc := files.Collect(r)
	for _, c := range fc {
		if len(c.TestIDs) > MaxTestIDs || uint64(len(c.TestIDs)) > c.Tests {
			t.Fatalf("%+v", c)
		}
	}
	// The report as its own green run: the red run classified on the own
	// tests, as a whole and file by file, and their failure output.
	own := files.OwnTests(r)
	for _, p := range append([]string{""}, paths...) {
		var c Classification
		if p == "" {
			c = r.ClassifyOwn(NewChange(), own)
		} else {
			c = r.ClassifyOwn(NewChange(), own, p)
		}
		if c.Class == "" {
			t.Fatalf("%s: no class", p)
		}
	}
	_ = r.OwnFailureOutput(own)
}

func FuzzReadRunOutput(f *testing.F) {
	seed(f, ".xml")
	f.Add([]byte("--- FAIL: TestBye (0.00s)\n    bye_test.go:7: want bye\nFAIL\nFAIL\texample.com/m\t0.002s\n"))
	f.Add([]byte("==== 1 failed, 2 passed in 0.12s ====\n"))
	f.Add([]byte("Tests:       1 passed, 1 total\n"))
	f.Add([]byte("      Tests  1 failed | 2 passed (3)\n"))
	f.Add([]byte("running 1 test\ntest a ... ok\n\ntest result: ok. 1 passed; 0 failed\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ro := ReadRunOutput(b)
		switch ro.Outcome {
		case OutcomeUnknown, OutcomePassed, OutcomeFailed:
		default:
			t.Fatalf("outcome %q", ro.Outcome)
		}
		if ro.Outcome == OutcomePassed && (ro.TestFailed || ro.BuildFailed) {
			t.Fatalf("passed with failures: %+v", ro)
		}
		if len(ro.Text) > maxDetail+len("…") {
			t.Fatalf("text of %d bytes", len(ro.Text))
		}
	})
}

// FuzzJSTitles reads a JavaScript test file's titles and matches jest-junit
// default cases against them.
func FuzzJSTitles(f *testing.F) {
	f.Add([]byte("describe('Greeter', () => {\n  it(\"says hi\", () => {})\n  test(`shouts`, () => {})\n})\n"), "Greeter says hi")
	f.Add([]byte("test('a \\' b', () => {})\n"), " a ' b")
	f.Fuzz(func(t *testing.T, src []byte, name string) {
		files := NewFiles([]string{"a.test.js"}, fstest.MapFS{"a.test.js": {Data: src}})
		suite := &junitSuite{names: []string{name}}
		c := Case{Suite: "undefined", Class: name, Name: name, Status: StatusPassed, suite: suite}
		_ = files.Of(c)
	})
}

func FuzzParseJUnit(f *testing.F) {
	seed(f, ".xml")
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseJUnit("r.xml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "test report r.xml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		check(t, r)
	})
}

func FuzzParseGoJSON(f *testing.F) {
	seed(f, ".json")
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseGoJSON("r.json", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "test report r.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		check(t, r)
	})
}

func FuzzParseCargo(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(redCorpus, "cargo", "*", "red.log"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseCargo("r.log", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "test report r.log") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		check(t, r)
	})
}
