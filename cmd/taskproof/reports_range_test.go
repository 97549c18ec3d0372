package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// evidenceRepo is a spec-kit repository made with the real git, for ticks
// attested from real test runs.
type evidenceRepo struct {
	t        *testing.T
	dir, out string
	key      string
	allowed  string
}

func newEvidenceRepo(t *testing.T, tasks string, files map[string]string) *evidenceRepo {
	t.Helper()
	r := &evidenceRepo{t: t, dir: t.TempDir(), out: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.write("specs/001-svc/spec.md", "# Service\n\n### User Story 1 - Greet\n\nA person is greeted.\n")
	r.write("specs/001-svc/tasks.md", tasks)
	for name, content := range files {
		r.write(name, content)
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "spec: 001-svc")
	r.git("switch", "-q", "-c", "001-svc")
	r.key, _ = sshKeyFile(t, "")
	pub, err := os.ReadFile(r.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	r.allowed = filepath.Join(r.out, "allowed_signers")
	if err := os.WriteFile(r.allowed, []byte("t namespaces=\"in-toto\" "+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *evidenceRepo) git(args ...string) string {
	r.t.Helper()
	return strings.TrimSpace(testenv.Git(r.t, r.dir, args...))
}

func (r *evidenceRepo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// goTest runs `go test -json` with args in dir (under the repository) and
// keeps the report outside it, as a CI job does.
func (r *evidenceRepo) goTest(name, dir string, args ...string) string {
	r.t.Helper()
	goBin := testenv.LookPath(r.t, "go")
	cmd := exec.Command(goBin, append([]string{"test", "-count=1", "-json"}, args...)...)
	cmd.Dir = filepath.Join(r.dir, filepath.FromSlash(dir))
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local", "GOPROXY=off")
	b, _ := cmd.Output() // a red run exits 1
	p := filepath.Join(r.out, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// tick ticks task id in the tasks file and commits everything.
func (r *evidenceRepo) tick(id string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "specs", "001-svc", "tasks.md"))
	if err != nil {
		r.t.Fatal(err)
	}
	r.write("specs/001-svc/tasks.md", strings.Replace(string(b), "- [ ] "+id+" ", "- [x] "+id+" ", 1))
	r.git("add", "-A")
	r.git("commit", "-q", "-m", id+" done")
	return r.git("rev-parse", "HEAD")
}

func (r *evidenceRepo) taskproof(args ...string) (string, string, int) {
	r.t.Helper()
	c := &cliRepo{dir: r.dir}
	return c.taskproof(r.t, nil, args...)
}

// attest attests commit from the red and green reports, as JSON.
func (r *evidenceRepo) attest(commit, red, green string, extra ...string) (attestJSON, string, string) {
	r.t.Helper()
	args := append([]string{"attest", "tick", "--commit", commit, "--signer", "ssh", "--key", r.key, "--format", "json",
		"--test-report", "red=" + red, "--test-report", "green=" + green}, extra...)
	stdout, stderr, code := r.taskproof(args...)
	if code != 0 {
		r.t.Fatalf("attest tick: exit %d\n%s", code, stderr)
	}
	var out attestJSON
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		r.t.Fatalf("%v\n%s", err, stdout)
	}
	return out, stdout, stderr
}

// attestJSON is what `attest tick --format json` prints, as far as the
// tests read it.
type attestJSON struct {
	Written []struct {
		Verdict       string `json:"verdict"`
		VerdictReason *struct {
			Verdict, Reason, Report, Detail, Text string
			RedClass                              string `json:"red_class"`
			Line                                  int
		} `json:"verdict_reason"`
		Statements []struct {
			PredicateType string          `json:"predicateType"`
			Statement     json.RawMessage `json:"statement"`
		} `json:"statements"`
	} `json:"written"`
}

// predicate is the task-verification predicate of the first task written.
func (a attestJSON) predicate(t *testing.T) map[string]any {
	t.Helper()
	for _, s := range a.Written[0].Statements {
		if s.PredicateType == "https://speccoder.dev/task-verification/v0" {
			var st struct{ Predicate map[string]any }
			if err := json.Unmarshal(s.Statement, &st); err != nil {
				t.Fatal(err)
			}
			return st.Predicate
		}
	}
	t.Fatal("no task-verification statement")
	return nil
}

// TestTickUnknownStructField: Go's most common test-first red — a struct
// literal naming a field the task adds — is a missing symbol: verified,
// red missing_symbol, and the result line says which report line decided it.
func TestTickUnknownStructField(t *testing.T) {
	r := newEvidenceRepo(t, "# Tasks\n\n- [ ] T001 [US1] Greet with punctuation\n", map[string]string{
		"go.mod":   "module example.com/greet\n\ngo 1.22\n",
		"greet.go": "package greet\n\n// T greets.\ntype T struct {\n\tGreeting string\n}\n\n// Say greets name.\nfunc (t T) Say(name string) string { return t.Greeting + \", \" + name }\n",
	})
	r.write("greet_test.go", "package greet\n\nimport \"testing\"\n\nfunc TestPunct(t *testing.T) {\n\tg := T{Greeting: \"hello\", Punct: \"!\"}\n\tif got := g.Say(\"Ada\"); got != \"hello, Ada!\" {\n\t\tt.Errorf(\"Say = %q\", got)\n\t}\n}\n")
	red := r.goTest("red.json", ".", "./...")
	r.write("greet.go", "package greet\n\n// T greets.\ntype T struct {\n\tGreeting string\n\tPunct    string\n}\n\n// Say greets name.\nfunc (t T) Say(name string) string { return t.Greeting + \", \" + name + t.Punct }\n")
	green := r.goTest("green.json", ".", "./...")
	c := r.tick("T001")

	// The text line says why.
	stdout, stderr, code := r.taskproof("attest", "tick", "--commit", c, "--dry-run", "--signer", "ssh", "--key", r.key,
		"--test-report", "red="+red, "--test-report", "green="+green)
	if code != 0 || !regexp.MustCompile(`would attest 001-svc/T001 verified: red absent \(.*red\.json:\d+: \./greet_test\.go:6:\d+: unknown field Punct in struct literal of type T\)`).MatchString(stdout) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	out, _, _ := r.attest(c, red, green)
	p := out.predicate(t)
	redRun, _ := p["red"].(map[string]any)
	if p["verdict"] != "verified" || redRun["kind"] != "missing_symbol" {
		t.Errorf("verdict %v red %v", p["verdict"], redRun)
	}
	why := out.Written[0].VerdictReason
	if why == nil || why.Verdict != "verified" || why.RedClass != "absent" || why.Line == 0 || !strings.Contains(why.Detail, "unknown field Punct") {
		t.Errorf("verdict_reason %+v", why)
	}
	if out, code := (&greetRepo{dir: r.dir, allowed: r.allowed}).verify(t); code != 0 {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
}

// TestTickGoModuleInSubdirectory: a Go module in backend/ (and a workspace
// of two modules): the changed test file backend/pkg/g_test.go is package
// example.com/svc/pkg, collected by the report that ran it.
func TestTickGoModuleInSubdirectory(t *testing.T) {
	for _, tc := range []struct {
		name string
		work bool // a go.work at the root uses backend and tools
	}{{"backend/go.mod", false}, {"go.work", true}} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"backend/go.mod":   "module example.com/svc\n\ngo 1.22\n",
				"backend/pkg/g.go": "package pkg\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hi, \" + name }\n",
			}
			if tc.work {
				files["go.work"] = "go 1.22\n\nuse (\n\t./backend\n\t./tools\n)\n"
				files["tools/go.mod"] = "module example.com/tools\n\ngo 1.22\n"
				files["tools/pkg/t.go"] = "package pkg\n\n// Bye says goodbye.\nfunc Bye() string { return \"bye\" }\n"
				files["tools/pkg/t_test.go"] = "package pkg\n\nimport \"testing\"\n\nfunc TestBye(t *testing.T) {\n\tif Bye() != \"bye\" {\n\t\tt.Fatal(Bye())\n\t}\n}\n"
			}
			r := newEvidenceRepo(t, "# Tasks\n\n- [ ] T001 [US1] Greet politely\n", files)
			r.write("backend/pkg/g_test.go", "package pkg\n\nimport \"testing\"\n\nfunc TestHello(t *testing.T) {\n\tif got := Hello(\"Ada\"); got != \"hello, Ada\" {\n\t\tt.Errorf(\"Hello(Ada) = %q\", got)\n\t}\n}\n")
			dir, pkgs := "backend", []string{"./..."}
			if tc.work {
				dir, pkgs = ".", []string{"./backend/...", "./tools/..."}
			}
			red := r.goTest("red.json", dir, pkgs...)
			r.write("backend/pkg/g.go", "package pkg\n\n// Hello greets name.\nfunc Hello(name string) string { return \"hello, \" + name }\n")
			green := r.goTest("green.json", dir, pkgs...)
			c := r.tick("T001")
			out, _, stderr := r.attest(c, red, green)
			p := out.predicate(t)
			redRun, _ := p["red"].(map[string]any)
			coll, _ := json.Marshal(p["collection"])
			if p["verdict"] != "verified" || redRun["kind"] != "assertion" {
				t.Errorf("verdict %v red %v\n%s", p["verdict"], redRun, stderr)
			}
			if want := `{"files":[{"decided_by":"junit","path":"backend/pkg/g_test.go","state":"collected","test_ids":["example.com/svc/pkg::TestHello"],"tests":1}]}`; string(coll) != want {
				t.Errorf("collection %s, want %s", coll, want)
			}
		})
	}
}

// TestTickOwnTestFiles: on a branch that does T001 (Go) then T002 (pytest),
// T002's default test files are the ones changed since T001's tick, not
// since the branch left main; --test-files still overrides.
func TestTickOwnTestFiles(t *testing.T) {
	r := newEvidenceRepo(t, "# Tasks\n\n- [ ] T001 [US1] Check errors\n- [ ] T002 [US1] Greet in Python\n- [ ] T003 [US1] Nothing new\n", map[string]string{
		"go.mod": "module example.com/tool\n\ngo 1.22\n",
	})
	r.write("tool/errs/errs.go", "package errs\n\n// Wrap wraps.\nfunc Wrap(s string) string { return \"error: \" + s }\n")
	r.write("tool/errs/errs_test.go", "package errs\n\nimport \"testing\"\n\nfunc TestWrap(t *testing.T) {\n\tif Wrap(\"x\") != \"error: x\" {\n\t\tt.Fatal(Wrap(\"x\"))\n\t}\n}\n")
	c1 := r.tick("T001")
	r.write("py/greet.py", "def greet(name):\n    return 'hello, ' + name\n")
	r.write("py/tests/test_greet.py", "from greet import greet\n\n\ndef test_greet():\n    assert greet('Ada') == 'hello, Ada'\n")
	c2 := r.tick("T002")

	junit := func(name, body string) string {
		p := filepath.Join(r.out, name)
		if err := os.WriteFile(p, []byte(`<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">`+body+`</testsuite></testsuites>`), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	red := junit("red.xml", `<testcase classname="tests.test_greet" name="test_greet"><failure message="AssertionError: assert 'hi, Ada' == 'hello, Ada'">assert</failure></testcase>`)
	green := junit("green.xml", `<testcase classname="tests.test_greet" name="test_greet"/>`)
	out, _, stderr := r.attest(c2, red, green)
	coll, _ := json.Marshal(out.predicate(t)["collection"])
	if want := `{"files":[{"decided_by":"junit","path":"py/tests/test_greet.py","state":"collected","test_ids":["tests.test_greet::test_greet"],"tests":1}]}`; string(coll) != want {
		t.Errorf("T002's collection %s, want %s\n%s", coll, want, stderr)
	}
	if strings.Contains(stderr, "errs_test.go") || out.Written[0].Verdict != "verified" {
		t.Errorf("T002 judged T001's test file, or is not verified (%s):\n%s", out.Written[0].Verdict, stderr)
	}
	// The first tick of the unit judges what the branch changed before it.
	goRed := junit("go-red.xml", `<testcase classname="example.com/tool/tool/errs" name="TestWrap"><failure>errs_test.go:6: error</failure></testcase>`)
	goGreen := junit("go-green.xml", `<testcase classname="example.com/tool/tool/errs" name="TestWrap"/>`)
	out, _, _ = r.attest(c1, goRed, goGreen)
	coll, _ = json.Marshal(out.predicate(t)["collection"])
	if !strings.Contains(string(coll), `"path":"tool/errs/errs_test.go","state":"collected"`) || strings.Contains(string(coll), "test_greet") {
		t.Errorf("T001's collection %s", coll)
	}
	// --test-files overrides.
	out, _, _ = r.attest(c2, red, green, "--test-files", "tool/errs/errs_test.go,py/tests/test_greet.py", "--force")
	coll, _ = json.Marshal(out.predicate(t)["collection"])
	if !strings.Contains(string(coll), `"path":"tool/errs/errs_test.go","state":"not_collected"`) {
		t.Errorf("--test-files: collection %s", coll)
	}
	// A tick that changes no test file since the previous one judges none:
	// it has no tests of its own, whatever the reports ran.
	c3 := r.tick("T003")
	out, _, _ = r.attest(c3, red, green)
	if p := out.predicate(t); p["collection"] != nil || p["verdict"] != "regression_only" || !strings.Contains(mustJSONText(t, p["regression"]), "tests_not_collected") {
		t.Errorf("T003's collection %v verdict %v regression %v, want no collection, tests_not_collected", p["collection"], p["verdict"], p["regression"])
	}
}

// TestTickContradictionNamesReportLine: a --verdict verified that the
// reports contradict is refused naming the report line that decided it.
func TestTickContradictionNamesReportLine(t *testing.T) {
	r := newGreetRepo(t, greetOld+"\nfunc Greet(name string) int { return 0 }\n")
	_, stderr, code := r.taskproof(t, "attest", "tick", "--dry-run", "--unsigned", "--verdict", "verified",
		"--test-report", "red="+r.red, "--test-report", "green="+r.green)
	if code != 2 || !regexp.MustCompile(`which give regression_only \{"reason":"not_red","red_class":"build_error"\}; not_red \(build_error: \S*red\.json:\d+: \./greet_test\.go:\d+:\d+: (invalid operation|cannot use)`).MatchString(stderr) {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	stdout, _, code := r.taskproof(t, "attest", "tick", "--dry-run", "--unsigned",
		"--test-report", "red="+r.red, "--test-report", "green="+r.green)
	if code != 0 || !regexp.MustCompile(`would attest 001-greet/T001 regression_only: not_red \(build_error: \S*red\.json:\d+: `).MatchString(stdout) {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

// TestTickFromCargoTest: a Rust task attested from `cargo test 2>&1` runs
// (no dependencies, offline): the red run does not compile because the
// function the task adds does not exist (E0425): verified, red
// missing_symbol, tests/greeting.rs collected, and a failing red row for the
// test that could not run.
func TestTickFromCargoTest(t *testing.T) {
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("cargo is not installed (apt-get install cargo)")
	}
	r := newEvidenceRepo(t, "# Tasks\n\n- [ ] T001 [US1] Greet politely\n", map[string]string{
		"Cargo.toml": "[package]\nname = \"greet\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/lib.rs": "/// Greets name.\npub fn hello(name: &str) -> String {\n    format!(\"hi, {name}\")\n}\n",
		".gitignore": "/target\n",
	})
	run := func(name string) string {
		t.Helper()
		cmd := exec.Command(cargo, "test", "--offline")
		cmd.Dir = r.dir
		cmd.Env = append(os.Environ(), "CARGO_TARGET_DIR="+filepath.Join(r.out, "target"), "RUST_BACKTRACE=0", "CARGO_TERM_COLOR=never")
		b, _ := cmd.CombinedOutput() // a red run exits 101
		p := filepath.Join(r.out, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r.write("tests/greeting.rs", "#[test]\nfn polite_greets_by_name() {\n    assert_eq!(greet::polite(\"Ada\"), \"hello, Ada\");\n}\n")
	red := run("red.log")
	r.write("src/lib.rs", "/// Greets name.\npub fn hello(name: &str) -> String {\n    format!(\"hi, {name}\")\n}\n\n/// Greets name politely.\npub fn polite(name: &str) -> String {\n    format!(\"hello, {name}\")\n}\n")
	green := run("green.log")
	c := r.tick("T001")
	out, _, stderr := r.attest(c, red, green)
	p := out.predicate(t)
	redRun, _ := p["red"].(map[string]any)
	coll, _ := json.Marshal(p["collection"])
	trace, _ := json.Marshal(p["trace"])
	if p["verdict"] != "verified" || redRun["kind"] != "missing_symbol" || !strings.Contains(string(coll), `"path":"tests/greeting.rs","state":"collected"`) {
		t.Errorf("verdict %v red %v collection %s\n%s\nred report:\n%s", p["verdict"], redRun, coll, stderr, mustRead(t, red))
	}
	if !strings.Contains(string(trace), `"phase":"red","result":"fail","test":"tests/greeting.rs::polite_greets_by_name"`) {
		t.Errorf("trace %s", trace)
	}
	if why := out.Written[0].VerdictReason; why == nil || !strings.Contains(why.Detail, "E0425") {
		t.Errorf("verdict_reason %+v", why)
	}
}

func mustJSONText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
