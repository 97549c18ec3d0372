package specfmt

import (
	"slices"
	"strings"
	"testing"
)

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
		{"_bmad-output/implementation-artifacts/1-2-user-login.md", UnitTasksFile, Unit{BMAD, "1-2-user-login", "_bmad-output/implementation-artifacts/1-2-user-login"}},
		{"docs/sprint-artifacts/10-12-x.md", UnitTasksFile, Unit{BMAD, "10-12-x", "docs/sprint-artifacts/10-12-x"}},
		{"docs/stories/1.2.user-login.md", UnitTasksFile, Unit{BMAD, "1.2.user-login", "docs/stories/1.2.user-login"}},
		{"docs/stories/1-2-user-login.md", NotTasksFile, Unit{}},
		{"docs/sprint-artifacts/sprint-status.md", NotTasksFile, Unit{}},
		{"docs/sprint-artifacts/1-2-.md", NotTasksFile, Unit{}},
		{"docs/sprint-artifacts/1a-2-x.md", NotTasksFile, Unit{}},
		{"svc/docs/sprint-artifacts/1-2-x.md", IgnoredTasksFile, Unit{}},
		{"agent-os/specs/2025-09-06-x/tasks.md", UnitTasksFile, Unit{AgentOS, "2025-09-06-x", "agent-os/specs/2025-09-06-x"}},
		{".agent-os/specs/2025-09-06-x/tasks.md", UnitTasksFile, Unit{AgentOS, "2025-09-06-x", ".agent-os/specs/2025-09-06-x"}},
		{".agent-os/recaps/2025-09-06-x/tasks.md", UnitTasksFile, Unit{AgentOS, "2025-09-06-x", ".agent-os/recaps/2025-09-06-x"}},
		{".agent-os/specs/2025-09-06-x/sub-specs/tasks.md", UnrecognizedTasksFile, Unit{}},
		{".spec-workflow/specs/ui/tasks.md", UnitTasksFile, Unit{SpecWorkflow, "ui", ".spec-workflow/specs/ui"}},
		{".spec-workflow/archive/specs/ui/tasks.md", UnitTasksFile, Unit{SpecWorkflow, "ui", ".spec-workflow/archive/specs/ui"}},
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
	if err := (Layout{Format: BMAD, Tasks: "stories/*/tasks.md"}).Validate(); err == nil {
		t.Error("a BMAD pattern naming tasks.md accepted")
	}
	if err := (Layout{Format: BMAD, Tasks: "work/stories/*.md"}).Validate(); err != nil {
		t.Errorf("a BMAD story pattern: %v", err)
	}
	story := &Layouts{Extra: []Layout{{Format: BMAD, Tasks: "work/stories/*.md"}}}
	if u, k := story.Classify("work/stories/login.md"); k != UnitTasksFile || u != (Unit{BMAD, "login", "work/stories/login"}) || u.TasksPath() != "work/stories/login.md" {
		t.Errorf("policy story layout: %+v %d", u, k)
	}
	for _, tc := range []struct {
		u  Unit
		ok bool
	}{
		{Unit{Kiro, "auth", ".kiro/specs/auth"}, true},
		{Unit{CCSDD, "auth", ".kiro/specs/auth"}, true},
		{Unit{Speckit, "auth", ".kiro/specs/auth"}, false},
		{Unit{BMAD, "1-2-x", "docs/sprint-artifacts/1-2-x"}, true},
		{Unit{BMAD, "x", "docs/sprint-artifacts/1-2-x"}, false},
		{Unit{"other", "auth", ".kiro/specs/auth"}, false},
	} {
		if _, ok := l.Resolve(tc.u); ok != tc.ok {
			t.Errorf("Resolve(%+v) = %v, want %v", tc.u, ok, tc.ok)
		}
	}
}

// TestLayoutsPrefilter ties the walk's pre-filter to the layout table: for
// every built-in and policy layout, a path its pattern matches is a unit's
// tasks file (Classify), and every directory on that path may hold units
// (MayHoldUnits), so that a layout added to the table is seen by both.
func TestLayoutsPrefilter(t *testing.T) {
	l := &Layouts{Extra: []Layout{
		{Format: OpenSpec, Tasks: "openspec/initiatives/**/tasks.md"},
		{Format: Kiro, Tasks: "work/00?-*/tasks.md"},
		{Format: Speckit, Tasks: "plans/[a-c]*/tasks.md"},
	}}
	layouts := append(BuiltinLayouts(), l.Extra...)
	if len(layouts) != len(builtinLayouts)+len(l.Extra) {
		t.Fatal("BuiltinLayouts is not the table")
	}
	for _, lay := range layouts {
		path := instance(lay.Tasks)
		u, k := l.Classify(path)
		if k != UnitTasksFile || u.Format != lay.Format {
			t.Errorf("layout %q: Classify(%q) = %+v, %d; want a %s unit", lay.Tasks, path, u, k, lay.Format)
		}
		isBuiltin := slices.ContainsFunc(builtinLayouts, func(b Layout) bool { return b.Format == lay.Format && b.Tasks == lay.Tasks })
		if _, builtin := UnitForTasksPath(path); builtin != isBuiltin {
			t.Errorf("layout %q: UnitForTasksPath(%q) = %v", lay.Tasks, path, builtin)
		}
		dir := ""
		for {
			if !l.MayHoldUnits(dir) {
				t.Errorf("layout %q: MayHoldUnits(%q) = false on the path %q", lay.Tasks, dir, path)
			}
			rest := strings.TrimPrefix(path, dir)
			rest = strings.TrimPrefix(rest, "/")
			el, _, more := strings.Cut(rest, "/")
			if !more {
				break
			}
			dir = strings.TrimPrefix(dir+"/"+el, "/")
		}
	}
}

// instance is a path that pattern (Layout.Tasks) matches: "**" as two
// elements, "*" as "x", "?" as "1", a class as its first character; a
// story file "*.md" as a story key.
func instance(pattern string) string {
	if strings.HasSuffix(pattern, "stories/*.md") {
		return instance(strings.TrimSuffix(pattern, "*.md")) + "1.2.x.md"
	}
	if strings.HasSuffix(pattern, "/*.md") {
		return instance(strings.TrimSuffix(pattern, "*.md")) + "1-2-x.md"
	}
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString("a/b")
			i++
		case c == '*':
			b.WriteByte('x')
		case c == '?':
			b.WriteByte('1')
		case c == '[':
			j := strings.IndexByte(pattern[i:], ']')
			b.WriteByte(pattern[i+1])
			i += j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
