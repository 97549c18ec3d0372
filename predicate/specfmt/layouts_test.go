package specfmt

import "testing"

// TestLayoutsClassify: the built-in layouts, policy layouts, ignored paths and
// tasks files of no layout (any case of "tasks.md") are told apart by the one
// function that resolves units; MayHoldUnits agrees with the same table.
func TestLayoutsClassify(t *testing.T) {
	l := &Layouts{
		Extra:  []Layout{{Format: OpenSpec, Tasks: "openspec/initiatives/**/tasks.md"}, {Format: Kiro, Tasks: "work/00?-*/tasks.md"}},
		Ignore: []string{"docs/**"},
	}
	for _, tc := range []struct {
		path string
		kind PathKind
		unit Unit
	}{
		{"specs/001-x/tasks.md", UnitTasksFile, Unit{Speckit, "001-x", "specs/001-x"}},
		{".specify/specs/001-x/tasks.md", UnitTasksFile, Unit{Speckit, "001-x", ".specify/specs/001-x"}},
		{"openspec/changes/add-x/tasks.md", UnitTasksFile, Unit{OpenSpec, "add-x", "openspec/changes/add-x"}},
		{"openspec/changes/archive/2026-01-01-add-x/tasks.md", UnitTasksFile, Unit{OpenSpec, "2026-01-01-add-x", "openspec/changes/archive/2026-01-01-add-x"}},
		{"openspec/changes/archive/tasks.md", UnrecognizedTasksFile, Unit{}},
		{".kiro/specs/auth/tasks.md", UnitTasksFile, Unit{Kiro, "auth", ".kiro/specs/auth"}},
		{"openspec/initiatives/x/tasks.md", UnitTasksFile, Unit{OpenSpec, "x", "openspec/initiatives/x"}},
		{"openspec/initiatives/a/b/tasks.md", UnitTasksFile, Unit{OpenSpec, "b", "openspec/initiatives/a/b"}},
		{"work/001-y/tasks.md", UnitTasksFile, Unit{Kiro, "001-y", "work/001-y"}},
		{"work/01-y/tasks.md", UnrecognizedTasksFile, Unit{}},
		{"docs/tasks.md", IgnoredTasksFile, Unit{}},
		{"docs/a/Tasks.MD", IgnoredTasksFile, Unit{}},
		{"specs/tasks.md", UnrecognizedTasksFile, Unit{}},
		{"specs/001-x/sub/tasks.md", UnrecognizedTasksFile, Unit{}},
		{"specs/001-x/TASKS.md", UnrecognizedTasksFile, Unit{}},
		{"tasks.md", UnrecognizedTasksFile, Unit{}},
		{"specs/001-x/spec.md", NotTasksFile, Unit{}},
	} {
		u, k := l.Classify(tc.path)
		if k != tc.kind || u != tc.unit {
			t.Errorf("Classify(%q) = %+v, %d; want %+v, %d", tc.path, u, k, tc.unit, tc.kind)
		}
	}
	if _, k := (*Layouts)(nil).Classify("openspec/initiatives/x/tasks.md"); k != UnrecognizedTasksFile {
		t.Errorf("without the policy layout: kind %d", k)
	}
	for dir, want := range map[string]bool{
		"": true, "specs": true, "specs/001-x": true, "specs/001-x/sub": false, ".specify": true, ".specify/specs": true,
		"openspec/changes/archive": true, "openspec/initiatives/a/b/c": true, "work/001-y": true, "work/01-y": false, "src": false,
	} {
		if got := l.MayHoldUnits(dir); got != want {
			t.Errorf("MayHoldUnits(%q) = %v, want %v", dir, got, want)
		}
	}
	for _, lay := range BuiltinLayouts() {
		if err := lay.Validate(); err != nil {
			t.Errorf("built-in layout %+v: %v", lay, err)
		}
	}
	if err := (Layout{Format: "x", Tasks: "a/tasks.md"}).Validate(); err == nil {
		t.Error("unknown format accepted")
	}
	if err := (Layout{Format: Kiro, Tasks: "a/b.md"}).Validate(); err == nil {
		t.Error("pattern not ending in /tasks.md accepted")
	}
}
