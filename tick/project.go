package tick

import (
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// MaxProjectDepth is how many path elements a nested project root may have
// (docs/format.md#project-root): the walk and the verifier's search for a
// statement's project agree on it.
const MaxProjectDepth = specfmt.MaxProjectDepth

// projectCache remembers which directories of a tree hold speccoder.toml.
type projectCache map[[2]string]bool

// projectTasksFile is tf, a tasks file no layout claims at the repository's
// root, as a nested project's unit when it has one
// (docs/format.md#project-root): the nearest ancestor directory P of path
// (at most MaxProjectDepth elements) that holds speccoder.toml in tree root,
// and a layout that claims path relative to P. The unit's Dir is then the
// repository path P/<dir> (so that two projects' units never share a key) and
// root is P; the predicate's unit.dir is Dir relative to root. Otherwise tf is
// returned unchanged (still unrecognized).
func projectTasksFile(r *gitref.Repo, l *specfmt.Layouts, root gitref.Hash, path string, tf tasksFile, cache projectCache) tasksFile {
	if root.IsZero() {
		return tf
	}
	for dir := parentDir(path); dir != ""; dir = parentDir(dir) {
		if !holdsProjectConfig(r, root, dir, cache) {
			continue
		}
		if strings.Count(dir, "/")+1 > MaxProjectDepth {
			return tf
		}
		u, kind := l.Classify(strings.TrimPrefix(path, dir+"/"))
		if kind != specfmt.UnitTasksFile {
			return tf
		}
		u.Dir = specfmt.ProjectPath(dir, u.Dir)
		return tasksFile{path: path, unit: u, root: dir}
	}
	return tf
}

// parentDir is path's directory, "" at the repository's root.
func parentDir(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return ""
}

// holdsProjectConfig reports whether directory dir of tree root holds an
// entry named speccoder.toml. A tree that cannot be read holds none.
func holdsProjectConfig(r *gitref.Repo, root gitref.Hash, dir string, cache projectCache) bool {
	k := [2]string{string(root), dir}
	if v, ok := cache[k]; ok {
		return v
	}
	found := false
	t, err := r.TreeEntries(root)
	for _, name := range strings.Split(dir, "/") {
		if err != nil {
			break
		}
		var next gitref.Hash
		for _, e := range t {
			if e.Name == name && e.Mode == gitref.Directory {
				next = e.ID()
				break
			}
		}
		if next.IsZero() {
			t = nil
			break
		}
		t, err = r.TreeEntries(next)
	}
	if err == nil && t != nil {
		for _, e := range t {
			if e.Name == specfmt.ProjectConfig {
				found = true
				break
			}
		}
	}
	cache[k] = found
	return found
}

// ProjectUnit is t's unit as its project names it (predicate unit.dir):
// Unit with Dir relative to Root.
func (t Tick) ProjectUnit() specfmt.Unit {
	u := t.Unit
	u.Dir = strings.TrimPrefix(u.Dir, specfmt.ProjectPrefix(t.Root))
	return u
}
