package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateBornTickedMovedFile: with a policy allowing born-ticked tasks under
// specs/legacy-*, a branch that removes a unit's tasks file in one commit and
// adds it, every box ticked, under an allowed path in a later commit does not
// pass: each task open at base is ticked_without_evidence. A born-ticked unit
// of tasks the base never had open stays allowed, and attesting the tick
// commit passes the gate (docs/format.md#born-ticked-tasks).
func TestGateBornTickedMovedFile(t *testing.T) {
	r := newGateRepo(t, map[string]string{"specs/001-face/tasks.md": gateTasks})
	pol := filepath.Join(t.TempDir(), "policy.toml")
	vfWrite(t, pol, "version = 1\n[born_ticked]\nallow = [\"specs/legacy-*/tasks.md\"]\n")
	ticked := strings.ReplaceAll(gateTasks, "- [ ] ", "- [x] ")
	other := "# Tasks\n\n## Phase 1\n\n- [x] T900 Imported and done\n"

	r.commit(t, "del", map[string]string{"specs/001-face/tasks.md": ""})
	c := r.commit(t, "re-add ticked", map[string]string{"specs/legacy-x/tasks.md": ticked, "specs/legacy-y/tasks.md": other})
	rep := r.gate(t, 1, "--policy", pol)
	checkRows(t, rep, "failure",
		"specs/legacy-x/tasks.md:T001 born_ticked/ticked_without_evidence",
		"specs/legacy-x/tasks.md:T002 born_ticked/ticked_without_evidence")

	// Honest use: the tick commit's evidence passes the gate.
	r.attest(t, c, "--task", "T001")
	r.attest(t, c, "--task", "T002")
	rep = r.gate(t, 0, "--policy", pol)
	if rep.Conclusion == "failure" {
		t.Errorf("attested: %s (%s)", rep.rows(), rep.Conclusion)
	}
}

// TestGateBornTickedMovedRenumbered: the re-added tasks of a removed file are
// paired by ID or by title (its letters and digits), so renumbering a task
// (T001 → T101, same title) or touching its title (a trailing ".") does not
// hide it behind the policy's born-ticked allowance.
func TestGateBornTickedMovedRenumbered(t *testing.T) {
	r := newGateRepo(t, map[string]string{"specs/001-face/tasks.md": gateTasks})
	pol := filepath.Join(t.TempDir(), "policy.toml")
	vfWrite(t, pol, "version = 1\n[born_ticked]\nallow = [\"specs/legacy-*/tasks.md\"]\n")
	readded := "# Tasks\n\n## Phase 1: Setup\n\n- [x] T101 Create the skeleton\n- [x] T002 Write the test.\n"

	r.commit(t, "del", map[string]string{"specs/001-face/tasks.md": ""})
	r.commit(t, "re-add ticked", map[string]string{"specs/legacy-x/tasks.md": readded})
	rep := r.gate(t, 1, "--policy", pol)
	checkRows(t, rep, "failure",
		"specs/legacy-x/tasks.md:T101 born_ticked/ticked_without_evidence",
		"specs/legacy-x/tasks.md:T002 born_ticked/ticked_without_evidence")
}

// TestGateBornTickedAddedBack: with born-ticked tasks allowed under specs/,
// a tasks file deleted and added back at its own path with a task ticked, or
// renamed away and back with the tick, is new in the commit that adds it
// back; the task was open at base there, so it needs evidence like any tick
// (not a born_ticked pass that leaves the gate neutral with exit 0).
func TestGateBornTickedAddedBack(t *testing.T) {
	const path = "specs/001-face/tasks.md"
	ticked := strings.Replace(gateTasks, "- [ ] T002", "- [x] T002", 1)
	for _, tt := range []struct {
		name  string
		steps []map[string]string
	}{
		{"deleted and added back", []map[string]string{{path: ""}, {path: ticked}}},
		{"renamed away and back", []map[string]string{{path: "", "specs/001-face/tasks.txt": gateTasks}, {"specs/001-face/tasks.txt": "", path: ticked}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{path: gateTasks})
			pol := filepath.Join(t.TempDir(), "policy.toml")
			vfWrite(t, pol, "version = 1\n[born_ticked]\nallow = [\"specs/**\"]\n")
			for i, files := range tt.steps {
				r.commit(t, fmt.Sprintf("step %d", i), files)
			}
			checkRows(t, r.gate(t, 1, "--policy", pol), "failure", path+":T002 born_ticked/ticked_without_evidence")
		})
	}
}
