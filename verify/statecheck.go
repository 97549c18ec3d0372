package verify

import (
	"github.com/taskproof/taskproof/tick"
)

// movedOpenTasks names the tasks open at base in the tasks files the range
// removed or moved (a base path head holds no tasks file at), keyed by
// movedOpenKey of their ID and title, and by their ID alone. A task ticked at
// head in another tasks file that matches one was open at base: born ticked
// or not, it is a tick that needs evidence, whatever the policy allows for
// born-ticked tasks (docs/format.md#born-ticked-tasks). Files that cannot be
// read as tasks files are left out (the state check reports head's).
func (v *Verifier) movedOpenTasks(baseFiles, headFiles []tick.TasksFileAt) map[string]bool {
	atHead := make(map[string]bool, len(headFiles))
	for _, f := range headFiles {
		atHead[f.Path] = true
	}
	out := map[string]bool{}
	for _, f := range baseFiles {
		if atHead[f.Path] || f.Irregular != "" {
			continue
		}
		tf, err := v.parseTasksCached(f.Unit, f.Content)
		if err != nil {
			continue
		}
		for _, t := range tf.Tasks {
			if !t.Ticked() {
				out[movedOpenKey(t.ID, t.Title)] = true
				out[movedOpenKey(t.ID, "")] = true
			}
		}
	}
	return out
}

// movedOpenKey is movedOpenTasks' key: a task ID and title, or the ID alone
// (title "") for a task whose line the caller cannot pair by title.
func movedOpenKey(id, title string) string { return id + "\x00" + title }

// movedOpen reports whether a born-ticked task t was open at base in a tasks
// file the range removed or moved (movedOpenTasks). The base's and head's
// tasks files are read once, at the first born-ticked task the policy allows.
func (g *gate) movedOpen(t tick.Tick) (bool, error) {
	if g.moved == nil {
		var baseFiles, headFiles []tick.TasksFileAt
		var err error
		if base := g.rep.Base; base != "" {
			if baseFiles, err = tick.TasksFiles(g.v.Repo, base, g.layouts); err != nil {
				return false, err
			}
		}
		if headFiles, err = tick.TasksFiles(g.v.Repo, g.head, g.layouts); err != nil {
			return false, err
		}
		g.moved = g.v.movedOpenTasks(baseFiles, headFiles)
	}
	title := t.Task.Title
	if t.Task.ID != t.TaskID {
		title = "" // an ambiguous tick's line: paired by its ID alone
	}
	return g.moved[movedOpenKey(t.TaskID, title)], nil
}
