package verify

import (
	"strings"
	"unicode"

	"github.com/taskproof/taskproof/tick"
)

// movedOpenTasks names the tasks open at base in the tasks files the range
// removed or moved (a base path head holds no tasks file at), keyed by their
// ID and, apart, by their title as movedTitleKey reads it. A task ticked at
// head in another tasks file that matches one by either was open at base
// (renumbering it or touching its title's punctuation does not hide it): born ticked
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
				out[movedIDKey(t.ID)] = true
				if k := movedTitleKey(t.Title); k != "" {
					out[k] = true
				}
			}
		}
	}
	return out
}

// movedIDKey is movedOpenTasks' key for a task ID.
func movedIDKey(id string) string { return "id\x00" + id }

// movedTitleKey is movedOpenTasks' key for a task title: its letters and
// digits, lower-cased ("" when it has none, which pairs nothing).
func movedTitleKey(title string) string {
	var b strings.Builder
	for _, r := range title {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "title\x00" + b.String()
}

// movedMatch reports whether a task with this ID and title (title "" for a
// line the caller cannot pair by title) matches a task of moved.
func movedMatch(moved map[string]bool, id, title string) bool {
	if moved[movedIDKey(id)] {
		return true
	}
	k := movedTitleKey(title)
	return k != "" && moved[k]
}

// rangeFiles are the tasks files at the range's base (none for base "") and
// head, and the tasks of base's files the range removed or moved
// (movedOpenTasks): read once per gate, by the first born-ticked task the
// policy allows or else by the state check.
type rangeFiles struct {
	base, head []tick.TasksFileAt
	moved      map[string]bool
}

// files reads g's rangeFiles on first use.
func (g *gate) files() (*rangeFiles, error) {
	if g.rangeFiles != nil {
		return g.rangeFiles, nil
	}
	rf := &rangeFiles{}
	var err error
	if base := g.rep.Base; base != "" {
		if rf.base, err = tick.TasksFiles(g.v.Repo, base, g.layouts); err != nil {
			return nil, err
		}
	}
	if rf.head, err = tick.TasksFiles(g.v.Repo, g.head, g.layouts); err != nil {
		return nil, err
	}
	rf.moved = g.v.movedOpenTasks(rf.base, rf.head)
	g.rangeFiles = rf
	return rf, nil
}

// movedOpen reports whether a born-ticked task t was open at base in a tasks
// file the range removed or moved (movedOpenTasks).
func (g *gate) movedOpen(t tick.Tick) (bool, error) {
	rf, err := g.files()
	if err != nil {
		return false, err
	}
	title := t.Task.Title
	if t.Task.ID != t.TaskID {
		title = "" // an ambiguous tick's line: paired by its ID alone
	}
	return movedMatch(rf.moved, t.TaskID, title), nil
}
