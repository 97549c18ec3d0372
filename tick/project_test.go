package tick

import (
	"testing"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// TestTicksNestedProjects: a tasks file at <root>/<layout path> is a unit
// when <root> holds speccoder.toml at the commit (the nearest such ancestor,
// at most MaxProjectDepth elements), named by its repository path with the
// project root alongside; without the file, deeper than the limit, or off the
// layouts under the nearest root, it stays an unrecognized tasks file.
func TestTicksNestedProjects(t *testing.T) {
	dir := newRepo(t)
	open1 := "- [ ] T001 One\n"
	files := map[string]string{
		"svc/a/speccoder.toml":           "[model]\n",
		"svc/a/specs/001-x/tasks.md":     open1,
		"svc/b/speccoder.toml":           "[model]\n",
		"svc/b/.kiro/specs/x/tasks.md":   open1,
		"svc/c/specs/001-x/tasks.md":     open1,       // no speccoder.toml
		"a/b/c/d/e/speccoder.toml":       "[model]\n", // five elements: too deep
		"a/b/c/d/e/specs/001-x/tasks.md": open1,
		"svc/a/sub/speccoder.toml":       "[model]\n", // the nearest root of its file
		"svc/a/sub/other/001-x/tasks.md": open1,
		"svc/a/sub/specs/001-y/tasks.md": open1,
		"specs/001-x/tasks.md":           open1, // the repository's own unit
	}
	commitFiles(t, dir, "plan", files)
	ticked := map[string]string{}
	for p, c := range files {
		if c == open1 {
			ticked[p] = "- [x] T001 One\n"
		}
	}
	c := commitFiles(t, dir, "tick", ticked)
	r := open(t, dir)
	ticks, err := OfCommit(r, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		path, root, dir string
		format          specfmt.Format
		unrecognized    bool
	}
	want := []rec{
		{"a/b/c/d/e/specs/001-x/tasks.md", "", "a/b/c/d/e/specs/001-x", specfmt.Speckit, true},
		{"specs/001-x/tasks.md", "", "specs/001-x", specfmt.Speckit, false},
		{"svc/a/specs/001-x/tasks.md", "svc/a", "svc/a/specs/001-x", specfmt.Speckit, false},
		{"svc/a/sub/other/001-x/tasks.md", "", "svc/a/sub/other/001-x", specfmt.Speckit, true},
		{"svc/a/sub/specs/001-y/tasks.md", "svc/a/sub", "svc/a/sub/specs/001-y", specfmt.Speckit, false},
		{"svc/b/.kiro/specs/x/tasks.md", "svc/b", "svc/b/.kiro/specs/x", specfmt.Kiro, false},
		{"svc/c/specs/001-x/tasks.md", "", "svc/c/specs/001-x", specfmt.Speckit, true},
	}
	if len(ticks) != len(want) {
		t.Fatalf("got %d ticks, want %d: %+v", len(ticks), len(want), ticks)
	}
	for i, w := range want {
		g := ticks[i]
		got := rec{g.Path, g.Root, g.Unit.Dir, g.Unit.Format, g.Unrecognized}
		if got != w || g.Kind != KindTick || (g.TaskID != "T001" && w.format != specfmt.Kiro) {
			t.Errorf("tick %d = %+v (%s %s), want %+v", i, got, g.Kind, g.TaskID, w)
		}
	}
	if u := ticks[2].ProjectUnit(); u.Dir != "specs/001-x" || u.Feature != "001-x" {
		t.Errorf("ProjectUnit = %+v, want dir specs/001-x", u)
	}
	// The state check's listing agrees with the walk.
	fs, err := TasksFiles(r, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]TasksFileAt{}
	for _, f := range fs {
		byPath[f.Path] = f
	}
	for _, w := range want {
		f := byPath[w.path]
		if f.Root != w.root || f.Unit.Dir != w.dir || f.Unrecognized != w.unrecognized {
			t.Errorf("TasksFiles %s = root %q dir %q unrecognized %v, want %+v", w.path, f.Root, f.Unit.Dir, f.Unrecognized, w)
		}
	}
}
