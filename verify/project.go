package verify

import (
	"errors"
	"io/fs"
	"path"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// maxProjectSearch bounds the directories projectRoot reads looking for a
// nested project (docs/format.md#project-root); maxProjectDepth how deep.
const (
	maxProjectSearch = 4096
	maxProjectDepth  = 4
)

// projectRoot returns the project root at commit c of the unit whose
// project-relative dir is dir (docs/format.md#project-root): "" when
// dir/tasks.md is at the repository's root (the usual single-project
// repository), else the one directory P, at most maxProjectDepth levels deep,
// whose P/dir/tasks.md has P as its nearest project root
// (specfmt.ProjectUnit). When no such directory is found, or several are (two
// projects with one unit dir), it returns "" and the checks read the
// repository's root, so they fail as for a missing unit — unless the statement's
// task line tells them apart (want: the task line's line hash), which picks
// the one project whose tasks file has the statement's line.
func (v *Verifier) projectRoot(c gitref.Hash, dir string, match func(root string) bool) string {
	fsys, err := v.Repo.FS(c)
	if err != nil {
		return ""
	}
	exists := func(p string) bool {
		_, err := fs.Stat(fsys, p)
		return err == nil
	}
	if exists(dir + "/tasks.md") {
		return ""
	}
	var found []string
	queue := []string{"."}
	visited := 0
	for depth := 0; depth < maxProjectDepth && len(queue) > 0 && visited < maxProjectSearch; depth++ {
		var next []string
		for _, d := range queue {
			if visited++; visited > maxProjectSearch {
				break
			}
			entries, err := fs.ReadDir(fsys, d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				p := path.Join(d, e.Name())
				next = append(next, p)
				if !exists(p+"/"+specfmt.ProjectConfig) || !exists(p+"/"+dir+"/tasks.md") {
					continue
				}
				root, _, ok := specfmt.ProjectUnit(p+"/"+dir+"/tasks.md", func(x string) bool { return exists(x + "/" + specfmt.ProjectConfig) })
				if ok && root == p {
					found = append(found, p)
				}
			}
		}
		queue = next
	}
	switch {
	case len(found) == 1:
		return found[0]
	case len(found) > 1 && match != nil:
		var hit []string
		for _, r := range found {
			if match(r) {
				hit = append(hit, r)
			}
		}
		if len(hit) == 1 {
			return hit[0]
		}
	}
	return ""
}

// subFS is fsys rooted at a project root ("" for the repository's root).
func subFS(fsys fs.FS, root string) (fs.FS, error) {
	if root == "" {
		return fsys, nil
	}
	sub, err := fs.Sub(fsys, root)
	if err != nil {
		return nil, errors.Join(err, fs.ErrNotExist)
	}
	return sub, nil
}
