package verify

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// TestHintedUnitsAtRoot checks what checkTask relies on to skip projectRoot's
// search: for every unit dir of the merge gate's task hints at a commit
// (batchHints), the search at that commit finds no nested project, so the
// root is "" with or without it. A repository root unit, a nested project's
// unit of another dir (its search runs and finds the project), the corpora.
func TestHintedUnitsAtRoot(t *testing.T) {
	f := newFixture(t)
	f.commit("nested project", map[string]string{
		nestedRoot + "/speccoder.toml": fxPolicy,
		nestedDir + "/tasks.md":        fxTasks,
	})
	f.tick("T001")
	nested := func(ids ...string) {
		p := nestedDir + "/tasks.md"
		s := f.read(p)
		for _, id := range ids {
			s = strings.Replace(s, "- [ ] "+id+" ", "- [x] "+id+" ", 1)
		}
		f.commit("nested "+strings.Join(ids, ", "), map[string]string{p: s})
	}
	nested("T002")
	f.tick("T003")
	nested("T003", "T004")
	checkHintedAtRoot(t, f, f.base, 4)

	for _, name := range []string{"speckit-youbencha", "openspec-agent-validator", "kiro-task-orchestrator-maxspec"} {
		t.Run(name, func(t *testing.T) {
			dir := testenv.CloneBundle(t, name)
			c := &fixture{t: t, dir: dir, trust: f.trust}
			checkHintedAtRoot(t, c, "", 1)
		})
	}
}

// The nested project of TestHintedUnitsAtRoot, and its unit's dir from the
// repository's root.
const (
	nestedRoot    = "tools/sub"
	nestedUnitDir = "specs/002-nested" // no unit of the repository's root
	nestedDir     = nestedRoot + "/" + nestedUnitDir
)

// checkHintedAtRoot runs TestHintedUnitsAtRoot's check over base..HEAD of
// f, which must hint at least minRoot commits (and, for the fixture, a commit
// ticking the nested project's unit alone).
func checkHintedAtRoot(t *testing.T, f *fixture, base gitref.Hash, minRoot int) {
	t.Helper()
	v := f.verifier()
	head := f.head()
	// The hints the gate hands the object check: each commit's ticks', as
	// the walk found them.
	hints := map[gitref.Hash]TaskHints{}
	units := map[taskHintKey]specfmt.Unit{}
	_, err := tick.Each(v.Repo, base, head, tick.Options{Layouts: v.PolicyOrDefault().Layouts()}, func(ts []tick.Tick, _ []tick.Move) error {
		for _, tk := range ts {
			units[taskHintKey{string(tk.Commit), tk.Unit.Dir}] = tk.Unit
			if hints[tk.Commit] == nil {
				hints[tk.Commit] = TaskHints{}
			}
			hints[tk.Commit].AddTick(tk)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	hinted, nestedSeen := 0, base == ""
	for c, h := range hints {
		if len(h) > 0 {
			hinted++
		}
		for k, task := range h {
			if !h.hasTask(k.dir, k.id) {
				t.Fatalf("%s: hasTask(%q, %q) false for a hint of that task", c, k.dir, k.id)
			}
			if !v.memo().RootHasUnit(v.Repo, c, k.dir+"/tasks.md") || !task.Ticked() {
				t.Fatalf("%s: hint of %s %s: no ticked task of a unit at the root", c, k.dir, k.id)
			}
			// What projectRoot's first step decides for a statement of the
			// hinted task, without the hint.
			u := units[taskHintKey{string(c), k.dir}]
			p := &predicate.Predicate{Unit: predicate.Unit{Format: string(u.Format), Feature: u.Feature, Dir: k.dir}, Task: predicate.TaskRef{ID: k.id}}
			if got := v.projectRoot(c, k.dir+"/tasks.md", v.hasTaskLine(c, p, predicate.LineHash(task.OpenLine()))); got != "" {
				t.Errorf("%s: %s %s hinted at the root, but projectRoot finds %q", c, k.dir, k.id, got)
			}
		}
		// A nested project's unit is hinted by its repository-relative dir,
		// never by the project-relative one its statements name: for those
		// the search runs, and finds the project.
		if hasDir(h, nestedDir) {
			if hasDir(h, nestedUnitDir) {
				t.Errorf("%s: a hint of %s for a hint of %s", c, nestedUnitDir, nestedDir)
			}
			if got := v.projectRoot(c, nestedUnitDir+"/tasks.md", nil); got != nestedRoot {
				t.Errorf("%s: projectRoot(%s) = %q, want %q", c, nestedUnitDir, got, nestedRoot)
			}
			nestedSeen = true
		}
	}
	if hinted < minRoot {
		t.Fatalf("%d commits hinted, want at least %d", hinted, minRoot)
	}
	if !nestedSeen {
		t.Fatal("no hint of the nested project's unit: the fixture does not cover it")
	}
}

// hasDir reports whether h hints a task of unit dir dir.
func hasDir(h TaskHints, dir string) bool {
	for k := range h {
		if k.dir == dir {
			return true
		}
	}
	return false
}
