package specfmt

import (
	"path"
	"strings"
)

// ProjectConfig is the file whose directory is a project root
// (docs/format.md#project-root).
const ProjectConfig = "speccoder.toml"

// ProjectUnit maps the repository path of a tasks file to its project root and
// unit (docs/format.md#project-root): root is the nearest ancestor directory of
// the file that holds speccoder.toml — hasConfig(dir) reports whether dir
// (repository-relative, "" for the repository's root) does — or "" when none
// does (the repository is the project); unit is [UnitForTasksPath] of the path
// relative to root, so its Dir is project-relative, as unit.dir is written. ok
// is false when the path is no unit's tasks file under its project root.
func ProjectUnit(repoPath string, hasConfig func(dir string) bool) (root string, unit Unit, ok bool) {
	for dir := path.Dir(repoPath); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if hasConfig(dir) {
			root = dir
			break
		}
	}
	unit, ok = UnitForTasksPath(strings.TrimPrefix(repoPath, ProjectPrefix(root)))
	return root, unit, ok
}

// ProjectPath is the repository path of rel, a project-relative path under
// project root ("" for the repository's root).
func ProjectPath(root, rel string) string { return ProjectPrefix(root) + rel }

// ProjectPrefix is root with a trailing '/', "" for the repository's root.
func ProjectPrefix(root string) string {
	if root == "" {
		return ""
	}
	return root + "/"
}
