package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// greetRepo is a spec-kit repository holding a Go module, made with the real
// git, whose task T001 [US1] is test-first: greet_test.go is written, the red
// run is `go test -json` before Greet works (or exists), the green one after,
// and the tick commit adds the test, the code and the ticked box.
type greetRepo struct {
	dir, base, tick string
	red, green      string // the reports, outside the repository
	allowed, key    string
}

const (
	greetTasks = "# Tasks\n\n- [ ] T001 [US1] Greet a person by name\n"
	greetTest  = "package greet\n\nimport \"testing\"\n\nfunc TestGreetUS1(t *testing.T) {\n\tif got := Greet(\"Ada\"); got != \"hello, Ada\" {\n\t\tt.Errorf(\"Greet(Ada) = %q, want %q\", got, \"hello, Ada\")\n\t}\n}\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal(\"Hello\")\n\t}\n}\n"
	greetOld   = "package greet\n\nfunc Hello() string { return \"hello\" }\n"
	greetWrong = greetOld + "\nfunc Greet(name string) string { return \"hi\" }\n"
	greetRight = greetOld + "\nfunc Greet(name string) string { return \"hello, \" + name }\n"
)

// newGreetRepo builds the repository; red is the code the red run sees
// (greetOld: a missing symbol, greetWrong: an assertion, greetRight: already
// passing).
func newGreetRepo(t *testing.T, red string) *greetRepo {
	t.Helper()
	goBin := testenv.LookPath(t, "go")
	dir := t.TempDir()
	out := t.TempDir()
	git := func(args ...string) string { return strings.TrimSpace(testenv.Git(t, dir, args...)) }
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTest := func(report string) string {
		t.Helper()
		cmd := exec.Command(goBin, "test", "-count=1", "-json", "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		b, _ := cmd.Output() // a red run exits 1
		p := filepath.Join(out, report)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	git("init", "-q", "-b", "main")
	write("go.mod", "module example.com/greet\n\ngo 1.22\n")
	write("greet.go", greetOld)
	write("specs/001-greet/spec.md", "# Greet\n\n### User Story 1 - Greet by name\n\nA person is greeted by name.\n")
	write("specs/001-greet/tasks.md", greetTasks)
	git("add", "-A")
	git("commit", "-q", "-m", "spec: 001-greet")
	r := &greetRepo{dir: dir, base: git("rev-parse", "HEAD")}
	git("switch", "-q", "-c", "001-greet")
	write("greet_test.go", greetTest)
	write("greet.go", red)
	r.red = goTest("red.json")
	write("greet.go", greetRight)
	r.green = goTest("green.json")
	write("specs/001-greet/tasks.md", strings.Replace(greetTasks, "- [ ] T001", "- [x] T001", 1))
	git("add", "-A")
	git("commit", "-q", "-m", "T001 done")
	r.tick = git("rev-parse", "HEAD")
	var fp string
	r.key, fp = sshKeyFile(t, "")
	_ = fp
	pub, err := os.ReadFile(r.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	r.allowed = filepath.Join(out, "allowed_signers")
	if err := os.WriteFile(r.allowed, []byte("t namespaces=\"in-toto\" "+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *greetRepo) taskproof(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	c := &cliRepo{dir: r.dir}
	return c.taskproof(t, nil, args...)
}

// statements decodes the note of the tick commit: predicateType → predicate.
func (r *greetRepo) statements(t *testing.T) map[string][]map[string]any {
	t.Helper()
	c := &cliRepo{dir: r.dir}
	out := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(c.note(t, r.tick)), "\n") {
		var env struct{ Payload string }
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatal(err)
		}
		b, err := base64.StdEncoding.DecodeString(env.Payload)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			PredicateType string         `json:"predicateType"`
			Predicate     map[string]any `json:"predicate"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		out[st.PredicateType] = append(out[st.PredicateType], st.Predicate)
	}
	return out
}

func (r *greetRepo) attest(t *testing.T, extra ...string) (string, int) {
	t.Helper()
	args := append([]string{"attest", "tick", "--signer", "ssh", "--key", r.key,
		"--test-report", "red=" + r.red, "--test-report", "green=" + r.green}, extra...)
	_, stderr, code := r.taskproof(t, args...)
	return stderr, code
}

func (r *greetRepo) verify(t *testing.T, extra ...string) (string, int) {
	t.Helper()
	stdout, stderr, code := r.taskproof(t, append([]string{"verify", "--branch", "--base", "main", "--allowed-signers", r.allowed}, extra...)...)
	return stdout + stderr, code
}

// TestTickFromGoTestReports: real `go test -json` reports of a task whose test
// fails red (on an assertion, on a missing symbol) and then passes give the
// statement's red, trace, collection and test-result statements, the verdict
// verified, and the gate evidences the tick. A policy allowing only assertion
// red runs passes the first and fails the second.
func TestTickFromGoTestReports(t *testing.T) {
	policy := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(policy, []byte("version = 1\n\n[verified]\nrequire_red = true\nred_kinds = [\"assertion\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, red, kind string
		policyCode      int
	}{
		{"assertion", greetWrong, "assertion", 0},
		{"missing symbol", greetOld, "missing_symbol", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGreetRepo(t, tc.red)
			if stderr, code := r.attest(t); code != 0 {
				t.Fatalf("attest tick: exit %d\n%s", code, stderr)
			}
			st := r.statements(t)
			tvs := st["https://speccoder.dev/task-verification/v0"]
			if len(tvs) != 1 {
				t.Fatalf("statements %v", st)
			}
			p := tvs[0]
			if p["verdict"] != "verified" {
				t.Errorf("verdict %v", p["verdict"])
			}
			red, _ := p["red"].(map[string]any)
			if red["kind"] != tc.kind || red["withheld"] != false {
				t.Errorf("red %v, want kind %s", red, tc.kind)
			}
			ex, _ := red["excerpt"].(string)
			want := "undefined: Greet"
			if tc.kind == "assertion" {
				want = `Greet(Ada) = "hi", want "hello, Ada"`
			}
			if !strings.Contains(ex, want) {
				t.Errorf("excerpt %q, want it to hold %q", ex, want)
			}
			trace, _ := json.Marshal(p["trace"])
			for _, row := range []string{
				`{"file":"greet_test.go","phase":"red","requirement":"US1","result":"fail","test":"example.com/greet::TestGreetUS1"}`,
				`{"file":"greet_test.go","phase":"green","requirement":"US1","result":"pass","test":"example.com/greet::TestGreetUS1"}`,
				`{"file":"greet_test.go","phase":"green","result":"pass","test":"example.com/greet::TestHello"}`,
			} {
				if !strings.Contains(string(trace), row) {
					t.Errorf("trace %s lacks %s", trace, row)
				}
			}
			coll, _ := json.Marshal(p["collection"])
			if want := `{"files":[{"decided_by":"junit","path":"greet_test.go","state":"collected","test_ids":["example.com/greet::TestGreetUS1","example.com/greet::TestHello"],"tests":2}]}`; string(coll) != want {
				t.Errorf("collection %s, want %s", coll, want)
			}
			trs := st["https://in-toto.io/attestation/test-result/v0.1"]
			if len(trs) != 2 {
				t.Fatalf("%d test-result statements, want 2", len(trs))
			}
			if trs[0]["url"] != "red.json" && !strings.HasSuffix(trs[0]["url"].(string), "red.json") {
				t.Errorf("red url %v", trs[0]["url"])
			}
			if trs[0]["result"] != "FAILED" || trs[1]["result"] != "PASSED" || len(trs[1]["passedTests"].([]any)) != 2 || len(trs[0]["failedTests"].([]any)) == 0 {
				t.Errorf("test results %v", trs)
			}
			if strings.HasPrefix(trs[1]["url"].(string), "/") {
				t.Errorf("url %v is a local path", trs[1]["url"])
			}
			if out, code := r.verify(t); code != 0 {
				t.Fatalf("verify --branch: exit %d\n%s", code, out)
			}
			out, code := r.verify(t, "--policy", policy)
			if code != tc.policyCode {
				t.Fatalf("verify --policy (red_kinds assertion): exit %d, want %d\n%s", code, tc.policyCode, out)
			}
			if tc.policyCode != 0 && !strings.Contains(out, "red kind missing_symbol is not allowed") {
				t.Errorf("output does not say why:\n%s", out)
			}
		})
	}
}

// TestTickFromReportsVerdicts: a red run that passed gives regression_only
// already_passing; a contradicting --verdict is refused unless --force; an
// unreadable report is exit 2 naming the file and line.
func TestTickFromReportsVerdicts(t *testing.T) {
	r := newGreetRepo(t, greetRight)
	if stderr, code := r.attest(t, "--verdict", "verified", "--dry-run"); code != 2 || !strings.Contains(stderr, "the verdict verified contradicts the test reports, which give regression_only") {
		t.Errorf("contradicting --verdict: exit %d\n%s", code, stderr)
	}
	if stderr, code := r.attest(t); code != 0 {
		t.Fatalf("attest tick: exit %d\n%s", code, stderr)
	}
	p := r.statements(t)["https://speccoder.dev/task-verification/v0"][0]
	reg, _ := json.Marshal(p["regression"])
	if p["verdict"] != "regression_only" || string(reg) != `{"implemented_by":null,"reason":"already_passing"}` {
		t.Errorf("verdict %v regression %s", p["verdict"], reg)
	}
	if _, has := p["red"]; has {
		t.Errorf("red %v on a red run that passed", p["red"])
	}
	if out, code := r.verify(t); code != 0 {
		t.Fatalf("verify --branch: exit %d\n%s", code, out)
	}
	stdout, stderr, code := r.taskproof(t, "attest", "tick", "--dry-run", "--force", "--format", "json", "--verdict", "regression_only",
		"--test-report", "red="+r.red, "--test-report", "green="+r.green)
	if code != 0 || !strings.Contains(compact(t, stdout), `"regression":{"implemented_by":null,"reason":"already_passing"}`) {
		t.Errorf("--verdict regression_only takes the reports' reason: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := r.taskproof(t, "attest", "tick", "--dry-run", "--verdict", "regression_only", "--regression-reason", "planning_work",
		"--test-report", "red="+r.red, "--test-report", "green="+r.green); code != 2 || !strings.Contains(stderr, "contradicts the test reports") {
		t.Errorf("a contradicting --regression-reason: exit %d\n%s", code, stderr)
	}
	if stderr, code := r.attest(t, "--verdict", "verified", "--force"); code != 0 || !strings.Contains(stderr, "written anyway: forced") {
		t.Errorf("--force: exit %d\n%s", code, stderr)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{\"Action\":\"start\",\"Package\":\"m\"}\nok  \tm\t0.1s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = r.taskproof(t, "attest", "tick", "--dry-run", "--test-report", "green="+bad)
	if code != 2 || !strings.Contains(stderr, bad+":2: not a `go test -json` event") {
		t.Errorf("unreadable report: exit %d\n%s", code, stderr)
	}
	_, stderr, code = r.taskproof(t, "attest", "tick", "--dry-run", "--test-report", "blue="+r.green)
	if code != 2 || !strings.Contains(stderr, `phase "blue"`) {
		t.Errorf("bad phase: exit %d\n%s", code, stderr)
	}
}

// TestTickFromReportsNotRed: a red run that did not build for another reason
// than a missing symbol is not red; a changed test file the green run did not
// collect is tests_not_collected.
func TestTickFromReportsNotRed(t *testing.T) {
	r := newGreetRepo(t, greetOld+"\nfunc Greet(name string) int { return 0 }\n")
	stdout, stderr, code := r.taskproof(t, "attest", "tick", "--dry-run", "--format", "json",
		"--test-report", "red="+r.red, "--test-report", "green="+r.green)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if s := compact(t, stdout); !strings.Contains(s, `"regression":{"reason":"not_red","red_class":"build_error"}`) {
		t.Errorf("want not_red build_error:\n%s", stdout)
	}
	stdout, stderr, code = r.taskproof(t, "attest", "tick", "--dry-run", "--format", "json",
		"--test-report", "red="+r.red, "--test-report", "green="+r.green, "--test-files", "other_test.go")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if s := compact(t, stdout); !strings.Contains(s, `"regression":{"reason":"tests_not_collected"}`) || !strings.Contains(s, `"path":"other_test.go","state":"not_collected"`) || !strings.Contains(stderr, "other_test.go: the green report") {
		t.Errorf("want tests_not_collected:\n%s\n%s", stdout, stderr)
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTickFromJUnitSamples: each runner's checked-in JUnit reports
// (testreport/testdata/README.md says where each comes from) attest a tick
// whose commit adds the runner's test file: verified, red of the expected kind,
// the test file collected, and the gate evidences the tick.
func TestTickFromJUnitSamples(t *testing.T) {
	samples := filepath.Join(testenv.RepoRoot(t), "testreport", "testdata")
	for _, tc := range []struct {
		runner, file, content, red, green, kind string
		// code is the file and content the change adds beside the test:
		// a missing symbol is red only when the change introduces it.
		code [2]string
	}{
		{"pytest", "tests/test_greet.py", "def test_hello_greets_by_name(): pass\n", "pytest-red-assertion.xml", "pytest-green.xml", "assertion", [2]string{}},
		{"pytest missing", "tests/test_farewell.py", "def test_farewell_says_bye(): pass\n", "pytest-red-missing.xml", "pytest-green-missing.xml", "missing_symbol", [2]string{"greet.py", "def farewell(name):\n    return 'bye, ' + name\n"}},
		{"jest-junit", "src/greet.test.js", "test('hello', () => {})\n", "jest-junit-red.xml", "jest-junit-green.xml", "assertion", [2]string{}},
		{"jest-junit missing", "src/greet2.test.js", "test('greet greets by name', () => {})\n", "jest-junit-missing.xml", "jest-junit-green-missing.xml", "missing_symbol", [2]string{"src/greet.js", "exports.greet = (name) => 'hello, ' + name\n"}},
		{"vitest", "src/greet.test.mjs", "test('hello', () => {})\n", "vitest-red.xml", "vitest-green.xml", "assertion", [2]string{}},
		{"go-junit-report", "greet_test.go", "package greet\n\nfunc TestGreet(t *testing.T) {}\n", "go-junit-report-missing.xml", "go-junit-report-green.xml", "missing_symbol", [2]string{"greet.go", "package greet\n\nfunc Greet(name string) string { return name }\n"}},
		{"surefire", "src/test/java/com/example/greet/GreetTest.java", "class GreetTest {}\n", "surefire-red.xml", "surefire-green.xml", "assertion", [2]string{}},
		{"nextest", "tests/greeting.rs", "#[test] fn hello_greets_by_name() {}\n", "nextest-red.xml", "nextest-green.xml", "assertion", [2]string{}},
	} {
		t.Run(tc.runner, func(t *testing.T) {
			dir := t.TempDir()
			git := func(args ...string) string { return strings.TrimSpace(testenv.Git(t, dir, args...)) }
			write := func(name, content string) {
				t.Helper()
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("init", "-q", "-b", "main")
			write("specs/001-greet/spec.md", "# Greet\n\n### User Story 1 - Greet by name\n\nText.\n")
			write("specs/001-greet/tasks.md", greetTasks)
			git("add", "-A")
			git("commit", "-q", "-m", "plan")
			git("switch", "-q", "-c", "001-greet")
			write(tc.file, tc.content)
			if tc.code[0] != "" {
				write(tc.code[0], tc.code[1])
			}
			write("specs/001-greet/tasks.md", strings.Replace(greetTasks, "- [ ] T001", "- [x] T001", 1))
			git("add", "-A")
			git("commit", "-q", "-m", "T001 done")
			key, _ := sshKeyFile(t, "")
			pub, err := os.ReadFile(key + ".pub")
			if err != nil {
				t.Fatal(err)
			}
			allowed := filepath.Join(t.TempDir(), "allowed_signers")
			if err := os.WriteFile(allowed, []byte("t namespaces=\"in-toto\" "+string(pub)), 0o644); err != nil {
				t.Fatal(err)
			}
			r := &greetRepo{dir: dir, tick: git("rev-parse", "HEAD"), red: filepath.Join(samples, tc.red), green: filepath.Join(samples, tc.green), key: key, allowed: allowed}
			if stderr, code := r.attest(t); code != 0 {
				t.Fatalf("attest tick: exit %d\n%s", code, stderr)
			}
			st := r.statements(t)
			p := st["https://speccoder.dev/task-verification/v0"][0]
			red, _ := p["red"].(map[string]any)
			coll, _ := json.Marshal(p["collection"])
			if p["verdict"] != "verified" || red["kind"] != tc.kind || !strings.Contains(string(coll), `"path":"`+tc.file+`","state":"collected"`) {
				t.Errorf("verdict %v red %v collection %s", p["verdict"], red, coll)
			}
			if n := len(st["https://in-toto.io/attestation/test-result/v0.1"]); n != 2 {
				t.Errorf("%d test-result statements", n)
			}
			if out, code := r.verify(t); code != 0 {
				t.Fatalf("verify --branch: exit %d\n%s", code, out)
			}
		})
	}
}

// TestBornTickedSummary: the JSON summary's born_ticked counts the failing
// born-ticked ticks (in ticks, status born_ticked) and the ones the policy
// allows (the born_ticked list), as the text summary does.
func TestBornTickedSummary(t *testing.T) {
	r := newGateRepo(t, map[string]string{"specs/001-face/tasks.md": gateTasks})
	r.commit(t, "two units born ticked", map[string]string{
		"specs/002-y/tasks.md": "# Tasks\n\n- [x] T001 Born ticked\n",
		"specs/003-z/tasks.md": "# Tasks\n\n- [x] T001 Allowed\n- [x] T002 Allowed too\n",
	})
	pol := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(pol, []byte("version = 1\n[born_ticked]\nallow = [\"specs/003-z/**\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--policy", pol, "--format", "json")
	var rep struct {
		Ticks      []struct{ Status string } `json:"ticks"`
		BornTicked []struct{ Task string }   `json:"born_ticked"`
		Summary    map[string]int            `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	failing := 0
	for _, tk := range rep.Ticks {
		if tk.Status == "born_ticked" {
			failing++
		}
	}
	if failing != 1 || len(rep.BornTicked) != 2 || rep.Summary["born_ticked"] != 3 {
		t.Errorf("born_ticked: %d failing ticks, %d allowed, summary %v; want 1, 2 and a count of 3\n%s", failing, len(rep.BornTicked), rep.Summary, out)
	}
	text, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--policy", pol)
	if !strings.Contains(text, "3 born_ticked") {
		t.Errorf("text summary does not count 3 born_ticked:\n%s", text)
	}
}
