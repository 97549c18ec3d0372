package gate

import (
	"strings"
	"unicode"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/fanout"
	"github.com/taskproof/taskproof/tick"
)

// movedOpenTasks names the tasks open at base in the tasks files the range
// removed or moved (a base path head holds no tasks file at), and apart those
// of the files head holds at the same path (movedPathScope), keyed by their
// ID and, apart, by their title as movedTitleKey reads it. A task ticked at
// head in another tasks file that matches one by either was open at base
// (renumbering it or touching its title's punctuation does not hide it): born ticked
// or not, it is a tick that needs evidence, whatever the policy allows for
// born-ticked tasks (docs/format.md#born-ticked-tasks). Files that cannot be
// read as tasks files are left out (the head check reports head's).
func (v *verifier) movedOpenTasks(baseFiles, headFiles []tick.TasksFileAt) map[string]bool {
	atHead := make(map[string]bool, len(headFiles))
	for _, f := range headFiles {
		atHead[f.Path] = true
	}
	out := map[string]bool{}
	for _, f := range baseFiles {
		if f.Irregular != "" {
			continue
		}
		// A file head holds at the same path pairs its own path's tasks only:
		// one deleted and added back, or moved away and back, is new in the
		// commit that adds it back, and its tasks open at base are no less open.
		scope := ""
		if atHead[f.Path] {
			scope = movedPathScope(f.Path)
		}
		tf, err := v.ParseTasksCached(f.Unit, f.Content)
		if err != nil {
			continue
		}
		for _, t := range tf.Tasks {
			if !t.Ticked() {
				out[scope+movedIDKey(t.ID)] = true
				if k := movedTitleKey(t.Title); k != "" {
					out[scope+k] = true
				}
			}
		}
	}
	return out
}

// movedPathScope prefixes movedOpenTasks' keys of a tasks file at path that
// head also holds.
func movedPathScope(path string) string { return "path\x00" + path + "\x00" }

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
// line the caller cannot pair by title), in the tasks file at path, matches a
// task of moved: one of a file the range removed or moved, or one of a file
// at the same path.
func movedMatch(moved map[string]bool, path, id, title string) bool {
	k := movedTitleKey(title)
	for _, scope := range []string{"", movedPathScope(path)} {
		if moved[scope+movedIDKey(id)] || k != "" && moved[scope+k] {
			return true
		}
	}
	return false
}

// rangeFiles are the tasks files at the range's base (none for base "") and
// head, and the tasks of base's files the range removed or moved
// (movedOpenTasks): read once per gate, by traceHead (head's lines and the
// base's hold on them; model: Origins and Requirements) and the head check (headFiles).
//
// unchanged marks, per head file, one base has as it is: at the same path,
// regular at both, with the same blob, unit, project root and recognition.
// When no commit of the range touches its path (lineage.History.Touched),
// every task such a file has checked comes from the base, which holds it,
// so it is only checked to be readable as a tasks file (specfmt.CheckTasks).
// Base's twin of an unchanged file is not read: it shares head's content.
// Every other file is read, so every blob the full reading reads is read or
// is the blob of one read.
type rangeFiles struct {
	base, head []tick.TasksFileAt
	unchanged  []bool // per head file; all false when every file was parsed
	moved      map[string]bool
}

// files reads g's rangeFiles on first use.
func (g *gate) files() (*rangeFiles, error) {
	if g.rangeFiles != nil {
		return g.rangeFiles, nil
	}
	rf, err := g.changedFiles()
	if err != nil || g.v.GateTuning().EveryTasksFile {
		// A read failed: the reading of every file, in its order, names the
		// same failure as before (the first it meets); the test hook reads
		// every file too.
		rf, err = g.everyFile()
	}
	if err != nil {
		return nil, err
	}
	rf.moved = g.v.movedOpenTasks(rf.base, rf.head)
	g.rangeFiles = rf
	return rf, nil
}

// everyFile reads every tasks file at base and head, none marked unchanged.
func (g *gate) everyFile() (*rangeFiles, error) {
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
	rf.unchanged = make([]bool, len(rf.head))
	return rf, nil
}

// changedFiles lists the tasks files at base and head and reads them but for
// base's twins of the files head has unchanged (rangeFiles).
func (g *gate) changedFiles() (*rangeFiles, error) {
	rf := &rangeFiles{}
	var err error
	base := g.rep.Base
	if base != "" {
		if rf.base, err = tick.ListTasksFiles(g.v.Repo, base, g.layouts); err != nil {
			return nil, err
		}
	}
	if rf.head, err = tick.ListTasksFiles(g.v.Repo, g.head, g.layouts); err != nil {
		return nil, err
	}
	atBase := make(map[string]int, len(rf.base))
	for i, f := range rf.base {
		atBase[f.Path] = i
	}
	twin := make([]int, len(rf.base)) // base file → its unchanged head file, or -1
	for i := range twin {
		twin[i] = -1
	}
	rf.unchanged = make([]bool, len(rf.head))
	for j, h := range rf.head {
		if i, ok := atBase[h.Path]; ok && sameTasksFile(rf.base[i], h) {
			rf.unchanged[j], twin[i] = true, j
		}
	}
	type read struct {
		commit gitref.Hash
		f      *tick.TasksFileAt
	}
	var reads []read
	for i := range rf.base {
		if twin[i] < 0 {
			reads = append(reads, read{base, &rf.base[i]})
		}
	}
	for j := range rf.head {
		reads = append(reads, read{g.head, &rf.head[j]})
	}
	// Independent reads (most of them delta chains to rebuild), on every
	// core; which failed first does not matter (files rereads).
	if err := fanout.Each(len(reads), 0, func(k int) error {
		return tick.ReadTasksFile(g.v.Repo, reads[k].commit, reads[k].f)
	}); err != nil {
		return nil, err
	}
	for i, j := range twin {
		if j >= 0 {
			rf.base[i].Content = rf.head[j].Content
		}
	}
	return rf, nil
}

// sameTasksFile reports whether base's file b is head's file h as it is
// (rangeFiles.unchanged), their paths being equal.
func sameTasksFile(b, h tick.TasksFileAt) bool {
	return b.Irregular == "" && h.Irregular == "" && b.Blob == h.Blob && b.Unit == h.Unit &&
		b.Root == h.Root && b.Unrecognized == h.Unrecognized
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
	return movedMatch(rf.moved, t.Path, t.TaskID, title), nil
}
