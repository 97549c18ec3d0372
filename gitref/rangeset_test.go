package gitref

import (
	"slices"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestInRange: the commits of base..head among those asked, base excluded with
// its history, head included; with no base, all of head's history; a commit on
// another branch is in neither.
func TestInRange(t *testing.T) {
	dir := newRepo(t)
	root := commitFiles(t, dir, "root", map[string]string{"a": "1\n"})
	base := commitFiles(t, dir, "base", map[string]string{"a": "2\n"})
	c1 := commitFiles(t, dir, "c1", map[string]string{"a": "3\n"})
	head := commitFiles(t, dir, "head", map[string]string{"a": "4\n"})
	testenv.Git(t, dir, "checkout", "-q", "-b", "side", string(base))
	side := commitFiles(t, dir, "side", map[string]string{"b": "1\n"})
	r := open(t, dir)
	got, err := r.InRange(base, head, root, base, c1, head, side)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Hash{c1, head}; !slices.Equal(got, want) {
		t.Errorf("InRange(base, head) = %v, want %v", got, want)
	}
	got, err = r.InRange("", head, root, base, c1, head, side)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Hash{root, base, c1, head}; !slices.Equal(got, want) {
		t.Errorf("InRange(\"\", head) = %v, want %v", got, want)
	}
}
