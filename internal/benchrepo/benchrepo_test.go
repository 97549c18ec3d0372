package benchrepo

import "testing"

// TestOpenTasksFile checks that ticking openTasksFile's boxes in order gives
// TasksFile's text at every step, as NewHistory relies on.
func TestOpenTasksFile(t *testing.T) {
	const u, tasks = 7, 120
	file, boxes := openTasksFile(u, tasks)
	if len(boxes) != tasks {
		t.Fatalf("%d boxes, want %d", len(boxes), tasks)
	}
	for i := 1; i <= tasks; i++ {
		file[boxes[i-1]] = 'x'
		if got, want := string(file), TasksFile(u, tasks, i); got != want {
			t.Fatalf("after ticking %d tasks:\n%s\nwant\n%s", i, got, want)
		}
	}
}
