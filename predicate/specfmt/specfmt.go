// Package specfmt reads the task lists and spec documents of the three spec formats
// taskproof knows: GitHub spec-kit, OpenSpec and Kiro (SPEC §1, §4).
//
// It has no git in it: callers hand it file contents, or an fs.FS rooted at the
// repository root of one commit.
package specfmt

// Format is a spec format: "speckit", "openspec" or "kiro" (SPEC §1).
type Format string

// The spec formats.
const (
	Speckit  Format = "speckit"
	OpenSpec Format = "openspec"
	Kiro     Format = "kiro"
)

// Unit is a spec unit (SPEC §1): Feature is Dir's last path element; Dir is
// repository-relative with '/' separators and no trailing slash.
type Unit struct {
	Format  Format `json:"format"`
	Feature string `json:"feature"`
	Dir     string `json:"dir"`
}

// Task is one checkbox task line of a tasks file.
type Task struct {
	// ID is the task's ID: "T012" (spec-kit), "1.3" (OpenSpec, Kiro).
	ID string
	// LineNo is the 1-based line number in the file.
	LineNo int
	// Line is the line's bytes without its line ending ("\n", and a "\r" before it);
	// a UTF-8 BOM at the start of line 1 is not part of it.
	Line string
	// BoxCol is the byte offset in Line of the box's inner character.
	BoxCol int
	// Box is the box's inner character: ' ', 'x', 'X' or '-'.
	Box byte
	// Title is the text after the box, the ID and the [..] markers, trimmed (SPEC §4).
	Title string
	// Labels are the bracketed markers after the ID, without brackets: "P", "US1".
	Labels []string
	// Story is the spec-kit user story label ("US1"), "" when none.
	Story string
	// Requirements are Kiro's `_Requirements: 1.2, 3.4_` references, inherited from
	// the parent task when the task has none.
	Requirements []string
	// Group is the OpenSpec `## N. heading` text the task sits under, "" when none.
	Group string
	// Parent is the ID of the enclosing task (Kiro sub-tasks), "" when none.
	Parent string
}

// Open reports whether the task's box reads as open in its format: "[ ]", and for
// Kiro also "[-]" (in progress) (SPEC §1).
func (t Task) Open() bool { return t.Box == ' ' || t.Box == '-' }

// Ticked reports whether the box is "[x]" or "[X]".
func (t Task) Ticked() bool { return t.Box == 'x' || t.Box == 'X' }

// OpenLine is Line with the box's inner character replaced by a space: the bytes
// line_hash is computed over (SPEC §4).
func (t Task) OpenLine() string { return t.Line[:t.BoxCol] + " " + t.Line[t.BoxCol+1:] }

// TasksFile is a parsed tasks file.
type TasksFile struct {
	Unit  Unit
	Tasks []Task
}

// Find returns the task with the given ID.
func (f *TasksFile) Find(id string) (Task, bool) {
	for _, t := range f.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return Task{}, false
}

// SectionText is the spec section a task cites (SPEC §4 "spec"): Name is the
// predicate's spec.section ("US1", a requirement name, "1,3"); Text is the bytes
// section_hash is computed over.
type SectionText struct {
	Name string
	Text []byte
}
