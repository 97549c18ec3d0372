package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	plan := r.commit(t, "plan", files)
	// The notes ref exists (its absence is its own error): another tool's note.
	r.git(t, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "not a statement", plan)
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

	// The other unit's tick, named by its unit: the first unit's statements for
	// the same subject name stay (attesting all of c again would be refused as
	// already attested, docs/format.md#attesting-safely).
	r.attest(t, c, "--unit", ".specify/specs/001-greeting")
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

// failing is the rows of rep that fail, as "PATH reason".
func (rep gateReport) failing() []string {
	var out []string
	for _, tk := range rep.Ticks {
		if tk.Failing {
			out = append(out, tk.Path+" "+tk.Reason)
		}
	}
	sort.Strings(out)
	return out
}

// checkFails checks that the gate fails (exit 1) with each of want among its
// failing rows.
func checkFails(t *testing.T, rep gateReport, want ...string) {
	t.Helper()
	got := rep.failing()
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("gate failing rows %q lack %q", got, w)
		}
	}
	if rep.Conclusion != "failure" {
		t.Errorf("conclusion %s", rep.Conclusion)
	}
}

// checkTicksFail fails t unless each of ids has a failing tick in path.
func checkTicksFail(t *testing.T, rep gateReport, path string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if !strings.Contains(rep.rows(), path+":"+id+" ") {
			t.Errorf("gate: %s, want %s failing", rep.rows(), id)
		}
	}
}

// checkHiddenTicks builds a unit of three open tasks, ticks and attests
// T001, then commits hide's version of the file (given the file with T001
// ticked): one that ticks T002 and T003 where GitHub shows them ticked. The
// gate must fail on both, without evidence.
func checkHiddenTicks(t *testing.T, hide func(tasks string) string) {
	t.Helper()
	const path = "specs/001-face/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks + "- [ ] T003 Wire it up\n"})
	r.attest(t, r.tick(t, []string{path}, "T001"))
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	r.commit(t, "T002, T003 done", map[string]string{path: hide(string(b))})
	rep := r.gate(t, 1)
	checkFails(t, rep, path+" ticked_without_evidence")
	checkTicksFail(t, rep, path, "T002", "T003")
}

const gateUnit = "specs/001-x/tasks.md"

// TestGateSymlinks: a tasks file, or a directory on a unit layout's path,
// that is a symbolic link at head or at a commit of the range fails the gate
// as tasks_file_not_regular naming it; `taskproof ticks` lists it. The honest
// counterpart (the regular file ticked and attested) passes.
func TestGateSymlinks(t *testing.T) {
	t.Run("tasks file replaced by a link to a ticked copy", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		ticked := strings.ReplaceAll(gateTasks, "- [ ] ", "- [x] ")
		r.write(t, map[string]string{"notes/copy.md": ticked, gateUnit: ""})
		if err := os.Symlink("../../notes/copy.md", filepath.Join(r.dir, "specs/001-x/tasks.md")); err != nil {
			t.Fatal(err)
		}
		r.commit(t, "tick via a link", nil)
		checkFails(t, r.gate(t, 1), gateUnit+" tasks_file_not_regular")
		out, _ := r.run(t, 0, "ticks", "main..HEAD")
		if !strings.Contains(out, "not_regular") || !strings.Contains(out, gateUnit) || !strings.Contains(out, "symlink") {
			t.Errorf("ticks does not list the link:\n%s", out)
		}
	})
	t.Run("specs directory moved and replaced by a link", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		r.git(t, "mv", "specs", "real-specs")
		if err := os.Symlink("real-specs", filepath.Join(r.dir, "specs")); err != nil {
			t.Fatal(err)
		}
		r.commit(t, "move specs behind a link", nil)
		r.tick(t, []string{"real-specs/001-x/tasks.md"}, "T001", "T002")
		rep := r.gate(t, 1)
		checkFails(t, rep, "specs tasks_file_not_regular", "real-specs/001-x/tasks.md unrecognized_tasks_file")
	})
	t.Run("submodule where a unit is", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		r.git(t, "update-index", "--add", "--cacheinfo", "160000,"+r.git(t, "rev-parse", "HEAD")+",specs/002-sub")
		r.git(t, "commit", "-q", "-m", "a unit as a submodule")
		checkFails(t, r.gate(t, 1), "specs/002-sub tasks_file_not_regular")
	})
	t.Run("link already at base, seen at head", func(t *testing.T) {
		r := newGateRepo(t, nil)
		r.git(t, "switch", "-q", "main")
		if err := os.Symlink("elsewhere", filepath.Join(r.dir, ".kiro")); err != nil {
			t.Fatal(err)
		}
		r.commit(t, "plan with a link", map[string]string{gateUnit: gateTasks})
		r.git(t, "switch", "-q", "-C", "feature")
		c := r.tick(t, []string{gateUnit}, "T001")
		r.attest(t, c)
		checkFails(t, r.gate(t, 1), ".kiro tasks_file_not_regular")
	})
	t.Run("honest counterpart", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		c := r.tick(t, []string{gateUnit}, "T001", "T002")
		r.attest(t, c)
		checkRows(t, r.gate(t, 0), "success", gateUnit+":T001 evidenced/", gateUnit+":T002 evidenced/")
	})
}

// TestGateUnrecognizedTasksFiles: a tick in a file named tasks.md (any case)
// outside the unit layouts fails as unrecognized_tasks_file; the verifier's
// policy adds layouts (then the tick is attested and evidenced) or ignores
// paths.
func TestGateUnrecognizedTasksFiles(t *testing.T) {
	for _, path := range []string{"docs/tasks.md", "openspec/initiatives/x/tasks.md", "specs/tasks.md", "specs/001-x/sub/tasks.md", "specs/002-y/TASKS.md"} {
		t.Run(path, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{gateUnit: gateTasks, path: gateTasks})
			r.tick(t, []string{path}, "T001")
			checkFails(t, r.gate(t, 1), path+" unrecognized_tasks_file")
			out, _ := r.run(t, 0, "ticks", "main..HEAD")
			if !strings.Contains(out, path) || !strings.Contains(out, "unrecognized_tasks_file") {
				t.Errorf("ticks does not list the tick with its reason:\n%s", out)
			}
		})
	}
	t.Run("policy layout", func(t *testing.T) {
		path := "openspec/initiatives/x/tasks.md"
		r := newGateRepo(t, map[string]string{path: "## 1. Work\n\n- [ ] 1.1 Do it\n- [ ] 1.2 Test it\n"})
		pol := filepath.Join(t.TempDir(), "policy.toml")
		vfWrite(t, pol, "version = 1\n\n[[units]]\nformat = \"openspec\"\ntasks = \"openspec/initiatives/**/tasks.md\"\n")
		c := r.tick(t, []string{path}, "1.1")
		checkFails(t, r.gate(t, 1, "--policy", pol), path+" ticked_without_evidence")
		r.attest(t, c, "--policy", pol)
		checkRows(t, r.gate(t, 0, "--policy", pol), "success", path+":1.1 evidenced/")
	})
	t.Run("policy ignores", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks, "docs/tasks.md": gateTasks})
		pol := filepath.Join(t.TempDir(), "policy.toml")
		vfWrite(t, pol, "version = 1\n\n[unit_paths]\nignore = [\"docs/**\"]\n")
		r.tick(t, []string{"docs/tasks.md"}, "T001")
		c := r.tick(t, []string{gateUnit}, "T001")
		r.attest(t, c)
		checkRows(t, r.gate(t, 0, "--policy", pol), "success", gateUnit+":T001 evidenced/")
	})
	t.Run("policy ignores, a project added there", func(t *testing.T) {
		// The ignore list is for stray tasks files: a project root the range
		// adds under an ignored path makes its units' ticks ticks (they
		// passed neutral, unjudged).
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		pol := filepath.Join(t.TempDir(), "policy.toml")
		vfWrite(t, pol, "version = 1\n\n[unit_paths]\nignore = [\"docs/**\"]\n")
		r.commit(t, "docs becomes a project", map[string]string{"docs/speccoder.toml": "# docs\n", "docs/specs/001-x/tasks.md": gateTasks})
		r.tick(t, []string{"docs/specs/001-x/tasks.md"}, "T001")
		checkFails(t, r.gate(t, 1, "--policy", pol), "docs/specs/001-x/tasks.md ticked_without_evidence")
	})
}

// TestGateBornTickedByRenaming: a unit renamed with every title edited and
// every box ticked in one commit, a unit moved to another layout and ticked,
// and a tasks file deleted and added back ticked all fail the gate; attested,
// each passes.
func TestGateBornTickedByRenaming(t *testing.T) {
	edited := "# Tasks\n\n## Phase 1: Setup\n\n- [x] T001 Build the frame\n- [x] T002 Check the frame\n"
	cases := []struct {
		name string
		do   func(r *gateRepo) []string // the tick commits
		path string
	}{
		{"git mv, retitle and tick", func(r *gateRepo) []string {
			r.git(t, "mv", "specs/001-x", "specs/001-x-v2")
			return []string{r.commit(t, "v2", map[string]string{"specs/001-x-v2/tasks.md": edited})}
		}, "specs/001-x-v2/tasks.md"},
		{"moved to kiro and ticked", func(r *gateRepo) []string {
			r.git(t, "mv", "specs/001-x", ".kiro-tmp")
			r.write(t, map[string]string{".kiro/specs/001-x/.keep": "x"})
			r.git(t, "mv", ".kiro-tmp/tasks.md", ".kiro/specs/001-x/tasks.md")
			return []string{r.commit(t, "to kiro", map[string]string{".kiro/specs/001-x/tasks.md": strings.ReplaceAll(gateTasks, "- [ ] ", "- [x] ")})}
		}, ".kiro/specs/001-x/tasks.md"},
		{"deleted, then added back ticked", func(r *gateRepo) []string {
			r.commit(t, "drop", map[string]string{gateUnit: ""})
			return []string{r.commit(t, "back", map[string]string{gateUnit: strings.ReplaceAll(gateTasks, "- [ ] ", "- [x] ")})}
		}, gateUnit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
			commits := tc.do(r)
			rep := r.gate(t, 1)
			if len(rep.failing()) == 0 {
				t.Fatalf("nothing fails: %s", rep.rows())
			}
			for _, row := range rep.failing() {
				if !strings.HasPrefix(row, tc.path+" ") || (!strings.HasSuffix(row, " ticked_without_evidence")) {
					t.Errorf("failing row %q, want %s ticked_without_evidence (born_ticked or tick)", row, tc.path)
				}
			}
			for _, c := range commits {
				r.attest(t, c)
			}
			rep = r.gate(t, 0)
			if rep.Conclusion != "success" || len(rep.Ticks) != 2 {
				t.Errorf("attested: %s (%s)", rep.rows(), rep.Conclusion)
			}
		})
	}
}

// TestGateStateCheck: a tick unticked on a side branch whose merge discards
// the side ("git merge -s ours") is still the tick head's line comes from
// (docs/format.md#the-gates-model: a merge whose tree is one parent's is
// compared with that parent alone), so it needs its evidence: without it the
// gate fails naming the tick (ticked_without_evidence), with it the gate
// passes.
func TestGateStateCheck(t *testing.T) {
	for _, attested := range []bool{false, true} {
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		c1 := r.tick(t, []string{gateUnit}, "T001")
		r.git(t, "switch", "-q", "-c", "side")
		r.commit(t, "reopen", map[string]string{gateUnit: gateTasks})
		r.git(t, "switch", "-q", "feature")
		r.commit(t, "docs", map[string]string{"README.md": "x\n"})
		r.git(t, "merge", "-q", "-s", "ours", "-m", "merge side", "side")
		if !attested {
			rep := r.gate(t, 1)
			checkFails(t, rep, gateUnit+" ticked_without_evidence")
			found := false
			for _, tk := range rep.Ticks {
				found = found || (tk.Failing && tk.Commit == c1 && tk.Line == 5)
			}
			if !found {
				t.Errorf("no failing row for the tick %s of %s:5: %s", c1, gateUnit, rep.rows())
			}
			continue
		}
		r.attest(t, c1)
		if rep := r.gate(t, 0); rep.Conclusion != "success" {
			t.Errorf("attested: %s (%s)", rep.rows(), rep.Conclusion)
		}
	}
}

// TestGateSupersededTicks: a tick whose attestation is bad is fixed on the
// branch by unticking, re-ticking and attesting the new tick: the old tick is
// superseded, the new one evidenced.
func TestGateSupersededTicks(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.run(t, 0, "attest", "tick", "--commit", c1, "--verdict", "regression_only", "--regression-reason", "planning_work", "--unsigned")
	checkFails(t, r.gate(t, 1), gateUnit+" unsigned")
	r.commit(t, "untick", map[string]string{gateUnit: gateTasks})
	c3 := r.tick(t, []string{gateUnit}, "T001")
	checkFails(t, r.gate(t, 1), gateUnit+" commit_unreachable") // c1's statement is about the old tick
	r.attest(t, c3)
	rep := r.gate(t, 0)
	checkRows(t, rep, "success", gateUnit+":T001 superseded/", gateUnit+":T001 evidenced/")
}

// TestGateSupersededEdit: a ticked line edited after its tick fails the gate
// (edited_after_tick); unticking it, ticking it again and attesting the new
// tick fixes the branch without rewriting history.
func TestGateSupersededEdit(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	edited := strings.Replace(gateTasks, "- [ ] T001 Create the skeleton", "- [x] T001 Create the whole skeleton", 1)
	r.commit(t, "reword T001", map[string]string{gateUnit: edited})
	checkFails(t, r.gate(t, 1), gateUnit+" edited_after_tick")
	r.commit(t, "reopen T001", map[string]string{gateUnit: strings.Replace(edited, "- [x] T001", "- [ ] T001", 1)})
	c4 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c4)
	rep := r.gate(t, 0)
	checkRows(t, rep, "success", gateUnit+":T001 evidenced/", gateUnit+":T001 superseded/", gateUnit+":T001 evidenced/")
}

// TestGateMergeReticksUntickedTask: a side branch ticks T001 (attested) and
// then unticks it; the merge into the feature branch ticks T001 again in its
// resolution. The side does not hold the tick at its tip, so the merge's
// tick is the merge's own and needs evidence on the merge: the withdrawn
// statement does not cover it (it did: the merge's tick was taken as brought
// in by the side, and the gate passed).
func TestGateMergeReticksUntickedTask(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "-c", "side")
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	r.commit(t, "reopen T001", map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "docs", map[string]string{"README.md": "x\n"})
	r.git(t, "merge", "-q", "--no-ff", "--no-commit", "side")
	r.write(t, map[string]string{gateUnit: strings.Replace(gateTasks, "- [ ] T001 ", "- [x] T001 ", 1)})
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "-m", "merge side, T001 ticked again")
	merge := r.git(t, "rev-parse", "HEAD")
	rep := r.gate(t, 1)
	failing := false
	for _, tk := range rep.Ticks {
		failing = failing || (tk.Commit == merge && tk.Failing && tk.TaskID == "T001")
	}
	if !failing {
		t.Fatalf("the merge's own tick of T001 is not failing: %s (%s)", rep.rows(), rep.Conclusion)
	}
	r.attest(t, merge)
	if rep := r.gate(t, 0); rep.Conclusion != "success" {
		t.Errorf("merge attested: %s (%s)", rep.rows(), rep.Conclusion)
	}
}

// TestGateMergeFromBase: main moves on, ticking T002 (without evidence: the
// base's ticks are the base's to judge), and the feature merges main in, as
// GitHub's "Update branch" does. The merge's tick of T002 is main's, brought
// in: not a tick of the range (it failed commit_unreachable, its fix a carry
// that is no rewrite). A tick the merge makes in its own resolution (T003,
// open on both sides) is still judged on the merge.
func TestGateMergeFromBase(t *testing.T) {
	// Phases apart, so that git merges the two sides' ticks cleanly.
	const tasks = "# Tasks\n\n## Phase 1\n\n- [ ] T001 Create the skeleton\n\n## Phase 2\n\n- [ ] T002 Write the test\n\n## Phase 3\n\n- [ ] T003 Wire it\n"
	r := newGateRepo(t, map[string]string{gateUnit: tasks})
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	r.git(t, "switch", "-q", "main")
	r.tick(t, []string{gateUnit}, "T002")
	r.git(t, "switch", "-q", "feature")
	r.git(t, "merge", "-q", "--no-edit", "main")
	checkRows(t, r.gate(t, 0), "success", gateUnit+":T001 evidenced/")

	r.git(t, "reset", "-q", "--hard", "HEAD^")
	r.git(t, "merge", "-q", "--no-ff", "--no-commit", "main")
	both := strings.Replace(strings.Replace(tasks, "- [ ] T001 ", "- [x] T001 ", 1), "- [ ] T002 ", "- [x] T002 ", 1)
	r.write(t, map[string]string{gateUnit: strings.Replace(both, "- [ ] T003 ", "- [x] T003 ", 1)})
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "-m", "merge main, T003 ticked in the resolution")
	checkRows(t, r.gate(t, 1), "failure", gateUnit+":T001 evidenced/", gateUnit+":T003 unverifiable/ticked_without_evidence")
}

// TestGateMergeFromBaseMovedUnit: main ticks a task (unattested: the base's
// ticks are the base's) and then moves the unit (an OpenSpec change archived,
// a spec-kit unit renamed); the feature merges main. The moved tasks file's
// ticks are main's, brought in: they failed born_ticked or
// ticked_without_evidence on the merge.
func TestGateMergeFromBaseMovedUnit(t *testing.T) {
	for _, tc := range []struct{ from, to, tasks, id string }{
		{"openspec/changes/add-login/tasks.md", "openspec/changes/archive/2026-01-25-add-login/tasks.md", "## 1. Work\n\n- [ ] 1.1 Do it\n- [ ] 1.2 Test it\n", "1.1"},
		{"specs/001-x/tasks.md", "specs/009-x/tasks.md", gateTasks, "T001"},
	} {
		t.Run(tc.to, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{tc.from: tc.tasks})
			r.commit(t, "feature work", map[string]string{"README.md": "feature\n"})
			r.git(t, "switch", "-q", "main")
			r.tick(t, []string{tc.from}, tc.id)
			if err := os.MkdirAll(filepath.Join(r.dir, filepath.Dir(filepath.Dir(tc.to))), 0o755); err != nil {
				t.Fatal(err)
			}
			r.git(t, "mv", filepath.Dir(tc.from), filepath.Dir(tc.to))
			r.git(t, "commit", "-q", "-m", "move the unit")
			r.git(t, "switch", "-q", "feature")
			r.git(t, "merge", "-q", "--no-edit", "main")
			if rep := r.gate(t, 0); rep.Conclusion != "neutral" {
				t.Errorf("merge of main: %s (%s)", rep.rows(), rep.Conclusion)
			}
		})
	}
}

// TestGateNewProjectRootTickedFile: base holds a tasks file under a directory
// that is no project (no speccoder.toml), its T001 ticked: no unit's task,
// never judged. A range that only adds the project root makes the file a
// unit's, T001 checked at head: that box was never a tick of a unit, so it
// needs evidence like any task checked at head and not at base (it passed,
// neutral, for a spec-kit unit).
func TestGateNewProjectRootTickedFile(t *testing.T) {
	const file = "examples/app/specs/001-demo/tasks.md"
	r := newGateRepo(t, map[string]string{file: "# Tasks\n\n- [x] T001 Add the endpoint\n- [ ] T002 Open\n"})
	r.commit(t, "make examples/app a project", map[string]string{"examples/app/speccoder.toml": "# project\n"})
	rep := r.gate(t, 1)
	checkFails(t, rep, file+" ticked_without_evidence")
	for _, tk := range rep.Ticks {
		if tk.Failing && !strings.Contains(tk.Message, "no unit's tasks file") {
			t.Errorf("message does not say the base's box was no unit's: %q", tk.Message)
		}
	}
}

// TestGateUnreadableTasksFileHint: a tasks file base already holds that
// cannot be read as one (NUL bytes) fails every pull request's gate, which
// cannot judge it; the fix names the file and the base branch, not a note
// line or a re-attestation (no tick or statement is involved).
func TestGateUnreadableTasksFileHint(t *testing.T) {
	const legacy = "specs/002-legacy/tasks.md"
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks, legacy: "# Tasks\n\x00\x00- [x] T001 Old\n"})
	r.commit(t, "docs", map[string]string{"README.md": "x\n"})
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(out, "fix: '"+legacy+"' at head cannot be read as a tasks file") && !strings.Contains(out, "fix: "+legacy+" at head cannot be read as a tasks file") {
		t.Fatalf("no tasks-file hint for %s:\n%s", legacy, out)
	}
	if strings.Contains(out, "note line") || strings.Contains(out, "attest tick") {
		t.Errorf("the hint points at notes or attestation:\n%s", out)
	}
}

// TestGateMoveTickedFileIntoUnit: base holds ticked tasks in a file outside
// every unit layout (unrecognized); a range that moves it to a unit's path
// makes them a unit's tasks, which were never judged as ticks: they need
// evidence (the move passed, neutral).
func TestGateMoveTickedFileIntoUnit(t *testing.T) {
	const drafts = "docs/drafts/002-payments/tasks.md"
	r := newGateRepo(t, map[string]string{drafts: "# Tasks\n\n- [x] T001 Charge\n- [x] T002 Refund\n"})
	vfWrite(t, filepath.Join(r.dir, "specs", ".keep"), "")
	r.git(t, "mv", "docs/drafts/002-payments", "specs/002-payments")
	r.git(t, "commit", "-q", "-m", "move the payments plan into specs")
	checkFails(t, r.gate(t, 1), "specs/002-payments/tasks.md ticked_without_evidence")
}

// TestGateRetickHintAttests: a task ticked (attested), unticked and ticked
// again has its evidence on an earlier commit of the tick's own history:
// commit_unreachable, whose fix is attesting the new tick — carrying the
// earlier statement would vouch for code it never judged (the tree changed
// in between). A tick with the evidence commit's tree, or evidence off the
// range (a rewrite's original), keeps the carry hint.
func TestGateRetickHintAttests(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	r.commit(t, "reopen T001, rework it", map[string]string{gateUnit: gateTasks, "src/skeleton.go": "package skeleton // reworked\n"})
	c3 := r.tick(t, []string{gateUnit}, "T001")
	checkFails(t, r.gate(t, 1), gateUnit+" commit_unreachable")
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	fix := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "fix:") {
			fix = l
		}
	}
	if !strings.Contains(fix, "taskproof attest tick --commit "+c3[:12]) || strings.Contains(fix, "attest carry") {
		t.Errorf("fix line %q: want attest tick on %s, no carry\n%s", fix, c3[:12], out)
	}
	if !strings.Contains(out, "other commits of this range (an earlier tick of the line") {
		t.Errorf("message does not say the evidence is on an earlier commit:\n%s", out)
	}

	// Reverting the reopening ticks T001 again over c1's very tree: still
	// no rewrite (c1 is in the tick's history, and carry refuses it).
	r.git(t, "reset", "-q", "--hard", c1)
	r.git(t, "revert", "--no-edit", "HEAD")
	r.git(t, "revert", "--no-edit", "HEAD")
	c5 := r.git(t, "rev-parse", "HEAD")
	out, _ = r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(out, "taskproof attest tick --commit "+c5[:12]) || strings.Contains(out, "attest carry") {
		t.Errorf("revert of a revert: want attest tick on %s, no carry\n%s", c5[:12], out)
	}
}

// TestGateBranchNamedLikeAnID: a pull request branch whose name is the first
// hex digit of main's id is the branch, as for git: its tick without
// evidence fails the gate named by the branch and in a range, instead of an
// empty range (main read for the branch) passing neutral with exit 0.
func TestGateBranchNamedLikeAnID(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	b := r.git(t, "rev-parse", "main")[:1]
	r.git(t, "checkout", "-q", "-b", b)
	r.commit(t, "tick T002, no evidence", map[string]string{gateUnit: strings.Replace(gateTasks, "- [ ] T002", "- [x] T002", 1)})
	r.git(t, "checkout", "-q", "main")
	checkTicksFail(t, r.gate(t, 1, b), gateUnit, "T002")
	if out, _ := r.run(t, 1, "verify", "main.."+b, "--allowed-signers", r.allowed); !strings.Contains(out, "ticked_without_evidence") {
		t.Errorf("verify main..%s: want the tick failing:\n%s", b, out)
	}
}

// TestGateSSHCertificateFile: `attest tick --key id-cert.pub` with no
// ssh-agent signs with the private key beside the certificate and carries the
// certificate, as ssh-keygen does. The gate credits it to a cert-authority
// entry for the certificate's CA and refuses it against an entry for the bare
// key (a certificate's signature needs its CA trusted, as in ssh-keygen).
func TestGateSSHCertificateFile(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	ca := filepath.Join(t.TempDir(), "ca")
	for _, args := range [][]string{
		{"-q", "-t", "ed25519", "-N", "", "-C", "ca", "-f", ca},
		{"-q", "-s", ca, "-I", "dev-cert", "-n", "dev@example.invalid", r.key + ".pub"},
	} {
		if out, err := exec.Command(testenv.LookPath(t, "ssh-keygen"), args...).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen %v: %v\n%s", args, err, out)
		}
	}
	r.run(t, 0, "attest", "tick", "--commit", r.tick(t, []string{gateUnit}, "T001"), "--key", r.key+"-cert.pub",
		"--verdict", "regression_only", "--regression-reason", "planning_work")
	checkTicksFail(t, r.gate(t, 1), gateUnit, "T001")

	caPub, err := os.ReadFile(ca + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	vfWrite(t, r.allowed, `dev@example.invalid cert-authority,namespaces="in-toto" `+string(caPub))
	if rep := r.gate(t, 0); rep.Conclusion != "success" {
		t.Errorf("gate with the CA trusted: %s %s, want success", rep.Conclusion, rep.rows())
	}
}

// TestGateDeciderSigns: [attested] deciders names who may decide; a decision
// naming alice but signed by mallory's key (trusted, for other work) fails the
// gate, and the same decision signed by alice's key passes.
func TestGateDeciderSigns(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	alice, _ := sshKeyFile(t, "")
	pub, err := os.ReadFile(alice + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(r.allowed)
	if err != nil {
		t.Fatal(err)
	}
	vfWrite(t, r.allowed, string(old)+`alice@example.invalid namespaces="in-toto" `+string(pub))
	pol := filepath.Join(t.TempDir(), "policy.toml")
	vfWrite(t, pol, "version = 1\n\n[attested]\ndeciders = [\"alice@example.invalid\"]\nrequire_reason = true\n")
	c := r.tick(t, []string{gateUnit}, "T001")
	decide := func(key string) {
		r.run(t, 0, "attest", "decide", "--commit", c, "--task", "T001", "--verdict", "attested",
			"--by", "alice@example.invalid", "--reason", "read it", "--signer", "ssh", "--key", key, "--force")
	}
	decide(r.key) // mallory: the dev@example.invalid key
	rep := r.gate(t, 1, "--policy", pol)
	checkFails(t, rep, gateUnit+" policy")
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--policy", pol)
	if !strings.Contains(out, `decider "alice@example.invalid" did not sign the decision (signed by "dev@example.invalid")`) {
		t.Errorf("the gate does not say who signed:\n%s", out)
	}
	decide(alice)
	checkRows(t, r.gate(t, 0, "--policy", pol), "success", gateUnit+":T001 evidenced/")
}

// TestGateStateCheckNoTickInRange: the feature branched while T001 was
// ticked on main; main then reopened it. At head T001 is checked, at the base
// open, and no commit of the range ticks it: the gate fails, and its fix says
// to untick and re-tick rather than to attest a commit that ticks nothing
// (attest refuses those).
func TestGateStateCheckNoTickInRange(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "main")
	m := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, m)
	r.git(t, "branch", "-f", "feature")
	r.commit(t, "reopen T001", map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "docs", map[string]string{"README.md": "x\n"})
	checkRows(t, r.gate(t, 1), "failure", gateUnit+":T001 unverifiable/ticked_without_evidence")
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(out, "fix: no commit of the range ticks T001") {
		t.Errorf("the fix does not say no commit of the range ticks T001:\n%s", out)
	}
}

// TestGateMoveOverOpenUnit: at the base specs/001-x has T001 open and
// specs/002-y has it ticked. The branch deletes 001-x's tasks file, then
// moves 002-y onto 001-x: at that path T001 goes from open to ticked with no
// tick anywhere (the move brings 002-y's). It fails; it passed, 0 ticks.
func TestGateMoveOverOpenUnit(t *testing.T) {
	done := strings.Replace(gateTasks, "- [ ] T001 ", "- [x] T001 ", 1)
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks, "specs/002-y/tasks.md": done})
	r.commit(t, "drop 001-x's tasks", map[string]string{gateUnit: ""})
	if err := os.Remove(filepath.Join(r.dir, "specs/001-x")); err != nil {
		t.Fatal(err)
	}
	r.git(t, "mv", "specs/002-y", "specs/001-x")
	r.git(t, "commit", "-q", "-m", "002-y becomes 001-x")
	checkFails(t, r.gate(t, 1), gateUnit+" ticked_without_evidence")
}
