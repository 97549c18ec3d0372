package specfmt

import "testing"

func TestProjectUnit(t *testing.T) {
	configs := map[string]bool{"svc/api": true, "web": true, "web/specs/002-x": true}
	has := func(dir string) bool { return configs[dir] }
	for _, tc := range []struct {
		path, root, dir string
		ok              bool
	}{
		{"specs/001-a/tasks.md", "", "specs/001-a", true},
		{"svc/api/specs/001-a/tasks.md", "svc/api", "specs/001-a", true},
		{"svc/api/.kiro/specs/login/tasks.md", "svc/api", ".kiro/specs/login", true},
		{"web/openspec/changes/add-x/tasks.md", "web", "openspec/changes/add-x", true},
		{"svc/other/specs/001-a/tasks.md", "", "", false},          // no project holds it: not a unit at the repository's root
		{"web/specs/002-x/tasks.md", "web/specs/002-x", "", false}, // the nearest config wins
	} {
		root, u, ok := ProjectUnit(tc.path, has)
		if root != tc.root || ok != tc.ok || (ok && u.Dir != tc.dir) {
			t.Errorf("ProjectUnit(%q) = %q, %+v, %v; want %q, %q, %v", tc.path, root, u, ok, tc.root, tc.dir, tc.ok)
		}
		if ok && ProjectPath(root, u.Dir+"/tasks.md") != tc.path {
			t.Errorf("ProjectPath(%q, %q) = %q", root, u.Dir, ProjectPath(root, u.Dir+"/tasks.md"))
		}
	}
}
