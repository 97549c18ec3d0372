package main

import (
	"strings"
	"testing"
)

// TestGateTaskTextEditedAfterTick: a task's text is its line and the lines
// below it that belong to it — a continuation line, a sub-bullet, a
// spec-workflow-mcp task's File:, description and _Prompt: bullets — not only
// its first line (docs/format.md#units-and-task-lines, "A task's text"). A
// tick attested and its text rewritten in a later commit fails as
// edited_after_tick; the attested tick alone passes, and so does an edit of
// another, open task's text.
func TestGateTaskTextEditedAfterTick(t *testing.T) {
	const speckit = "specs/001-x/tasks.md"
	const workflow = ".spec-workflow/specs/feat/tasks.md"
	for _, tt := range []struct {
		name, path, tasks, id string
		from, to              string
	}{
		{"continuation line", speckit,
			"# Tasks\n\n## Phase 1\n\n- [ ] T009 Implement\n  the login handler\n- [ ] T010 Other\n", "T009",
			"  the login handler", "  the whole auth system and billing"},
		{"lazy continuation line", speckit,
			"# Tasks\n\n## Phase 1\n\n- [ ] T009 Implement\nthe login handler\n- [ ] T010 Other\n", "T009",
			"\nthe login handler", "\nthe whole auth system and billing"},
		{"sub-bullet added", speckit,
			"# Tasks\n\n## Phase 1\n\n- [ ] T009 Implement the login handler\n- [ ] T010 Other\n", "T009",
			"login handler\n", "login handler\n  - billing too\n"},
		{"detail bullets", workflow,
			"# Tasks\n\n- [ ] 1. Add request logging\n  - File: src/log.ts\n  - Log method and path of each request\n  - _Prompt: Role: dev | Task: add a log line_\n- [ ] 2. Other\n  - File: src/other.ts\n", "1",
			"  - File: src/log.ts\n  - Log method and path of each request\n  - _Prompt: Role: dev | Task: add a log line_",
			"  - File: src/log.ts, src/billing.ts\n  - Log each request, rewrite billing and auth\n  - _Prompt: Role: dev | Task: rewrite billing and auth_"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{tt.path: tt.tasks})
			written := tt.id
			if tt.path == workflow {
				written += "." // spec-workflow-mcp writes "1."
			}
			c := r.tick(t, []string{tt.path}, written)
			r.attest(t, c, "--task", tt.id)
			checkRows(t, r.gate(t, 0), "success", tt.path+":"+tt.id+" evidenced/")

			// Honest: another task's text changes; the ticked one is untouched.
			other := strings.Replace(tt.tasks, "- [ ] "+written+" ", "- [x] "+written+" ", 1)
			if strings.Contains(other, "  - File: src/other.ts") {
				other = strings.Replace(other, "  - File: src/other.ts", "  - File: src/other.ts, src/more.ts", 1)
			} else {
				other = strings.Replace(other, "- [ ] T010 Other\n", "- [ ] T010 Other\n  - details to come\n", 1)
			}
			r.commit(t, "detail another task", map[string]string{tt.path: other})
			checkRows(t, r.gate(t, 0), "success", tt.path+":"+tt.id+" evidenced/")

			edited := strings.Replace(other, tt.from, tt.to, 1)
			if edited == other {
				t.Fatalf("the edit %q changes nothing", tt.from)
			}
			r.commit(t, "widen the task", map[string]string{tt.path: edited})
			rep := r.gate(t, 1)
			checkFails(t, rep, tt.path+" edited_after_tick")
		})
	}
}
