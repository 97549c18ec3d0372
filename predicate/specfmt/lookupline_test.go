package specfmt

import (
	"errors"
	"strings"
	"testing"
)

// TestLookupLine: a task line is found by its ID and its line_hash
// (docs/format.md#hash-recipes, the line read as open), whether the file
// repeats the ID or not; no line with that hash is ErrTaskNotFound; two lines
// that read the same are ErrDuplicateTask naming them. The hashes are sha256sum
// of the open lines (printf '%s' LINE).
func TestLookupLine(t *testing.T) {
	const (
		one   = "1443f1a0cde67fe5e48b62e4e08bd6987661ca01da9c20e3a99589738bdbff7d" // "- [ ] 5.3 One"
		two   = "e0afc275f9f72c3ed73574c30c0d078d7a532c0cf49064da3e15d52f1fd8be01" // "- [ ] 5.3 Two"
		other = "239755ccc5be3755dfe358e8617a1c955ceab4b22a67106fa162d15529b571c0" // "- [ ] 5.4 Other"
		inset = "a5d8665b56ee2c3656554b9b3ee8e9b3b7ac8c053af60b08df8122c1b4cbb660" // "  - [ ] 5.4 Other"
	)
	// 5.3 "Two" is repeated once; 5.3 "One" twice, ticked and open (one line
	// read as open); 5.4 is unique.
	content := "## 5. Tests\r\n- [x] 5.3 One\r\n- [ ] 5.4 Other\r\n### More\r\n- [X] 5.3 Two\r\n- [ ] 5.3 One\r\n"
	f, err := ParseTasks(osUnit, []byte(content), AllowDuplicateIDs())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, hash string
		line     int   // the task's line when found
		kind     error // the error kind otherwise
		msg      string
	}{
		{id: "5.3", hash: two, line: 5},
		{id: "5.4", hash: other, line: 3},
		{id: "5.3", hash: one, kind: ErrDuplicateTask, msg: `duplicate task id "5.3" on lines 2 and 6`},
		{id: "5.4", hash: inset, kind: ErrTaskNotFound, msg: `no line of task "5.4" in the tasks file has line_hash ` + inset},
		{id: "5.3", hash: other, kind: ErrTaskNotFound, msg: `no line of task "5.3"`},
		{id: "5.5", hash: other, kind: ErrTaskNotFound, msg: `no line of task "5.5"`},
		{id: "5.3", hash: "", kind: ErrTaskNotFound, msg: `no task "5.3"`},
	}
	for _, tt := range tests {
		tk, err := f.LookupLine(tt.id, tt.hash)
		if tt.kind == nil {
			if err != nil || tk.LineNo != tt.line || tk.ID != tt.id {
				t.Errorf("LookupLine(%q, %.8s) = %s@%d, %v; want line %d", tt.id, tt.hash, tk.ID, tk.LineNo, err, tt.line)
			}
			continue
		}
		if !errors.Is(err, tt.kind) || tk.LineNo != 0 || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("LookupLine(%q, %.8s) = line %d, %v; want %v saying %q", tt.id, tt.hash, tk.LineNo, err, tt.kind, tt.msg)
		}
	}
	// Lookup by ID alone still refuses the repeated ID.
	if _, err := f.Lookup("5.3"); !errors.Is(err, ErrDuplicateTask) {
		t.Errorf("Lookup(5.3) = %v, want ErrDuplicateTask", err)
	}
}
