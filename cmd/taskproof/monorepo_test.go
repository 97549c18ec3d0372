package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Two projects of one repository (docs/format.md#project-root), each with its
// own speccoder.toml and the same unit dir and task IDs; their task lines
// differ, so that a statement's line says which project it is about.
const (
	monoA = "svc/a/specs/001-x/tasks.md"
	monoB = "svc/b/specs/001-x/tasks.md"
)

func newMonorepo(t *testing.T) *gateRepo {
	t.Helper()
	return newGateRepo(t, map[string]string{
		"svc/a/speccoder.toml": "[model]\nprovider = \"a\"\n",
		"svc/b/speccoder.toml": "[model]\nprovider = \"b\"\n",
		monoA:                  "# Tasks\n\n- [ ] T001 Create service a\n- [ ] T002 Test service a\n",
		monoB:                  "# Tasks\n\n- [ ] T001 Create service b\n- [ ] T002 Test service b\n",
	})
}

// monoStatements are the task-verification statements of c's note as
// "unit.dir policy_sha256".
func monoStatements(t *testing.T, r *gateRepo, c string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(r.git(t, "notes", "--ref", "refs/notes/speccoder", "show", c), "\n") {
		var env struct{ Payload []byte }
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("note line %q: %v", line, err)
		}
		var st struct {
			PredicateType string `json:"predicateType"`
			Predicate     struct {
				Unit struct {
					Dir string `json:"dir"`
				} `json:"unit"`
				Policy string `json:"policy_sha256"`
			} `json:"predicate"`
		}
		if err := json.Unmarshal(env.Payload, &st); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(st.PredicateType, "task-verification") {
			out = append(out, st.Predicate.Unit.Dir+" "+st.Predicate.Policy)
		}
	}
	slices.Sort(out)
	return out
}

// TestMonorepoProjects: one commit ticks T001 of both projects. Unattested,
// both ticks fail as ticked without evidence (they are units, not
// unrecognized tasks files); attesting project a's unit evidences a's tick
// only, though its statement has b's subject name, unit.dir and task ID; once
// both are attested (unit.dir project-relative, each project's
// policy_sha256), the gate and `verify REV` pass.
func TestMonorepoProjects(t *testing.T) {
	r := newMonorepo(t)
	c := r.tick(t, []string{monoA, monoB}, "T001")

	rep := r.gate(t, 1)
	checkRows(t, rep, "failure", monoA+":T001 unverifiable/ticked_without_evidence", monoB+":T001 unverifiable/ticked_without_evidence")

	r.attest(t, c, "--unit", "svc/a/specs/001-x")
	rep = r.gate(t, 1)
	checkRows(t, rep, "failure", monoA+":T001 evidenced/", monoB+":T001 unverifiable/ticked_without_evidence")

	r.attest(t, c, "--unit", "svc/b/specs/001-x")
	st := monoStatements(t, r, c)
	if len(st) != 2 || !strings.HasPrefix(st[0], "specs/001-x ") || !strings.HasPrefix(st[1], "specs/001-x ") || st[0] == st[1] {
		t.Errorf("task-verification statements %q, want one per project with unit.dir specs/001-x and the project's policy_sha256", st)
	}
	rep = r.gate(t, 0)
	checkRows(t, rep, "success", monoA+":T001 evidenced/", monoB+":T001 evidenced/")
	for _, tk := range rep.Ticks {
		if want := strings.TrimSuffix(tk.Path, "/tasks.md"); tk.Unit.Dir != want {
			t.Errorf("tick %s: unit dir %q, want the repository path %q", tk.Path, tk.Unit.Dir, want)
		}
	}
	r.run(t, 0, "verify", c, "--allowed-signers", r.allowed)
}

// TestMonorepoCopiedStatement: project a's statement copied onto the note of
// the commit that ticks project b's task does not evidence b's tick.
func TestMonorepoCopiedStatement(t *testing.T) {
	r := newMonorepo(t)
	ca := r.tick(t, []string{monoA}, "T001")
	cb := r.tick(t, []string{monoB}, "T001")
	r.attest(t, ca)
	note := r.git(t, "notes", "--ref", "refs/notes/speccoder", "show", ca)
	r.git(t, "notes", "--ref", "refs/notes/speccoder", "add", "-f", "-m", note, cb)
	rep := r.gate(t, 1)
	checkRows(t, rep, "failure", monoA+":T001 evidenced/", monoB+":T001 unverifiable/ticked_without_evidence")

	// Attested by its own project, b's tick passes.
	r.attest(t, cb, "--force")
	rep = r.gate(t, 0)
	checkRows(t, rep, "success", monoA+":T001 evidenced/", monoB+":T001 evidenced/")
}

// TestMonorepoDecide: an attested decision on a nested project's tick is
// written with the project-relative unit.dir, keeps the other project's
// statement of the same subject, and evidences the tick.
func TestMonorepoDecide(t *testing.T) {
	r := newMonorepo(t)
	c := r.tick(t, []string{monoA, monoB}, "T001")
	r.attest(t, c, "--unit", "svc/b/specs/001-x")
	r.run(t, 0, "attest", "decide", "--commit", c, "--task", "T001", "--unit", "svc/a/specs/001-x", "--verdict", "attested",
		"--by", "Ada", "--reason", "read it", "--signer", "ssh", "--key", r.key)
	if st := monoStatements(t, r, c); len(st) != 2 || !strings.HasPrefix(st[0], "specs/001-x ") || !strings.HasPrefix(st[1], "specs/001-x ") {
		t.Errorf("task-verification statements %q, want one per project with unit.dir specs/001-x", st)
	}
	rep := r.gate(t, 0)
	checkRows(t, rep, "success", monoA+":T001 evidenced/", monoB+":T001 evidenced/")
}

// TestMonorepoTwinTicks: one commit ticks the same task line in the root
// project and in a nested one. A statement names its unit project-relative
// (specs/001-x for both), so it cannot say which it vouches for: attest tick
// refuses either (exit 2), and the gate credits neither.
func TestMonorepoTwinTicks(t *testing.T) {
	root, nested := "specs/001-x/tasks.md", "svc/specs/001-x/tasks.md"
	tasks := "# Tasks\n\n- [ ] T001 Create the service\n- [ ] T002 Test it\n"
	r := newGateRepo(t, map[string]string{"svc/speccoder.toml": "[model]\nprovider = \"svc\"\n", root: tasks, nested: tasks})
	c := r.tick(t, []string{root, nested}, "T001")
	for _, unit := range []string{"svc/specs/001-x", "specs/001-x"} {
		_, stderr := r.run(t, ExitUsage, "attest", "tick", "--commit", c, "--signer", "ssh", "--key", r.key,
			"--verdict", "regression_only", "--regression-reason", "planning_work", "--unit", unit)
		if !strings.Contains(stderr, "in two projects") {
			t.Errorf("--unit %s: %s", unit, stderr)
		}
	}
	rep := r.gate(t, 1)
	checkRows(t, rep, "failure", root+":T001 unverifiable/ticked_without_evidence", nested+":T001 unverifiable/ticked_without_evidence")
	// The fix does not name the attest tick that is refused.
	out, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(out, "fix: "+c[:12]+" ticks T001's line in two projects") || strings.Contains(out, "taskproof attest tick --commit "+c[:12]) {
		t.Errorf("twin ticks' fix:\n%s", out)
	}
}

// TestMonorepoTwinLinesOneTick: the root project and a nested one have the
// same task lines, and a commit ticks the line in one of them. The statement
// reads the same for both, but the commit ticks only one: its tick is
// evidenced, whichever project it is in, and the other project's open line
// is not ticked by it.
func TestMonorepoTwinLinesOneTick(t *testing.T) {
	root, nested := "specs/001-x/tasks.md", "svc/specs/001-x/tasks.md"
	tasks := "# Tasks\n\n- [ ] T001 Create the service\n- [ ] T002 Test it\n"
	for _, path := range []string{nested, root} {
		t.Run(path, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{"svc/speccoder.toml": "[model]\nprovider = \"svc\"\n", root: tasks, nested: tasks})
			c := r.tick(t, []string{path}, "T002")
			checkRows(t, r.gate(t, 1), "failure", path+":T002 unverifiable/ticked_without_evidence")
			r.attest(t, c)
			checkRows(t, r.gate(t, 0), "success", path+":T002 evidenced/")
			if out, _ := r.run(t, 0, "verify", c, "--allowed-signers", r.allowed); !strings.Contains(out, "ok") {
				t.Errorf("verify %s:\n%s", c, out)
			}
		})
	}
	t.Run("root ticked at the base", func(t *testing.T) {
		// The root's line is ticked already; the nested project ticks its
		// own: the statement is the nested tick's (the commit's own tick of
		// the line), not the root's (it could never be evidenced).
		ticked := strings.Replace(tasks, "- [ ] T002 ", "- [x] T002 ", 1)
		r := newGateRepo(t, map[string]string{"svc/speccoder.toml": "[model]\nprovider = \"svc\"\n", root: ticked, nested: tasks})
		c := r.tick(t, []string{nested}, "T002")
		r.attest(t, c)
		checkRows(t, r.gate(t, 0), "success", nested+":T002 evidenced/")
	})
}
