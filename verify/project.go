package verify

import (
	"errors"
	"io/fs"
	"path"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// maxProjectSearch bounds the directories projectRoot reads looking for a
// nested project (docs/format.md#project-root); maxProjectDepth how deep.
const (
	maxProjectSearch = 4096
	maxProjectDepth  = tick.MaxProjectDepth
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
	found := v.projectCandidates(c, dir)
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

// projectCandidates is projectRoot's search at commit c for unit dir dir,
// through the Verifier's memos (a commit's statements, and a statement's
// line hashes, ask for the same commit and dir): nil when dir/tasks.md is at
// the repository's root or the commit cannot be read, else every directory P
// (breadth first, at most maxProjectDepth levels and maxProjectSearch
// directories) whose P/dir/tasks.md has P as its nearest project root. The
// returned slice must not be modified.
func (v *Verifier) projectCandidates(c gitref.Hash, dir string) []string {
	m := v.memo()
	k := projectKey{c, dir}
	if found, ok := memoGet(&m.mu, m.projects, k); ok {
		return found
	}
	found := v.searchProjects(c, dir)
	memoPut(&m.mu, m.projects, k, found)
	return found
}

type projectKey struct {
	commit gitref.Hash
	dir    string
}

// searchProjects is projectCandidates without the memo.
func (v *Verifier) searchProjects(c gitref.Hash, dir string) []string {
	fsys, err := v.Repo.FS(c)
	if err != nil {
		return nil
	}
	exists := func(p string) bool {
		_, err := fs.Stat(fsys, p)
		return err == nil
	}
	if exists(dir + "/tasks.md") {
		return nil
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
	return found
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

// hasTaskLine reports, for a project root, whether the tasks file of p's
// unit under it at commit c has task p.Task.ID on a line whose line hash is
// lineHash: how projectRoot tells two projects' units with one unit.dir apart.
func (v *Verifier) hasTaskLine(c gitref.Hash, p *predicate.Predicate, lineHash string) func(root string) bool {
	return func(root string) bool {
		b, err := v.Repo.File(c, specfmt.ProjectPath(root, p.Unit.Dir+"/tasks.md"))
		if err != nil {
			return false
		}
		f, err := specfmt.ParseTasks(specfmt.Unit{Format: specfmt.Format(p.Unit.Format), Feature: p.Unit.Feature, Dir: p.Unit.Dir}, b, specfmt.AllowDuplicateIDs())
		if err != nil {
			return false
		}
		_, err = f.LookupLine(p.Task.ID, lineHash)
		return err == nil
	}
}

// projectLines is the number of task lines the note's statements of part's
// subject and unit.dir are about within the statement's own project
// (docs/format.md#project-root): the statements of another project's unit
// with the same unit.dir are another unit's, not a second line of this one.
// For the repository's root project it is part.lines.
func (v *Verifier) projectLines(c *gitref.Commit, tv *entry, part taskPart) int {
	if part.lines < 2 {
		return part.lines
	}
	p, err := predicate.FromValue(tv.statement.Predicate)
	if err != nil || p.Unit.Dir == "" {
		return part.lines
	}
	root := v.projectRoot(c.ID, p.Unit.Dir, v.hasTaskLine(c.ID, p, p.Task.LineHash))
	if root == "" {
		return part.lines
	}
	n := 0
	for _, h := range part.lineHashes {
		if h == p.Task.LineHash || v.projectRoot(c.ID, p.Unit.Dir, v.hasTaskLine(c.ID, p, h)) == root {
			n++
		}
	}
	return n
}
