package verify

import (
	"errors"
	"io/fs"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// lineMatch rates how well the tasks file of a statement's unit under a
// project root fits the statement at its commit: noLine, hasLine (the task line
// the statement's line hash names), or tickedLine (that line, ticked).
type lineMatch func(root string) int

const (
	noLine = iota
	hasLine
	tickedLine
	// newlyTicked: ticked at the commit and not at its first parent (the
	// commit's own tick of the line).
	newlyTicked
)

// projectRoot returns the project root at commit c of the unit whose
// project-relative tasks file is tasks (specfmt.Unit.TasksPath, dir/tasks.md
// for a unit dir; docs/format.md#project-root): "" (the
// repository's root) when the tasks file is there and has the statement's task
// line ticked (match, the usual single-project repository), else the one
// directory P, at most tick.MaxProjectDepth levels deep, whose P/<tasks> has
// P as its nearest project root (specfmt.ProjectUnit). When several such
// directories qualify, the one whose tasks file has the statement's line
// ticked is taken, else the one that has the line at all; when the
// repository's root has the tasks file without the line ticked, a nested
// project is taken only when it is the one with the line ticked. Otherwise it
// returns "" and the checks read the repository's root, so they fail as for a
// missing unit.
func (v *Verifier) projectRoot(c gitref.Hash, tasks string, match lineMatch) string {
	if v.memo().RootHasUnit(v.Repo, c, tasks) {
		if match == nil {
			return ""
		}
		root := match("")
		if root == newlyTicked {
			return ""
		}
		// A nested project's own tick of the line wins over a root that has
		// it ticked from before; one with the line ticked wins over a root
		// without.
		for _, min := range []int{newlyTicked, tickedLine} {
			if min <= root {
				break
			}
			if hit := rated(v.memo().ProjectCandidates(v.Repo, c, tasks), match, min); len(hit) == 1 {
				return hit[0]
			}
		}
		return ""
	}
	found := v.memo().ProjectCandidates(v.Repo, c, tasks)
	switch {
	case len(found) == 1:
		return found[0]
	case len(found) > 1 && match != nil:
		for _, min := range []int{newlyTicked, tickedLine, hasLine} {
			if hit := rated(found, match, min); len(hit) == 1 {
				return hit[0]
			}
		}
	}
	return ""
}

// rated are the roots match rates at least min.
func rated(roots []string, match lineMatch, min int) []string {
	var hit []string
	for _, r := range roots {
		if match(r) >= min {
			hit = append(hit, r)
		}
	}
	return hit
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

// hasTaskLine rates (lineMatch), for a project root, the tasks file of p's
// unit under it at commit c: whether it has task p.Task.ID on a line whose
// line hash is lineHash, and whether that line is ticked. It is how
// projectRoot tells two projects' units with one unit.dir apart.
func (v *Verifier) hasTaskLine(c gitref.Hash, p *predicate.Predicate, lineHash string) lineMatch {
	return func(root string) int {
		unit := predicateUnit(p)
		f, err := v.TasksAt(c, specfmt.ProjectPath(root, unit.TasksPath()), unit)
		if err != nil {
			return noLine
		}
		t, err := f.LookupLine(p.Task.ID, lineHash)
		switch {
		case err != nil:
			return noLine
		case !t.Ticked():
			return hasLine
		}
		cm, err := v.Repo.Commit(c)
		if err != nil || len(cm.Parents) == 0 {
			return tickedLine
		}
		pf, err := v.TasksAt(cm.Parents[0], specfmt.ProjectPath(root, unit.TasksPath()), unit)
		if err != nil {
			return newlyTicked
		}
		if pt, err := pf.LookupLine(p.Task.ID, lineHash); err == nil && pt.Ticked() {
			return tickedLine
		}
		return newlyTicked
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
	root := v.projectRoot(c.ID, predicateUnit(p).TasksPath(), v.hasTaskLine(c.ID, p, p.Task.LineHash))
	if root == "" {
		return part.lines
	}
	n := 0
	for _, h := range part.lineHashes {
		if h == p.Task.LineHash || v.projectRoot(c.ID, predicateUnit(p).TasksPath(), v.hasTaskLine(c.ID, p, h)) == root {
			n++
		}
	}
	return n
}
