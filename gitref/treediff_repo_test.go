package gitref

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestDiffTrees compares DiffTrees with `git diff-tree -r -t` (the real git)
// on two commits that modify, add, delete, retype (file to directory) and
// chmod entries at several depths: the same changes, each directory visited
// after the entries under it.
func TestDiffTrees(t *testing.T) {
	dir := newRepo(t)
	a := commitFiles(t, dir, "a", map[string]string{
		"specs/001-a/tasks.md": "- [ ] T001 a\n", "specs/001-a/spec.md": "# A\n",
		"README": "r\n", "x/y/f": "f\n", "x/g": "g\n", "run.sh": "echo\n",
	})
	testenv.Git(t, dir, "rm", "-q", "x/g")
	testenv.Git(t, dir, "update-index", "--chmod=+x", "run.sh")
	b := commitFiles(t, dir, "b", map[string]string{
		"specs/001-a/tasks.md": "- [x] T001 a\n", "README": "", "x/g/h": "h\n", "x/z": "z\n", "specs/002-b/tasks.md": "- [ ] T001 b\n",
	})
	r := open(t, dir)
	ca, cb := mustCommit(t, r, a), mustCommit(t, r, b)
	var got, order []string
	err := r.DiffTrees(ca.Tree, cb.Tree, func(path string, ea, eb *TreeEntry) error {
		side := func(e *TreeEntry) string {
			if e == nil {
				return "-"
			}
			return fmt.Sprintf("%d:%s", e.Mode, e.ID())
		}
		got = append(got, path+" "+side(ea)+" "+side(eb))
		if (ea != nil && ea.Mode == Directory) || (eb != nil && eb.Mode == Directory) {
			path += "/" // a directory: after everything under it
		}
		order = append(order, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range order {
		for _, q := range order[i+1:] {
			if strings.HasSuffix(p, "/") && strings.HasPrefix(q, p) {
				t.Errorf("directory %s visited before %s under it", p, q)
			}
		}
	}
	mode := map[string]EntryMode{"100644": RegularFile, "100755": ExecutableFile, "040000": Directory, "120000": Symlink, "160000": Submodule}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(gitOut(t, dir, "diff-tree", "-r", "-t", "--no-abbrev", "--no-renames", string(a), string(b))), "\n") {
		meta, path, _ := strings.Cut(line, "\t")
		f := strings.Fields(strings.TrimPrefix(meta, ":"))
		side := func(m, id string) string {
			if m == "000000" {
				return "-"
			}
			return fmt.Sprintf("%d:%s", mode[m], id)
		}
		want = append(want, path+" "+side(f[0], f[2])+" "+side(f[1], f[3]))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("DiffTrees:\n%s\ngit diff-tree -r -t:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := r.DiffTrees(ca.Tree, ca.Tree, func(string, *TreeEntry, *TreeEntry) error { t.Error("visited equal trees"); return nil }); err != nil {
		t.Fatal(err)
	}
}

func mustCommit(t *testing.T, r *Repo, id Hash) *Commit {
	t.Helper()
	c, err := r.Commit(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
