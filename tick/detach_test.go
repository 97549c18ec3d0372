package tick

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// TestDetachTask: the detached task reads as the parsed one, and each of its
// strings is a copy (the parse's strings share the file's content).
func TestDetachTask(t *testing.T) {
	for _, s := range reparseSeeds {
		content := []byte(s.content)
		f, err := specfmt.ParseTasks(s.unit, content, specfmt.AllowDuplicateIDs())
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range f.Tasks {
			d := detachTask(task)
			if !reflect.DeepEqual(d, task) {
				t.Fatalf("detachTask(%+v) = %+v", task, d)
			}
			pairs := [][2]string{{d.ID, task.ID}, {d.Line, task.Line}, {d.Title, task.Title}, {d.Story, task.Story}, {d.Group, task.Group}, {d.Parent, task.Parent}}
			for i := range d.Labels {
				pairs = append(pairs, [2]string{d.Labels[i], task.Labels[i]})
			}
			for i := range d.Requirements {
				pairs = append(pairs, [2]string{d.Requirements[i], task.Requirements[i]})
			}
			for _, p := range pairs {
				if p[0] != "" && unsafe.StringData(p[0]) == unsafe.StringData(p[1]) {
					t.Errorf("%s: %q is the parse's own string, not a copy", s.unit.Dir, p[0])
				}
			}
		}
	}
}
