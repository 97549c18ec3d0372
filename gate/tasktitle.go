package gate

import (
	"github.com/taskproof/taskproof/tick"
)

// A task without a written ID has an ID derived from its title
// (h-af3edcd914ac, specfmt.DeriveID), which tells a reader nothing: every
// report names such a task by its subject name and its title
// (docs/format.md#naming-a-task). Titles come from the repository (or, in
// objects mode, from the statement), so the writers escape them as the rest.

// tickTitle is the title of t's task as the tick commit has it ("" when the
// parsed task is not the tick's: a repeated ID the walk could not pair).
func tickTitle(t tick.Tick) string {
	if t.Task.ID != t.TaskID {
		return ""
	}
	return t.Task.Title
}
