package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGateTasksFileMovedOut: a unit's tasks file that a commit of the range
// moves to a path where it is no tasks file (docs/format.md#tasks-files,
// "Tasks files that leave") fails the gate as tasks_file_moved_out, naming
// the commit and both paths, with or without a box ticked as it moves;
// `taskproof ticks` lists the move. OpenSpec's archive move is still
// followed, and a move to a path the verifier's policy ignores passes.
func TestGateTasksFileMovedOut(t *testing.T) {
	moveOut := func(t *testing.T, to string, tick bool) (*gateRepo, string) {
		t.Helper()
		r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
		r.write(t, map[string]string{filepath.Dir(to) + "/.keep": "x"})
		r.git(t, "mv", gateUnit, to)
		if tick {
			return r, r.tick(t, []string{to}, "T002")
		}
		return r, r.commit(t, "move the tasks", nil)
	}
	checkMovedOut := func(t *testing.T, r *gateRepo, c, to string) {
		t.Helper()
		rep := r.gate(t, 1)
		checkFails(t, rep, to+" tasks_file_moved_out")
		for _, tk := range rep.Ticks {
			if tk.Reason == "tasks_file_moved_out" && (!strings.Contains(tk.Message, gateUnit) || !strings.Contains(tk.Message, to) || !strings.Contains(tk.Message, c[:12]) || tk.Commit != c) {
				t.Errorf("the failure does not name the commit %s and both paths: %+v", c, tk)
			}
		}
		out, _ := r.run(t, 0, "ticks", "main..HEAD")
		if !strings.Contains(out, "moved_out") || !strings.Contains(out, gateUnit+" => "+to) || !strings.Contains(out, "tasks_file_moved_out") {
			t.Errorf("ticks does not list the move out:\n%s", out)
		}
	}
	for _, to := range []string{"docs/tasks-001-x.md", "specs/001-x/checklists/tasks-done.md"} {
		t.Run("ticked as it moves to "+to, func(t *testing.T) {
			r, c := moveOut(t, to, true)
			checkMovedOut(t, r, c, to)
		})
	}
	t.Run("moved without a tick", func(t *testing.T) {
		r, c := moveOut(t, "docs/tasks-001-x.md", false)
		checkMovedOut(t, r, c, "docs/tasks-001-x.md")
	})
	t.Run("ticked in a later commit", func(t *testing.T) {
		// The tick is in a file that is no tasks file, which the walk does
		// not read: the move fails.
		r, c := moveOut(t, "docs/tasks-001-x.md", false)
		r.tick(t, []string{"docs/tasks-001-x.md"}, "T001")
		checkMovedOut(t, r, c, "docs/tasks-001-x.md")
	})
	t.Run("moved out in a merge's resolution", func(t *testing.T) {
		// The unit comes from the merge's second parent; against its first
		// parent, which lacks it, the merge only adds a file.
		r := newGateRepo(t, map[string]string{"code.txt": "x\n"})
		r.git(t, "switch", "-q", "-c", "side")
		r.commit(t, "plan the unit", map[string]string{gateUnit: gateTasks})
		r.git(t, "switch", "-q", "feature")
		r.commit(t, "other work", map[string]string{"code.txt": "y\n"})
		r.git(t, "merge", "-q", "--no-commit", "side")
		r.write(t, map[string]string{"docs/.keep": "x"})
		r.git(t, "mv", gateUnit, "docs/tasks-001-x.md")
		c := r.tick(t, []string{"docs/tasks-001-x.md"}, "T001")
		if ps := strings.Fields(r.git(t, "rev-list", "--parents", "-n1", c)); len(ps) != 3 {
			t.Fatalf("not a merge: %v", ps)
		}
		rep := r.gate(t, 1)
		checkFails(t, rep, "docs/tasks-001-x.md tasks_file_moved_out")
		if n := len(rep.failing()); n != 1 {
			t.Errorf("failing rows %q, want the move once", rep.failing())
		}
	})
	t.Run("OpenSpec archive move", func(t *testing.T) {
		const from, to = "openspec/changes/x/tasks.md", "openspec/changes/archive/2026-01-01-x/tasks.md"
		r := newGateRepo(t, map[string]string{from: "## 1. Work\n\n- [ ] 1.1 Do it\n- [ ] 1.2 Test it\n"})
		r.write(t, map[string]string{"openspec/changes/archive/2026-01-01-x/.keep": "x"})
		r.git(t, "mv", from, to)
		c := r.tick(t, []string{to}, "1.1")
		checkFails(t, r.gate(t, 1), to+" ticked_without_evidence")
		r.attest(t, c)
		checkRows(t, r.gate(t, 0), "success", to+":1.1 evidenced/")
	})
	t.Run("moved to a path the policy ignores", func(t *testing.T) {
		r, _ := moveOut(t, "docs/tasks-001-x.md", true)
		pol := filepath.Join(t.TempDir(), "policy.toml")
		vfWrite(t, pol, "version = 1\n\n[unit_paths]\nignore = [\"docs/**\"]\n")
		rep := r.gate(t, 0, "--policy", pol)
		if len(rep.failing()) != 0 || rep.Conclusion == "failure" {
			t.Errorf("the policy ignores docs/**, yet the gate fails: %q (%s)", rep.failing(), rep.Conclusion)
		}
	})
}
