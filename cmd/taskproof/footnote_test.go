package main

import (
	"strings"
	"testing"
)

// TestGateFootnoteTick: a task moved into a GFM footnote definition and
// ticked there is a tick: `ticks` lists it and the gate fails without
// evidence (docs/format.md#task-recognition-follows-goldmark).
func TestGateFootnoteTick(t *testing.T) {
	const path = "specs/001-face/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	moved := strings.Replace(gateTasks, "- [ ] T002 Write the test\n", "See [^t2].\n\n[^t2]: - [x] T002 Write the test\n", 1)
	moved += "\n[^1]:\n    - [x] T001 Create the skeleton\n"
	moved = strings.Replace(moved, "- [ ] T001 Create the skeleton\n", "", 1)
	r.commit(t, "into footnotes", map[string]string{path: moved})
	out, _ := r.run(t, 0, "ticks", "main..HEAD")
	for _, id := range []string{"T001", "T002"} {
		if !strings.Contains(out, id) {
			t.Errorf("ticks does not list %s:\n%s", id, out)
		}
	}
	rep := r.gate(t, 1)
	if rep.Conclusion != "failure" || !strings.Contains(rep.rows(), path+":T001 ") || !strings.Contains(rep.rows(), path+":T002 ") {
		t.Errorf("gate: %s (%s), want T001 and T002 failing", rep.rows(), rep.Conclusion)
	}
}

// TestGateCommonMark029HTMLBlocks: a "<textarea>" line (an HTML block to
// "</textarea>" for goldmark, CommonMark 0.30) or "<search>" (0.31) above
// ticked tasks hides them from goldmark, while GitHub (cmark-gfm, 0.29)
// renders them ticked: they are ticks, and without evidence the gate fails.
func TestGateCommonMark029HTMLBlocks(t *testing.T) {
	for _, tt := range []struct{ name, hide string }{
		{"textarea", "<textarea>\n\n"},
		{"search", "Next.\n<search>\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkHiddenTicks(t, func(tasks string) string {
				tasks = strings.Replace(tasks, "- [ ] T002", tt.hide+"- [x] T002", 1)
				return strings.Replace(tasks, "- [ ] T003", "- [x] T003", 1)
			})
		})
	}
}
