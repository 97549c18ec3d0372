package memo

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// TestTasksMemoBounded: ParseTasks returns what specfmt.ParseTasks
// parses, whether the file is found in the memo or parsed again after the
// memo was emptied, and the memo's estimate never passes TasksBytes.
func TestTasksMemoBounded(t *testing.T) {
	saved := TasksBytes
	defer func() { TasksBytes = saved }()
	unit := specfmt.Unit{Format: specfmt.Speckit, Feature: "001-x", Dir: "specs/001-x"}
	files := make([][]byte, 40)
	for i := range files {
		var b strings.Builder
		for j := range 20 + i {
			fmt.Fprintf(&b, "- [%s] T%03d task %d of file %d\n", map[bool]string{true: "x", false: " "}[j%3 == 0], j+1, j, i)
		}
		files[i] = []byte(b.String())
	}
	for _, budget := range []int{1, 16 << 10, 16 << 20} {
		TasksBytes = budget
		m := New()
		for round := range 3 {
			for i, content := range files {
				got, err := m.ParseTasks(unit, content)
				if err != nil {
					t.Fatal(err)
				}
				want, err := specfmt.ParseTasks(unit, content, specfmt.AllowDuplicateIDs())
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("budget %d, round %d, file %d: memo's parse differs from ParseTasks's", budget, round, i)
				}
				if m.tasksBytes > max(budget, TasksFileBytes(len(content), got)) {
					t.Fatalf("budget %d: memo holds %d bytes by estimate", budget, m.tasksBytes)
				}
			}
		}
		if n := len(m.tasks); budget == 16<<20 && n != len(files) {
			t.Errorf("budget %d: memo holds %d files, want all %d", budget, n, len(files))
		}
	}
}
