package gitref

import (
	"reflect"
	"testing"
)

// TestChangedPathsAndMergeBase: a branch's changed paths since its merge base
// with main, as `git diff --name-only --diff-filter=d` lists them.
func TestChangedPathsAndMergeBase(t *testing.T) {
	dir := newRepo(t)
	base := commitFiles(t, dir, "base", map[string]string{"a.go": "a", "old_test.go": "x", "gone.txt": "g", "d/keep.txt": "k"})
	gitOut(t, dir, "switch", "-q", "-c", "topic")
	commitFiles(t, dir, "one", map[string]string{"d/new_test.go": "n", "gone.txt": ""})
	gitOut(t, dir, "mv", "old_test.go", "renamed_test.go")
	head := commitFiles(t, dir, "two", map[string]string{"a.go": "a2"})
	gitOut(t, dir, "switch", "-q", "main")
	mainHead := commitFiles(t, dir, "main moves on", map[string]string{"m.txt": "m"})
	r := open(t, dir)
	mb, err := r.MergeBase(mainHead, head)
	if err != nil || mb != base {
		t.Fatalf("merge base %s, %v; want %s", mb, err, base)
	}
	got, err := r.ChangedPaths(mb, head, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.go", "d/new_test.go", "renamed_test.go"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed %q, want %q", got, want)
	}
	if git := gitOut(t, dir, "diff", "--name-only", "--diff-filter=d", string(mb), string(head)); git != "a.go\nd/new_test.go\nrenamed_test.go" {
		t.Errorf("git lists %q", git)
	}
	for _, tc := range []struct {
		a, b Hash
		want bool
	}{{base, head, true}, {head, head, true}, {head, base, false}, {mainHead, head, false}} {
		if got, err := r.IsAncestor(tc.a, tc.b); err != nil || got != tc.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", tc.a, tc.b, got, err, tc.want)
		}
	}
	all, err := r.ChangedPaths("", base, false)
	if err != nil || len(all) != 4 {
		t.Errorf("against the empty tree: %q, %v", all, err)
	}
}

// TestRefReach: commits a branch, a tag or a linked worktree's HEAD holds
// are reached, each named by the first root that reaches it; a commit only
// the reflog holds (amended away) is not.
func TestRefReach(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"f": "1"})
	c2 := commitFiles(t, dir, "two", map[string]string{"f": "2"})
	gitOut(t, dir, "commit", "-q", "--amend", "-m", "two, amended")
	gitOut(t, dir, "worktree", "add", "-q", "--detach", t.TempDir()+"/wt", string(c2))
	c3 := commitFiles(t, dir, "three", map[string]string{"f": "3"})
	gitOut(t, dir, "commit", "-q", "--amend", "-m", "three, amended")
	r := open(t, dir)
	rr, err := r.RefReach()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := rr.Ref(c1); got != "HEAD" {
		t.Errorf("Ref(c1) = %q, want HEAD", got)
	}
	if got, _ := rr.Ref(c2); got != "worktree wt HEAD" {
		t.Errorf("Ref(c2) = %q, want the worktree's HEAD", got)
	}
	if got, _ := rr.Ref(c3); got != "" {
		t.Errorf("Ref(c3, amended away) = %q, want none", got)
	}
}
