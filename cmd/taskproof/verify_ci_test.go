package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// ciRepo is a spec-kit repository (testdata/demo) on branch 001-greeting with
// T001 ticked and attested (signed with a key the real ssh-keygen made) and T004
// ticked by hand without evidence.
type ciRepo struct {
	dir, bin, allowed string
	t001, t004        string // tick commits
}

func newCIRepo(t *testing.T) *ciRepo {
	t.Helper()
	r := &ciRepo{bin: testenv.Binary(t)}
	tmp := t.TempDir()
	r.dir = filepath.Join(tmp, "repo")
	testenv.Git(t, "", "init", "-q", "-b", "main", r.dir)
	demo := filepath.Join(testenv.RepoRoot(t), "testdata", "demo")
	for _, f := range []string{"specs/001-greeting/tasks.md", "specs/001-greeting/spec.md", "speccoder.toml"} {
		b, err := os.ReadFile(filepath.Join(demo, f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(r.dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Git(t, r.dir, "add", "-A")
	testenv.Git(t, r.dir, "commit", "-qm", "spec: 001-greeting")
	testenv.Git(t, r.dir, "switch", "-q", "-c", "001-greeting")

	key := filepath.Join(tmp, "id_ed25519")
	if out, err := exec.Command(testenv.LookPath(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "dev@example.invalid", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	r.allowed = filepath.Join(tmp, "allowed_signers")
	if err := os.WriteFile(r.allowed, []byte(`dev@example.invalid namespaces="in-toto" `+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}

	r.t001 = r.tick(t, "T001")
	if out, code := r.run(t, nil, "attest", "tick", "--signer", "ssh", "--key", key, "--verdict", "regression_only", "--regression-reason", "planning_work"); code != 0 {
		t.Fatalf("attest tick: exit %d\n%s", code, out)
	}
	r.t004 = r.tick(t, "T004")
	return r
}

// tick ticks task's box in tasks.md, commits, and returns the commit id.
func (r *ciRepo) tick(t *testing.T, task string) string {
	t.Helper()
	p := filepath.Join(r.dir, "specs/001-greeting/tasks.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	nb := bytes.Replace(b, []byte("- [ ] "+task+" "), []byte("- [x] "+task+" "), 1)
	if bytes.Equal(nb, b) {
		t.Fatalf("no open %s in tasks.md", task)
	}
	if err := os.WriteFile(p, nb, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, r.dir, "commit", "-qam", task+" done")
	return strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "HEAD"))
}

// run runs the taskproof binary in the repository with extra environment and
// returns its stdout (stderr goes to the test log) and exit code.
func (r *ciRepo) run(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(r.bin, append([]string{"-C", r.dir}, args...)...)
	// The test may itself run in GitHub Actions: only the summary file the test
	// names may be written.
	for _, kv := range testenv.GitEnv() {
		if !strings.HasPrefix(kv, "GITHUB_STEP_SUMMARY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if stderr.Len() > 0 {
		t.Logf("taskproof %s stderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	return stdout.String(), code
}

func (r *ciRepo) verify(t *testing.T, env []string, format string, extra ...string) (string, int) {
	t.Helper()
	args := append([]string{"verify", "--allowed-signers", r.allowed, "--format", format}, extra...)
	return r.run(t, env, args...)
}

// line returns the 1-based line of task in the tasks file.
func taskLine(t *testing.T, dir, task string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "specs/001-greeting/tasks.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "] "+task+" ") {
			return i + 1
		}
	}
	t.Fatalf("no %s in tasks.md", task)
	return 0
}

func TestVerifyCIFormats(t *testing.T) {
	r := newCIRepo(t)
	line4 := taskLine(t, r.dir, "T004")
	gate := []string{"--branch", "--base", "main"}

	t.Run("sarif", func(t *testing.T) {
		out, code := r.verify(t, nil, "sarif", gate...)
		if code != ExitFailure {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		var doc struct {
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name    string `json:"name"`
						Version string `json:"version"`
						Rules   []struct {
							ID string `json:"id"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID    string                `json:"ruleId"`
					Level     string                `json:"level"`
					Message   struct{ Text string } `json:"message"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct{ URI string }    `json:"artifactLocation"`
							Region           struct{ StartLine int } `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("stdout is not SARIF JSON alone: %v\n%s", err, out)
		}
		if doc.Version != "2.1.0" || len(doc.Runs) != 1 || doc.Runs[0].Tool.Driver.Name != "taskproof" || doc.Runs[0].Tool.Driver.Version != binaryVersion(t) {
			t.Fatalf("header: %+v", doc)
		}
		res := doc.Runs[0].Results
		if len(res) != 1 {
			t.Fatalf("%d results, want 1 (T004; T001 is evidenced)\n%s", len(res), out)
		}
		got := res[0]
		if got.RuleID != "ticked_without_evidence" || got.Level != "error" || len(got.Locations) != 1 ||
			got.Locations[0].PhysicalLocation.ArtifactLocation.URI != "specs/001-greeting/tasks.md" ||
			got.Locations[0].PhysicalLocation.Region.StartLine != line4 || !strings.Contains(got.Message.Text, "001-greeting/T004") {
			t.Errorf("result = %+v, want ticked_without_evidence at specs/001-greeting/tasks.md:%d", got, line4)
		}
		if rules := doc.Runs[0].Tool.Driver.Rules; len(rules) != 1 || rules[0].ID != "ticked_without_evidence" {
			t.Errorf("rules = %+v", rules)
		}
	})

	t.Run("github", func(t *testing.T) {
		summary := filepath.Join(t.TempDir(), "step_summary.md")
		const earlier = "## an earlier step's summary\n\nkept as it was\n"
		if err := os.WriteFile(summary, []byte(earlier), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := r.verify(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, "github", gate...)
		if code != ExitFailure {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("stdout = %q, want one ::error for T004 and the conclusion", out)
		}
		wantPrefix := "::error file=specs/001-greeting/tasks.md,line=" + strconv.Itoa(line4) + ",title=taskproof%3A 001-greeting/T004 unverifiable (ticked_without_evidence)::"
		if !strings.HasPrefix(lines[0], wantPrefix) {
			t.Errorf("annotation = %q, want prefix %q", lines[0], wantPrefix)
		}
		if want := "::error::taskproof verify: failure — 1 of 2 ticks failing (evidenced 1, unverifiable 1)"; lines[1] != want {
			t.Errorf("conclusion = %q, want %q", lines[1], want)
		}
		b, err := os.ReadFile(summary)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if !strings.HasPrefix(s, earlier) {
			t.Fatalf("the summary file was not appended to:\n%s", s)
		}
		added := s[len(earlier):]
		for _, want := range []string{"taskproof verify: failure", "| status | task | commit | file:line | signer | reason |",
			"| ✗ unverifiable | 001-greeting/T004 | " + r.t004[:12] + " | specs/001-greeting/tasks.md:" + strconv.Itoa(line4) + " | - | ticked\\_without\\_evidence |",
			" | dev@example.invalid\\(ssh SHA256:", // the evidenced tick's credited signer
			"| ✓ evidenced | 001-greeting/T001 | " + r.t001[:12] + " |"} {
			if !strings.Contains(added, strings.ReplaceAll(want, `\-`, "-")) {
				t.Errorf("summary misses %q:\n%s", want, added)
			}
		}

		// A second run appends again.
		if _, code := r.verify(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, "github", gate...); code != ExitFailure {
			t.Fatalf("second run: exit %d", code)
		}
		b2, _ := os.ReadFile(summary)
		if string(b2) != s+added {
			t.Errorf("second run did not append the same summary once more:\n%s", b2)
		}
	})

	t.Run("github without summary", func(t *testing.T) {
		out, code := r.verify(t, nil, "github", gate...)
		if code != ExitFailure || !strings.HasPrefix(out, "::error file=") {
			t.Errorf("exit %d, stdout %q", code, out)
		}
	})

	t.Run("junit", func(t *testing.T) {
		out, code := r.verify(t, nil, "junit", gate...)
		if code != ExitFailure {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		var doc struct {
			Suites []struct {
				Name     string `xml:"name,attr"`
				Tests    int    `xml:"tests,attr"`
				Failures int    `xml:"failures,attr"`
				Cases    []struct {
					Classname string `xml:"classname,attr"`
					Name      string `xml:"name,attr"`
					Failure   *struct {
						Type string `xml:"type,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("stdout is not JUnit XML alone: %v\n%s", err, out)
		}
		if len(doc.Suites) != 1 || doc.Suites[0].Name != "taskproof verify" || doc.Suites[0].Tests != 2 || doc.Suites[0].Failures != 1 {
			t.Fatalf("suites = %+v", doc.Suites)
		}
		cases := map[string]string{} // name → failure type
		for _, c := range doc.Suites[0].Cases {
			if c.Classname != "specs/001-greeting" {
				t.Errorf("classname %q", c.Classname)
			}
			typ := ""
			if c.Failure != nil {
				typ = c.Failure.Type
			}
			cases[c.Name] = typ
		}
		want := map[string]string{
			"001-greeting/T001 @ " + r.t001[:12]: "",
			"001-greeting/T004 @ " + r.t004[:12]: "ticked_without_evidence",
		}
		for name, typ := range want {
			if got, ok := cases[name]; !ok || got != typ {
				t.Errorf("case %q: failure %q (present %v), want %q; cases %v", name, got, ok, typ, cases)
			}
		}
	})

	t.Run("objects sarif", func(t *testing.T) {
		// T004's commit has no note: missing, located at the notes ref.
		out, code := r.verify(t, nil, "sarif", r.t004)
		if code != ExitFailure {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		if !strings.Contains(out, `"ruleId": "missing"`) || !strings.Contains(out, `"uri": "refs/notes/speccoder"`) {
			t.Errorf("objects sarif:\n%s", out)
		}
		// T001's commit is ok: no results, exit 0.
		out, code = r.verify(t, nil, "junit", r.t001)
		if code != ExitOK || !strings.Contains(out, `failures="0"`) || !strings.Contains(out, `classname="specs/001-greeting"`) {
			t.Errorf("exit %d\n%s", code, out)
		}
	})
}

// binaryVersion is the version the binary under test reports (`taskproof --version`),
// which its SARIF driver and VSAs carry.
func binaryVersion(t *testing.T) string {
	t.Helper()
	out, _, code := runTaskproof(t, os.Getenv("TASKPROOF_BIN"), "--version")
	f := strings.Fields(out)
	if code != 0 || len(f) == 0 {
		t.Fatalf("taskproof --version: exit %d, %q", code, out)
	}
	return f[len(f)-1]
}
