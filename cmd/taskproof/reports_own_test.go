package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// ownRepo is an evidenceRepo holding the Go module example.com/svc with
// package greet (Hello) on main, for ticks attested from real `go test
// -json` runs.
func newOwnRepo(t *testing.T, tasks string) *evidenceRepo {
	t.Helper()
	return newEvidenceRepo(t, tasks, map[string]string{
		"go.mod":              "module example.com/svc\n\ngo 1.22\n",
		"greet/greet.go":      "package greet\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n",
		"greet/greet_test.go": "package greet\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal(Hello())\n\t}\n}\n",
		"other/other.go":      "package other\n",
		"other/other_test.go": "package other\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestFlaky(t *testing.T) {\n\tif os.Getenv(\"FLAKY\") == \"1\" {\n\t\tt.Errorf(\"flaky: got 1 want 2\")\n\t}\n}\n",
	})
}

// goTestEnv is evidenceRepo.goTest with extra environment (FLAKY=1 makes
// other.TestFlaky fail).
func (r *evidenceRepo) goTestEnv(name string, env []string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command(testenv.LookPath(r.t, "go"), append([]string{"test", "-count=1", "-json"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOPROXY=off"), env...)
	b, _ := cmd.Output() // a red run exits 1
	p := filepath.Join(r.out, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// attestLine runs attest tick --dry-run on commit and returns its result
// lines, its warnings and its exit code.
func (r *evidenceRepo) attestLine(commit string, args ...string) (string, string, int) {
	r.t.Helper()
	return r.taskproof(append([]string{"attest", "tick", "--commit", commit, "--dry-run", "--unsigned"}, args...)...)
}

// TestTickRedIsTheTicksOwnTests: a red run is red only for the tick's own
// tests — the tests of its test files that passed green, each file failing
// red on its own. A failure of another package's test (here one that fails
// only when FLAKY=1, committed on the branch before the tick) does not make
// the tick verified when its own test passed red, or did not run red at
// all, and one commit ticking two tasks is not verified on one task's red.
func TestTickRedIsTheTicksOwnTests(t *testing.T) {
	tasks := "# Tasks\n\n- [ ] T001 [US1] Shout\n- [ ] T002 [US1] Say bye\n"

	t.Run("own test passed red", func(t *testing.T) {
		r := newOwnRepo(t, tasks)
		r.write("other/other_test.go", strings.Replace(mustRead(t, filepath.Join(r.dir, "other/other_test.go")), "flaky: got 1 want 2", "flaky: got 1, want 2", 1))
		r.git("commit", "-qam", "flaky test reworded")
		r.write("greet/shout_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestShout(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n")
		red := r.goTestEnv("red.json", []string{"FLAKY=1"}, "./...")
		green := r.goTestEnv("green.json", nil, "./...")
		c := r.tick("T001")
		stdout, stderr, code := r.attestLine(c, "--test-report", "red="+red, "--test-report", "green="+green)
		if code != 0 || !strings.Contains(stdout, "would attest 001-svc/T001 regression_only: already_passing (greet/shout_test.go's tests passed in the red report red.json") {
			t.Errorf("exit %d\n%s%s", code, stdout, stderr)
		}
		_, stderr, code = r.attestLine(c, "--verdict", "verified", "--test-report", "red="+red, "--test-report", "green="+green)
		if code != 2 || !strings.Contains(stderr, "already_passing") {
			t.Errorf("--verdict verified: exit %d\n%s", code, stderr)
		}
	})

	t.Run("own test not in the red run", func(t *testing.T) {
		r := newOwnRepo(t, tasks)
		red := r.goTestEnv("red.json", []string{"FLAKY=1"}, "./...")
		// Implemented first, its test written after: never red.
		r.write("greet/bye.go", "package greet\n\n// Bye says bye.\nfunc Bye() string { return \"bye\" }\n")
		r.write("greet/bye_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestBye(t *testing.T) {\n\tif Bye() != \"bye\" {\n\t\tt.Fatal(Bye())\n\t}\n}\n")
		green := r.goTestEnv("green.json", nil, "./...")
		c := r.tick("T002")
		stdout, stderr, code := r.attestLine(c, "--test-report", "red="+red, "--test-report", "green="+green)
		if code != 0 || !strings.Contains(stdout, "regression_only: not_red (no_tests: the red report red.json ran none of the tick's own tests)") {
			t.Errorf("exit %d\n%s%s", code, stdout, stderr)
		}
	})

	t.Run("two tasks ticked by one commit", func(t *testing.T) {
		r := newOwnRepo(t, tasks)
		r.write("greet/t001_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestT001(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal()\n\t}\n}\n")
		r.write("greet/t002_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestT002(t *testing.T) {\n\tif Bye() != \"bye\" {\n\t\tt.Fatal()\n\t}\n}\n")
		red := r.goTestEnv("red.json", nil, "./...")
		r.write("greet/bye.go", "package greet\n\n// Bye says bye.\nfunc Bye() string { return \"bye\" }\n")
		green := r.goTestEnv("green.json", nil, "./...")
		r.tick("T001")
		r.write("specs/001-svc/tasks.md", strings.Replace(mustRead(t, filepath.Join(r.dir, "specs/001-svc/tasks.md")), "- [ ] T002", "- [x] T002", 1))
		r.git("commit", "-q", "--amend", "-am", "T001 T002 done")
		c := r.git("rev-parse", "HEAD")
		reports := []string{"--test-report", "red=" + red, "--test-report", "green=" + green}
		stdout, stderr, code := r.attestLine(c, reports...)
		for _, task := range []string{"T001", "T002"} {
			if code != 0 || !strings.Contains(stdout, "would attest 001-svc/"+task+" regression_only: not_red (no_tests: the red report red.json ran none of greet/t001_test.go's tests") {
				t.Errorf("%s: exit %d\n%s%s", task, code, stdout, stderr)
			}
		}
		// Each task with its own test file: T002's test failed red on the
		// symbol the change adds; T001's never ran red on its own.
		stdout, stderr, code = r.attestLine(c, append(reports, "--task", "T002", "--test-files", "greet/t002_test.go")...)
		if code != 0 || !strings.Contains(stdout, "would attest 001-svc/T002 verified: red absent (red.json:") || !strings.Contains(stdout, "undefined: Bye") {
			t.Errorf("T002: exit %d\n%s%s", code, stdout, stderr)
		}
		stdout, stderr, code = r.attestLine(c, append(reports, "--task", "T001", "--test-files", "greet/t001_test.go")...)
		if code != 0 || !strings.Contains(stdout, "would attest 001-svc/T001 regression_only: not_red (no_tests:") {
			t.Errorf("T001: exit %d\n%s%s", code, stdout, stderr)
		}
	})
}

// TestTickMissingSymbolNamedOnlyInDocs: a red run that fails on a typo in
// the test (undefined: Helo) is not red when the only lines the change adds
// that name the symbol are in the tasks file and a changelog: only Go source
// files introduce a Go symbol.
func TestTickMissingSymbolNamedOnlyInDocs(t *testing.T) {
	r := newOwnRepo(t, "# Tasks\n\n- [ ] T001 [US1] Fix the Helo call in the greeting test\n")
	r.write("greet/again_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestHelloAgain(t *testing.T) {\n\tif Helo() != \"hello\" {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n")
	red := r.goTestEnv("red.json", nil, "./greet/")
	r.write("greet/again_test.go", strings.Replace(mustRead(t, filepath.Join(r.dir, "greet/again_test.go")), "Helo()", "Hello()", 1))
	r.write("CHANGELOG.md", "- fixed the Helo typo in a test\n")
	r.write("docs/greeting.txt", "Helo is spelled Hello.\n")
	green := r.goTestEnv("green.json", nil, "./greet/")
	c := r.tick("T001")
	stdout, stderr, code := r.attestLine(c, "--test-report", "red="+red, "--test-report", "green="+green)
	if code != 0 || !strings.Contains(stdout, "regression_only: not_red (build_error: red.json:") || !strings.Contains(stdout, "Helo is not introduced by the change") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestTickRedTestNeverGreen: a test that failed red and did not pass green
// (the green run left it out) cannot make a tick verified — not by
// default, not with --test-files none, not beside a test that passed both.
func TestTickRedTestNeverGreen(t *testing.T) {
	r := newOwnRepo(t, "# Tasks\n\n- [ ] T001 [US1] Say bye\n")
	r.write("greet/bye_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestBye(t *testing.T) {\n\tif Hello() != \"bye\" {\n\t\tt.Fatal(\"want bye\")\n\t}\n}\n\nfunc TestByeKeepsHello(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal(Hello())\n\t}\n}\n")
	red := r.goTestEnv("red.json", nil, "./greet/")
	green := r.goTestEnv("green.json", nil, "-run", "TestHello$|TestByeKeepsHello", "./greet/")
	c := r.tick("T001")
	reports := []string{"--test-report", "red=" + red, "--test-report", "green=" + green}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"default", nil, "regression_only: already_passing (the tick's own tests passed in the red report red.json)"},
		{"--test-files none", []string{"--test-files", "none"}, "regression_only: tests_not_collected (no test file is judged, --test-files none"},
		{"--test-files naming it", []string{"--test-files", "greet/bye_test.go,greet/greet_test.go"}, "regression_only: already_passing"},
	} {
		stdout, stderr, code := r.attestLine(c, append(reports, tc.args...)...)
		if code != 0 || !strings.Contains(stdout, tc.want) {
			t.Errorf("%s: exit %d, want %q\n%s%s", tc.name, code, tc.want, stdout, stderr)
		}
	}
	// The pytest run of the same: test_bye fails red and is deselected green.
	py := pytestFor(t)
	if py == "" {
		return
	}
	p := newEvidenceRepo(t, "# Tasks\n\n- [ ] T001 [US1] Say bye\n", map[string]string{"greet.py": "def hello():\n    return 'hello'\n"})
	p.write("tests/test_bye.py", "from greet import hello\n\n\ndef test_bye():\n    assert hello() == 'bye'\n\n\ndef test_keeps_hello():\n    assert hello() == 'hello'\n")
	pyRed := p.pytest(py, "red.xml")
	pyGreen := p.pytest(py, "green.xml", "-k", "keeps_hello")
	c = p.tick("T001")
	for _, args := range [][]string{nil, {"--test-files", "none"}} {
		stdout, stderr, code := p.attestLine(c, append([]string{"--test-report", "red=" + pyRed, "--test-report", "green=" + pyGreen}, args...)...)
		if code != 0 || strings.Contains(stdout, " verified") || !strings.Contains(stdout, "regression_only") {
			t.Errorf("pytest %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
}

// pytestFor finds a Python with pytest ("" and a log line when none).
func pytestFor(t *testing.T) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-m", "pytest", "--version").Run() == nil {
			return py
		}
	}
	t.Log("pytest is not installed (apt-get install python3-pytest): its part is left out")
	return ""
}

// pytest runs pytest --junitxml over tests/ and keeps the report outside
// the repository; args select tests.
func (r *evidenceRepo) pytest(py, name string, args ...string) string {
	r.t.Helper()
	p := filepath.Join(r.out, name)
	cmd := exec.Command(py, append([]string{"-m", "pytest", "-p", "no:cacheprovider", "--junitxml=" + p, "tests"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+r.dir, "PYTHONDONTWRITEBYTECODE=1")
	_ = cmd.Run() // a red run exits 1
	if _, err := os.Stat(p); err != nil {
		r.t.Fatalf("pytest wrote no report: %v", err)
	}
	return p
}

// TestTickRedOutputOfPassingRun: a --red-output in which the runner says the
// run passed is no red run: refused (exit 2) unless --force, which writes it
// with a warning; output that does not show the kind given is a warning.
func TestTickRedOutputOfPassingRun(t *testing.T) {
	r := newOwnRepo(t, "# Tasks\n\n- [ ] T001 [US1] Greet\n")
	run := func(name string, prog string, args ...string) string {
		t.Helper()
		cmd := exec.Command(prog, args...)
		cmd.Dir = r.dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOPROXY=off", "PYTHONDONTWRITEBYTECODE=1")
		b, _ := cmd.CombinedOutput()
		p := filepath.Join(r.out, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goBin := testenv.LookPath(t, "go")
	passing := run("passing.log", goBin, "test", "-count=1", "-v", "./greet/")
	c := r.tick("T001")
	attest := func(log, kind string, extra ...string) (string, string, int) {
		return r.taskproof(append([]string{"attest", "tick", "--commit", c, "--signer", "ssh", "--key", r.key,
			"--verdict", "verified", "--red-output", log, "--red-kind", kind}, extra...)...)
	}
	_, stderr, code := attest(passing, "assertion")
	if code != 2 || !strings.Contains(stderr, "the red output "+passing) && !strings.Contains(stderr, "passing.log shows a passing run (line ") {
		t.Errorf("passing go test -v log: exit %d\n%s", code, stderr)
	}
	if note := (&cliRepo{dir: r.dir}).note(t, c); note != "" {
		t.Errorf("a refused red output wrote a note:\n%s", note)
	}
	_, stderr, code = attest(passing, "assertion", "--force")
	if code != 0 || !strings.Contains(stderr, "warning: the red output") || !strings.Contains(stderr, "(written anyway: forced)") {
		t.Errorf("--force: exit %d\n%s", code, stderr)
	}
	// A failing run that fails on an assertion does not confirm a missing
	// symbol: written, with a warning.
	r.write("greet/greet_test.go", strings.Replace(mustRead(t, filepath.Join(r.dir, "greet/greet_test.go")), "Hello() != \"hello\"", "Hello() != \"hello!\"", 1))
	failing := run("failing.log", goBin, "test", "-count=1", "./greet/")
	_, stderr, code = attest(failing, "missing_symbol", "--force")
	if code != 0 || !strings.Contains(stderr, "does not show a red run of kind missing_symbol") {
		t.Errorf("failing log, missing_symbol: exit %d\n%s", code, stderr)
	}
	if py := pytestFor(t); py != "" {
		r.write("tests/test_ok.py", "def test_ok():\n    assert True\n")
		pyPassing := run("pytest.log", py, "-m", "pytest", "-p", "no:cacheprovider", "tests")
		_, stderr, code = attest(pyPassing, "assertion")
		if code != 2 || !strings.Contains(stderr, "shows a passing run") || !strings.Contains(stderr, "1 passed") {
			t.Errorf("passing pytest output: exit %d\n%s\n%s", code, stderr, mustRead(t, pyPassing))
		}
	}
}

// TestTickJestJUnitDefaults: a real red→green jest run reported by
// jest-junit with its default options — no file attribute, cases named by
// their describe and test titles — is read: the test file is collected by
// the titles it declares and the tick is verified. Without node the
// checked-in reports of the same run are read.
func TestTickJestJUnitDefaults(t *testing.T) {
	r := newEvidenceRepo(t, "# Tasks\n\n- [ ] T001 [US1] Shout\n", map[string]string{
		"api/package.json": "{\"name\":\"api\",\"private\":true}\n",
		".gitignore":       "node_modules\n",
		"api/src/hi.js":    "function hi() { return \"hi\"; }\nmodule.exports = { hi };\n",
	})
	r.write("api/src/shout.test.js", "const { shout } = require(\"./hi\");\n\ntest(\"shouts\", () => {\n  expect(shout(\"a\")).toBe(\"A!\");\n});\n")
	impl := "function hi() { return \"hi\"; }\nfunction shout(s) { return s.toUpperCase() + \"!\"; }\nmodule.exports = { hi, shout };\n"
	samples := filepath.Join(testenv.RepoRoot(t), "testreport", "testdata")
	red, green := filepath.Join(samples, "jest-junit-default-red.xml"), filepath.Join(samples, "jest-junit-default-green.xml")
	if dir, missing := testenv.NodeTools(t); missing != "" {
		t.Logf("%s: the checked-in jest-junit reports are read", missing)
		r.write("api/src/hi.js", impl)
	} else {
		if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(r.dir, "api", "node_modules")); err != nil {
			t.Fatal(err)
		}
		jest := func(name string) string {
			t.Helper()
			p := filepath.Join(r.out, name)
			cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "jest"), "--ci", "--reporters=default", "--reporters=jest-junit",
				"--cacheDirectory="+filepath.Join(dir, "jest-cache"))
			cmd.Dir = filepath.Join(r.dir, "api")
			// jest-junit's defaults: only where to write.
			cmd.Env = append(os.Environ(), "JEST_JUNIT_OUTPUT_FILE="+p, "CI=true", "NO_COLOR=1")
			for _, v := range []string{"JEST_JUNIT_ADD_FILE_ATTRIBUTE", "JEST_JUNIT_REPORT_TEST_SUITE_ERRORS", "JEST_JUNIT_CLASSNAME", "JEST_JUNIT_TITLE", "JEST_JUNIT_SUITE_NAME"} {
				cmd.Env = append(cmd.Env, v+"=")
			}
			out, _ := cmd.CombinedOutput() // a red run exits 1
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("jest wrote no report: %v\n%s", err, out)
			}
			return p
		}
		red = jest("red.xml")
		r.write("api/src/hi.js", impl)
		green = jest("green.xml")
	}
	// A test file whose test titles are not plain strings cannot be told
	// by them.
	r.write("api/src/other.test.js", "test(`whispers ${1}`, () => {});\n")
	c := r.tick("T001")
	out, _, stderr := r.attest(c, red, green)
	p := out.predicate(t)
	redRun, _ := p["red"].(map[string]any)
	if p["verdict"] != "verified" || redRun["kind"] != "missing_symbol" {
		t.Errorf("verdict %v red %v\n%s", p["verdict"], redRun, stderr)
	}
	coll, _ := json.Marshal(p["collection"])
	if !strings.Contains(string(coll), `"path":"api/src/shout.test.js","state":"collected"`) {
		t.Errorf("collection %s", coll)
	}
	// The file it cannot tell is not collected, and the warning and the
	// reason say how to make jest-junit name the files.
	if !strings.Contains(stderr, "api/src/other.test.js: the green report") || !strings.Contains(stderr, "JEST_JUNIT_ADD_FILE_ATTRIBUTE=true") {
		t.Errorf("warning:\n%s", stderr)
	}
	stdout, stderr, code := r.attestLine(c, "--test-report", "red="+red, "--test-report", "green="+green, "--test-files", "api/src/other.test.js", "--force")
	if code != 0 || !strings.Contains(stdout, "regression_only: tests_not_collected (the green report") || !strings.Contains(stdout, "JEST_JUNIT_ADD_FILE_ATTRIBUTE=true") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestTickRedOutputBounded: --red-output is read as a stream with bounded
// memory — a log far longer than what is held gives the output_sha256 of
// the whole file and the excerpt of its end, and a passing run found at its
// end is refused naming the line — and an output that does not end
// (/dev/zero) is exit 1 naming the file and the limit.
func TestTickRedOutputBounded(t *testing.T) {
	r := newOwnRepo(t, "# Tasks\n\n- [ ] T001 [US1] Greet\n")
	r.write("greet/greet_test.go", strings.Replace(mustRead(t, filepath.Join(r.dir, "greet/greet_test.go")), "Hello() != \"hello\"", "Hello() != \"hello!\"", 1))
	cmd := exec.Command(testenv.LookPath(t, "go"), "test", "-count=1", "-v", "./greet/")
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOPROXY=off")
	failing, _ := cmd.CombinedOutput() // exits 1
	r.git("checkout", "--", "greet/greet_test.go")
	c := r.tick("T001")

	// 96 MiB of a verbose run's log lines, then the real run's output (or
	// a passing run's last lines).
	const size = 96 << 20
	line := []byte("    greet_test.go:12: a verbose test's log line, written by t.Log on every call\n")
	lines := 0
	writeLog := func(name string, end []byte) (string, string) {
		t.Helper()
		p := filepath.Join(r.out, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		bw := bufio.NewWriter(io.MultiWriter(f, h))
		lines = 0
		for n := 0; n < size; n += len(line) {
			bw.Write(line)
			lines++
		}
		bw.Write(end)
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p, hex.EncodeToString(h.Sum(nil))
	}
	big, sum := writeLog("big.log", failing)
	run := func(log string, extra ...string) (string, string, int, int64) {
		t.Helper()
		cmd := exec.Command(testenv.Binary(t), append([]string{"attest", "tick", "--commit", c, "--unsigned", "--dry-run", "--format", "json",
			"--verdict", "verified", "--red-kind", "assertion", "--red-output", log}, extra...)...)
		cmd.Dir = r.dir
		cmd.Env = testenv.GitEnv()
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rss int64
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss << 10 // KiB on Linux
		}
		return stdout.String(), stderr.String(), code, rss
	}
	stdout, stderr, code, rss := run(big)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var out attestJSON
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	red, _ := out.predicate(t)["red"].(map[string]any)
	if red["output_sha256"] != sum {
		t.Errorf("output_sha256 %v, want the whole file's", red["output_sha256"])
	}
	if ex, _ := red["excerpt"].(string); !strings.HasSuffix(ex, string(failing[max(0, len(failing)-200):])) {
		t.Errorf("excerpt %q, want the file's end", ex)
	}
	// Memory: against the same run with the short output alone, the long
	// one costs less than half its size (it holds 16 MiB of it at most).
	small := filepath.Join(r.out, "small.log")
	if err := os.WriteFile(small, failing, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code, base := run(small)
	if code != 0 {
		t.Fatalf("short output: exit %d\n%s", code, stderr)
	}
	if rss == 0 || base == 0 || rss-base >= size/2 {
		t.Errorf("max RSS %d bytes for a %d-byte output, %d for the short one: it was held whole", rss, size, base)
	}
	t.Logf("max RSS %d MiB for a %d MiB output, %d MiB for a short one", rss>>20, size>>20, base>>20)

	// The same log ending in a passing run: refused, naming its line.
	passing, _ := writeLog("passing.log", []byte("PASS\nok  \texample.com/svc/greet\t0.002s\n"))
	_, stderr, code, _ = run(passing)
	if want := fmt.Sprintf("shows a passing run (line %d: ok example.com/svc/greet 0.002s; of its", lines+2); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("passing long log: exit %d, want 2 and %q\n%s", code, want, stderr)
	}

	// An output that does not end.
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, stderr, code, _ = run("/dev/zero")
		if code != 1 || !strings.Contains(stderr, "--red-output /dev/zero: over the limit of a red run's captured output") || !strings.Contains(stderr, "1 GiB") {
			t.Errorf("/dev/zero: exit %d\n%s", code, stderr)
		}
	}
}
