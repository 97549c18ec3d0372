package gitref

import (
	"fmt"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestPackfileReopened checks that objects read through pack readers that a
// handle opens again every few reads (packfileReads) are the objects read
// through readers it keeps.
func TestPackfileReopened(t *testing.T) {
	dir, ids := manyCommits(t, 40, nil)
	testenv.Git(t, dir, "repack", "-adq", "--depth=10")
	read := func() []string {
		r := open(t, dir)
		r.setObjectCacheSize(1 << 20)
		var out []string
		for _, id := range ids {
			c, err := r.Commit(id)
			if err != nil {
				t.Fatal(err)
			}
			b, err := r.File(id, "f.txt")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(c.Tree)+" "+string(b))
		}
		return out
	}
	want := read()
	saved := packfileReads
	packfileReads = 2
	defer func() { packfileReads = saved }()
	if got := read(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reopening the pack every 2 reads reads\n%v\nnot\n%v", got, want)
	}
}
