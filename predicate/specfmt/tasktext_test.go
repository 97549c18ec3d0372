package specfmt

import (
	"testing"
)

// TestTaskText: a task's text (Task.Text) is the lines that belong to it
// below its line, read as a list item holds them
// (docs/format.md#units-and-task-lines, "A task's text").
func TestTaskText(t *testing.T) {
	kiro := Unit{Format: Kiro, Dir: ".kiro/specs/feat", Feature: "feat"}
	speckit := Unit{Format: Speckit, Dir: "specs/001-x", Feature: "001-x"}
	for _, tt := range []struct {
		name  string
		unit  Unit
		file  string
		texts map[string]string
	}{
		{"indented continuation and lazy line", speckit,
			"## Phase 1\n\n- [ ] T001 Implement\n  the login\nhandler\n- [ ] T002 Next\n",
			map[string]string{"T001": "  the login\nhandler", "T002": ""}},
		{"after a blank line, indented under the item", speckit,
			"- [ ] T001 One\n\n  More about it.\n\nNot the task's.\n- [ ] T002 Two\n",
			map[string]string{"T001": "  More about it.", "T002": ""}},
		{"a heading ends it", speckit,
			"- [x] T001 One\n## Checkpoint\nFoundation ready\n",
			map[string]string{"T001": ""}},
		{"a sibling bullet without a box is no task's", speckit,
			"- [x] T001 One\n- a note\n  - its detail\n",
			map[string]string{"T001": ""}},
		{"sub-tasks have their own text; a parent's detail after them is the parent's", kiro,
			"- [ ] 1. Parent\n  - parent detail\n  - [ ] 1.1 Sub\n    - sub detail\n  - _Requirements: 1_\n    more of that bullet\n- [ ] 2. Next\n",
			map[string]string{"1": "  - parent detail\n  - _Requirements: 1_\n    more of that bullet", "1.1": "    - sub detail", "2": ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseTasks(tt.unit, []byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, x := range f.Tasks {
				got[x.ID] = x.Text
			}
			for id, want := range tt.texts {
				if got[id] != want {
					t.Errorf("%s: text %q, want %q", id, got[id], want)
				}
			}
			if len(got) != len(tt.texts) {
				t.Errorf("tasks %v, want %v", got, tt.texts)
			}
		})
	}
}
