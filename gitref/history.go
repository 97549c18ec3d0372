package gitref

import (
	"errors"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// namedTip is a commit a ref names.
type namedTip struct {
	name string
	id   plumbing.Hash
}

// attemptRefPrefix is where speccoder keeps its attempts at a task: they
// carry no evidence, and every command ignores them
// (docs/format.md#reading-what-other-writers-write).
const attemptRefPrefix = "refs/speccoder/attempts/"

// refTips lists, in name order, the commits the repository's refs name, but
// for taskproof's and speccoder's own (refs/notes/, the skip records and
// attempts under refs/speccoder/): tags peeled, refs to a tree or blob left
// out.
func (r *Repo) refTips() ([]namedTip, error) {
	return r.tipsWhere(func(n string) bool {
		return !strings.HasPrefix(n, "refs/notes/") && !strings.HasPrefix(n, "refs/speccoder/")
	})
}

// attemptTips lists, in name order, the commits under attemptRefPrefix.
func (r *Repo) attemptTips() ([]namedTip, error) {
	return r.tipsWhere(func(n string) bool { return strings.HasPrefix(n, attemptRefPrefix) })
}

// tipsWhere lists, in name order, the commits the refs keep names, tags
// peeled, refs to a tree or blob left out.
func (r *Repo) tipsWhere(keep func(name string) bool) ([]namedTip, error) {
	refs, err := r.listRefs()
	if err != nil {
		return nil, err
	}
	var tips []namedTip
	for n, id := range refs {
		if keep(n) {
			tips = append(tips, namedTip{n, toPlumbing(id)})
		}
	}
	sort.Slice(tips, func(i, j int) bool { return tips[i].name < tips[j].name })
	out := tips[:0]
	for _, t := range tips {
		if c, err := r.peelToCommit(t.id); err == nil {
			out = append(out, namedTip{t.name, c})
		}
	}
	return out, nil
}

// walkHistory visits, depth first, every commit reachable from start that
// seen does not hold yet, marking it there, and follows parents as
// walkParents does (none past a shallow clone's edge). visit returns true to
// stop the walk (stopped). A commit that cannot be read is the walk's error,
// unless skipMissing and it is a missing object: then its parents are not
// followed.
func (r *Repo) walkHistory(start plumbing.Hash, seen map[plumbing.Hash]bool, skipMissing bool, visit func(h plumbing.Hash, c *object.Commit) bool) (stopped bool, err error) {
	stack := []plumbing.Hash{start}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := r.commit(fromPlumbing(h))
		if err != nil {
			if skipMissing && errors.Is(err, ErrMissingObject) {
				continue
			}
			return false, err
		}
		if visit(h, c) {
			return true, nil
		}
		stack = append(stack, r.walkParents(h, c.ParentHashes)...)
	}
	return false, nil
}
