package testreport

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/taskproof/taskproof/predicate"
)

// goEvents is a `go test -json` report made of lines "pkg test action" (an
// action "output:TEXT" is an output event), for the classification tests.
func goEvents(t *testing.T, lines ...string) *Report {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		f := strings.SplitN(l, " ", 3)
		pkg, test, action := f[0], f[1], f[2]
		if test == "-" {
			test = ""
		}
		out := ""
		if text, ok := strings.CutPrefix(action, "output:"); ok {
			action, out = "output", text+"\n"
		}
		b.WriteString(`{"Action":"` + action + `","Package":"` + pkg + `","Test":"` + test + `","Output":` + quote(out) + "}\n")
	}
	r, err := Parse("r.json", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s) + `"`
}

// TestClassifyOwn: the red run is classified on the tick's own tests — the
// judged files' tests that passed green — alone.
func TestClassifyOwn(t *testing.T) {
	tree := fstest.MapFS{
		"go.mod":              {Data: []byte("module example.com/m\n")},
		"greet/shout_test.go": {Data: []byte("package greet\n\nfunc TestShout(t *testing.T) {}\n")},
		"greet/bye_test.go":   {Data: []byte("package greet\n\nfunc TestBye(t *testing.T) {}\nfunc TestBye2(t *testing.T) {}\n")},
		"other/other_test.go": {Data: []byte("package other\n\nfunc TestFlaky(t *testing.T) {}\n")},
		"greet/t001_test.go":  {Data: []byte("package greet\n\nfunc TestT001(t *testing.T) {}\n")},
		"greet/t002_test.go":  {Data: []byte("package greet\n\nfunc TestT002(t *testing.T) {}\n")},
	}
	green := goEvents(t,
		"example.com/m/greet TestShout pass", "example.com/m/greet TestBye2 pass",
		"example.com/m/other TestFlaky pass", "example.com/m/greet TestT001 pass", "example.com/m/greet TestT002 pass")
	ch := NewChange()
	ch.AddFile("greet/greet.go", []byte("package greet\n"), []byte("package greet\n\nfunc Bye() string { return \"\" }\n"))
	for _, tc := range []struct {
		name  string
		files []string
		red   *Report
		want  predicate.RedClass
		// perFile are the classes of each judged file on its own.
		perFile []predicate.RedClass
	}{
		{"own test passed, another package's failed", []string{"greet/shout_test.go", "other/other_test.go"},
			goEvents(t, "example.com/m/greet TestShout pass", "example.com/m/other TestFlaky output:    other_test.go:10: flaky", "example.com/m/other TestFlaky fail"),
			predicate.ClassAssertion, []predicate.RedClass{predicate.ClassPassed, predicate.ClassAssertion}},
		{"only another package's test failed", []string{"greet/shout_test.go"},
			goEvents(t, "example.com/m/greet TestShout pass", "example.com/m/other TestFlaky fail"),
			predicate.ClassPassed, nil},
		{"own test not in the red run", []string{"greet/shout_test.go"},
			goEvents(t, "example.com/m/other TestFlaky fail"),
			predicate.ClassNoTests, nil},
		{"a red failure of a test the green run did not pass", []string{"greet/bye_test.go"},
			goEvents(t, "example.com/m/greet TestBye fail", "example.com/m/greet TestBye2 pass"),
			predicate.ClassPassed, nil},
		{"build failure in the other task's file", []string{"greet/t001_test.go", "greet/t002_test.go"},
			goEvents(t, "example.com/m/greet - output:# example.com/m/greet [example.com/m/greet.test]",
				"example.com/m/greet - output:greet/t002_test.go:6:5: undefined: Bye",
				"example.com/m/greet - output:FAIL\texample.com/m/greet [build failed]", "example.com/m/greet - fail"),
			predicate.ClassAbsent, []predicate.RedClass{predicate.ClassNoTests, predicate.ClassAbsent}},
		{"build failure of another package", []string{"greet/shout_test.go"},
			goEvents(t, "example.com/m/other - output:other/other_test.go:3:1: syntax error", "example.com/m/other - output:FAIL\texample.com/m/other [build failed]",
				"example.com/m/other - fail", "example.com/m/greet TestShout output:    shout_test.go:5: got hi", "example.com/m/greet TestShout fail"),
			predicate.ClassAssertion, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := NewFiles(tc.files, tree)
			own := files.OwnTests(green)
			got := tc.red.ClassifyOwn(ch, own)
			if got.Class != tc.want {
				t.Errorf("class %s (%s), want %s", got.Class, got.Detail, tc.want)
			}
			for i, want := range tc.perFile {
				if got := tc.red.ClassifyOwn(ch, own, tc.files[i]); got.Class != want {
					t.Errorf("%s: class %s (%s), want %s", tc.files[i], got.Class, got.Detail, want)
				}
			}
			out := string(tc.red.OwnFailureOutput(own))
			if strings.Contains(out, "TestFlaky") && tc.want != predicate.ClassAssertion {
				t.Errorf("own failure output holds another package's failure:\n%s", out)
			}
		})
	}
}

// TestClassifyOwnWholeFile: a module pytest could not collect, a suite jest
// could not run and go-junit-report's "[build failed]" case are failures of
// their file's own tests.
func TestClassifyOwnWholeFile(t *testing.T) {
	ch := NewChange()
	ch.AddFile("greet.py", []byte("def hello(): pass\n"), []byte("def hello(): pass\ndef farewell(): pass\n"))
	ch.AddFile("src/greet.js", nil, []byte("exports.greet = 1\n"))
	ch.AddFile("greet.go", []byte("package greet\n"), []byte("package greet\n\nfunc Greet() {}\n"))
	for _, tc := range []struct {
		name, file, content, red, green string
	}{
		{"pytest collection error", "tests/test_farewell.py", "def test_farewell_says_bye(): pass\n", "pytest-red-missing.xml", "pytest-green-missing.xml"},
		{"go-junit-report build failure", "greet_test.go", "package greet\n\nfunc TestGreet(t *testing.T) {}\n", "go-junit-report-missing.xml", "go-junit-report-green.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := fstest.MapFS{tc.file: {Data: []byte(tc.content)}, "go.mod": {Data: []byte("module example.com/greet\n")}}
			own := NewFiles([]string{tc.file}, tree).OwnTests(readSample(t, tc.green))
			if own.Len() != 1 {
				t.Fatalf("%d own tests", own.Len())
			}
			if got := readSample(t, tc.red).ClassifyOwn(ch, own); got.Class != predicate.ClassAbsent {
				t.Errorf("class %s (%s), want absent", got.Class, got.Detail)
			}
		})
	}
	// A suite jest could not run names its file.
	red, err := Parse("red.xml", []byte(`<testsuites name="jest tests"><testsuite name="src/greet.test.js"><testcase classname="Test suite failed to run" name="src/greet.test.js"><error>Cannot find module './greet' from 'src/greet.test.js'</error></testcase></testsuite></testsuites>`))
	if err != nil {
		t.Fatal(err)
	}
	green, err := Parse("green.xml", []byte(`<testsuites name="jest tests"><testsuite name="undefined"><testcase classname=" greets" name=" greets" file="src/greet.test.js"/></testsuite></testsuites>`))
	if err != nil {
		t.Fatal(err)
	}
	own := NewFiles([]string{"src/greet.test.js"}, fstest.MapFS{"src/greet.test.js": {Data: []byte("test('greets', () => {})\n")}}).OwnTests(green)
	if got := red.ClassifyOwn(ch, own); got.Class != predicate.ClassAbsent {
		t.Errorf("jest suite: class %s (%s), want absent", got.Class, got.Detail)
	}
}

// TestJestJUnitDefaultNames: jest-junit's default naming (no file attribute,
// the suite named by the first describe title, "undefined" without one;
// classname and name "{describe titles} {test title}") is matched to the test
// file that declares those titles — every case of the suite, so that a suite
// of another file with one title in common is not.
func TestJestJUnitDefaultNames(t *testing.T) {
	tree := fstest.MapFS{
		"api/src/shout.test.js": {Data: []byte("const { shout } = require('./hi')\ntest(\"shouts\", () => {})\nit.skip('whispers', () => {})\n")},
		"api/src/greet.test.ts": {Data: []byte("describe('Greeter', () => {\n  describe(`in French`, () => {\n    it('says bonjour', () => {})\n  })\n  test('says hello', () => {})\n})\n")},
		"api/package.json":      {Data: []byte("{}\n")},
	}
	report := `<testsuites name="jest tests">
<testsuite name="undefined"><testcase classname=" shouts" name=" shouts"/><testcase classname=" whispers" name=" whispers"><skipped/></testcase></testsuite>
<testsuite name="Greeter"><testcase classname="Greeter in French says bonjour" name="Greeter in French says bonjour"/><testcase classname="Greeter says hello" name="Greeter says hello"/></testsuite>
<testsuite name="undefined"><testcase classname=" shouts" name=" shouts"/><testcase classname=" sings" name=" sings"/></testsuite>
</testsuites>`
	r, err := Parse("green.xml", []byte(report))
	if err != nil {
		t.Fatal(err)
	}
	if !r.JestJUnit() || r.HasFiles() {
		t.Errorf("JestJUnit %v HasFiles %v", r.JestJUnit(), r.HasFiles())
	}
	got := Collect(r, []string{"api/src/shout.test.js", "api/src/greet.test.ts"}, tree)
	if got[0].State != predicate.StateCollected || got[0].Tests != 1 {
		t.Errorf("shout.test.js: %+v (the third suite, which has a test it does not declare, is not its)", got[0])
	}
	if got[1].State != predicate.StateCollected || got[1].Tests != 2 {
		t.Errorf("greet.test.ts: %+v", got[1])
	}
}
