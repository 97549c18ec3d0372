package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGateMoveAttestedOverUnitPath: at the base, specs/001-x and specs/002-y
// both have T001 open. The branch ticks and attests 001-x's T001, deletes
// 002-y's tasks file, and in a later commit moves 001-x's file onto 002-y's
// path: at head 002-y/T001 is checked with a tick of another unit
// (docs/format.md#the-gates-model, step 4). It fails, as the delete and the
// move in one commit do; the attested tick where it was made passes.
func TestGateMoveAttestedOverUnitPath(t *testing.T) {
	const a, b = "specs/001-x/tasks.md", "specs/002-y/tasks.md"
	for _, split := range []bool{true, false} {
		name := "one commit"
		if split {
			name = "two commits"
		}
		t.Run(name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{a: gateTasks, b: gateTasks,
				"specs/001-x/spec.md": "# Logging\n", "specs/002-y/spec.md": "# Payments\n"})
			c := r.tick(t, []string{a}, "T001")
			r.attest(t, c, "--task", "T001")
			// Honest: the tick where it was made passes.
			checkRows(t, r.gate(t, 0), "success", a+":T001 evidenced/")
			if split {
				r.commit(t, "drop 002-y's tasks", map[string]string{b: ""})
			} else if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(b))); err != nil {
				t.Fatal(err)
			}
			r.git(t, "mv", a, b)
			r.git(t, "commit", "-q", "-m", "001-x's tasks replace 002-y's")
			rep := r.gate(t, 1)
			checkFails(t, rep, b+" ticked_without_evidence")
			if split {
				for _, tk := range rep.Ticks {
					if tk.Path == b && !strings.Contains(tk.Message, "ticked in another tasks file") {
						t.Errorf("message: %s", tk.Message)
					}
				}
			}
		})
	}
}
