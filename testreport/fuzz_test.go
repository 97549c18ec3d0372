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
	fc := Collect(r, []string{"a_test.go", "tests/test_a.py", "src/a.test.js", "tests/a.rs"}, fstest.MapFS{
		"a_test.go":       {Data: []byte("func TestA(t *testing.T) {}")},
		"tests/test_a.py": {Data: []byte("def test_a():\n    pass\n")},
	})
	for _, c := range fc {
		if len(c.TestIDs) > MaxTestIDs || uint64(len(c.TestIDs)) > c.Tests {
			t.Fatalf("%+v", c)
		}
	}
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
