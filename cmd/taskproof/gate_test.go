package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// gateRepo is a repository built with the real git for the merge gate's
// regression tests: main holds what a test plans, branch feature what it
// ticks; attest runs the real binary with an ed25519 key from the real
// ssh-keygen, trusted by the verifier's allowed signers file (outside the
// repository).
type gateRepo struct {
	bin, dir, key, allowed string
}

const gateTasks = "# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create the skeleton\n- [ ] T002 Write the test\n"

func newGateRepo(t *testing.T, files map[string]string) *gateRepo {
	t.Helper()
	r := &gateRepo{bin: testenv.Binary(t), dir: filepath.Join(t.TempDir(), "repo")}
	keys := t.TempDir()
	r.key = filepath.Join(keys, "id_ed25519")
	cmd := exec.Command(testenv.LookPath(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "dev", "-f", r.key)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(r.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	r.allowed = filepath.Join(keys, "allowed_signers")
	vfWrite(t, r.allowed, `dev@example.invalid namespaces="in-toto" `+string(pub))
	testenv.Git(t, "", "init", "-q", "-b", "main", r.dir)
	r.commit(t, "plan", files)
	r.git(t, "switch", "-q", "-c", "feature")
	return r
}

func (r *gateRepo) git(t *testing.T, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testenv.Git(t, r.dir, args...))
}

// write writes files (path → content; "" removes the path) without committing.
func (r *gateRepo) write(t *testing.T, files map[string]string) {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if files[p] == "" {
			if err := os.RemoveAll(full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		vfWrite(t, full, files[p])
	}
}

// commit writes files and commits everything; it returns HEAD.
func (r *gateRepo) commit(t *testing.T, msg string, files map[string]string) string {
	t.Helper()
	r.write(t, files)
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "--allow-empty", "-m", msg)
	return r.git(t, "rev-parse", "HEAD")
}

// tick replaces "- [ ] ID " by "- [x] ID " in each path and commits.
func (r *gateRepo) tick(t *testing.T, paths []string, ids ...string) string {
	t.Helper()
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, id := range ids {
			s = strings.Replace(s, "- [ ] "+id+" ", "- [x] "+id+" ", 1)
		}
		files[p] = s
	}
	return r.commit(t, strings.Join(ids, ", ")+" done", files)
}

func (r *gateRepo) run(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	return vfRunIn(t, r.bin, r.dir, want, args...)
}

// attest runs `attest tick` on commit c with a signed regression_only verdict.
func (r *gateRepo) attest(t *testing.T, c string, extra ...string) string {
	t.Helper()
	out, _ := r.run(t, 0, append([]string{"attest", "tick", "--commit", c, "--signer", "ssh", "--key", r.key,
		"--verdict", "regression_only", "--regression-reason", "planning_work"}, extra...)...)
	return out
}

type gateReport struct {
	Conclusion string       `json:"conclusion"`
	Ticks      []gateTick   `json:"ticks"`
	Objects    []gateObject `json:"objects"`
}

type gateTick struct {
	Commit  string `json:"commit"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	TaskID  string `json:"task_id"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Failing bool   `json:"failing"`
	Message string `json:"message"`
	Unit    struct {
		Dir string `json:"dir"`
	} `json:"unit"`
	Evidence string `json:"evidence"`
}

type gateObject struct {
	Object string `json:"object"`
	Task   string `json:"task"`
}

// gate runs `verify --branch --base main` (JSON) and checks its exit code.
func (r *gateRepo) gate(t *testing.T, want int, extra ...string) gateReport {
	t.Helper()
	out, _ := r.run(t, want, append([]string{"verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "json"}, extra...)...)
	var rep gateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify --format json: %v\n%s", err, out)
	}
	return rep
}

// rows renders the failing and evidenced ticks as "PATH:TASK status/reason".
func (rep gateReport) rows() string {
	var out []string
	for _, tk := range rep.Ticks {
		out = append(out, tk.Path+":"+tk.TaskID+" "+tk.Status+"/"+tk.Reason)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func checkRows(t *testing.T, rep gateReport, conclusion string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := rep.rows(); got != strings.Join(want, ", ") || rep.Conclusion != conclusion {
		t.Errorf("gate: %s (%s)\nwant %s (%s)", got, rep.Conclusion, strings.Join(want, ", "), conclusion)
	}
}

// TestGateUnitKey: two units share subject names (specs/001-greeting and
// .specify/specs/001-greeting both name 001-greeting/T001), and one commit
// ticks T001 in both. attest tick writes a statement per unit, neither
// replacing the other's lines; the gate credits each tick with its own
// unit's statement only — attesting one unit (--unit) leaves the other's tick
// without evidence.
func TestGateUnitKey(t *testing.T) {
	a, b := "specs/001-greeting/tasks.md", ".specify/specs/001-greeting/tasks.md"
	r := newGateRepo(t, map[string]string{a: gateTasks, b: gateTasks})
	c := r.tick(t, []string{a, b}, "T001")

	r.attest(t, c, "--unit", "specs/001-greeting")
	rep := r.gate(t, 1)
	checkRows(t, rep, "failure", a+":T001 evidenced/", b+":T001 unverifiable/ticked_without_evidence")

	r.attest(t, c)
	note := r.git(t, "notes", "--ref", "refs/notes/speccoder", "show", c)
	dirs := map[string]int{}
	for _, line := range strings.Split(note, "\n") {
		var env struct{ Payload []byte }
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("note line %q: %v", line, err)
		}
		var st struct {
			PredicateType string `json:"predicateType"`
			Predicate     struct {
				Unit struct{ Dir string }
			}
		}
		if err := json.Unmarshal(env.Payload, &st); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(st.PredicateType, "task-verification") {
			dirs[st.Predicate.Unit.Dir]++
		}
	}
	if dirs["specs/001-greeting"] != 1 || dirs[".specify/specs/001-greeting"] != 1 || len(dirs) != 2 {
		t.Errorf("task-verification statements per unit %v, want one each\n%s", dirs, note)
	}
	rep = r.gate(t, 0)
	checkRows(t, rep, "success", a+":T001 evidenced/", b+":T001 evidenced/")
}
