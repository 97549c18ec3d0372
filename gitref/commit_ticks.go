package gitref

import (
	"bytes"
	"container/heap"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// CommitTicks returns the task box changes of one commit against its first
// parent (docs/format.md#units-and-task-lines), without walking history: what
// `attest tick` needs for one commit, at a cost independent of history length.
// A root commit has none.
func (r *Repo) CommitTicks(commit Hash) ([]Tick, error) {
	return r.CommitTicksIn(commit, nil)
}

// CommitTicksIn is [Repo.CommitTicks] with the unit layouts and ignored paths
// of layouts (nil: the built-in layouts alone).
func (r *Repo) CommitTicksIn(commit Hash, layouts *specfmt.Layouts) ([]Tick, error) {
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	tc := &tickCtx{r: r, parsed: map[parseKey]*parsedFile{}, layouts: layouts}
	ticks, _, err := tc.commitTicks(c)
	return ticks, err
}

// rangeSet returns the commits reachable from head and not from base — git's
// base..head; all of head's history when base is zero — keyed by id, with
// their decoded objects. It is the bounded replacement for excluding base's
// whole history (for rangeCommits): the two sides are walked together, newest
// committer date first (as git's limit_list does), marking what each reaches,
// and the walk stops once every queued commit is reachable from base and older
// than every commit found reachable from head only. Its cost is the size of
// the range plus the part of base's history not older than the range, not the
// length of base's history.
//
// The result is exact when no commit is dated before one of its parents; with
// equal dates the walk just goes on (down to the roots, at worst), and once it
// meets a commit dated before its parent it walks both histories whole. Marks
// only follow parent links, so a commit is never left out unless it is
// reachable from base: dates going backwards where the walk does not see them
// can only make the result larger (more commits to check), never smaller.
func (r *Repo) rangeSet(base, head plumbing.Hash) (map[plumbing.Hash]*object.Commit, error) {
	const (
		fromHead = 1 << iota
		fromBase
	)
	w := &dateWalk{flags: map[plumbing.Hash]uint8{}, commits: map[plumbing.Hash]*object.Commit{}, queued: map[plumbing.Hash]bool{}}
	mark := func(h plumbing.Hash, f uint8) error {
		old, seen := w.flags[h]
		if seen && old|f == old {
			return nil
		}
		w.flags[h] = old | f
		if w.queued[h] {
			if old&fromBase == 0 && f&fromBase != 0 {
				w.nonBase--
			}
			return nil
		}
		c := w.commits[h]
		if c == nil {
			var err error
			if c, err = r.commit(fromPlumbing(h)); err != nil {
				return err
			}
			w.commits[h] = c
		}
		w.queued[h] = true
		if (old|f)&fromBase == 0 {
			w.nonBase++
		}
		heap.Push(w, c)
		return nil
	}
	if err := mark(head, fromHead); err != nil {
		return nil, err
	}
	if !base.IsZero() {
		if err := mark(base, fromBase); err != nil {
			return nil, err
		}
	}
	// The walk may stop once nothing queued can reach a commit of the range:
	// every queued commit is reachable from base and older than the oldest
	// commit found reachable from head only — assuming that no commit is older
	// than its parents. It goes on for a few more commits after that (git's
	// "slop"), and never stops early once it has seen a commit older than one
	// of its parents.
	const slop = 5
	var oldestHead time.Time
	haveHead, skewed, left := false, false, slop
	for w.Len() > 0 {
		if !skewed && w.nonBase == 0 && (!haveHead || w.q[0].Committer.When.Before(oldestHead)) {
			if left == 0 {
				break
			}
			left--
		} else {
			left = slop
		}
		c := heap.Pop(w).(*object.Commit)
		w.queued[c.Hash] = false
		f := w.flags[c.Hash]
		if f&fromBase == 0 {
			w.nonBase--
			if when := c.Committer.When; !haveHead || when.Before(oldestHead) {
				oldestHead, haveHead = when, true
			}
		}
		for _, p := range r.walkParents(c) {
			if err := mark(p, f); err != nil {
				return nil, err
			}
			if w.commits[p].Committer.When.After(c.Committer.When) {
				skewed = true
			}
		}
	}
	out := map[plumbing.Hash]*object.Commit{}
	for h, f := range w.flags {
		if f == fromHead {
			out[h] = w.commits[h]
		}
	}
	if err := r.checkRangeEdge(out, base, head); err != nil {
		return nil, err
	}
	return out, nil
}

// dateWalk is rangeSet's queue: a max-heap of commits by committer date.
type dateWalk struct {
	q       []*object.Commit
	flags   map[plumbing.Hash]uint8
	commits map[plumbing.Hash]*object.Commit
	queued  map[plumbing.Hash]bool
	nonBase int // queued commits not (yet) known to be reachable from base
}

func (w *dateWalk) Len() int { return len(w.q) }
func (w *dateWalk) Less(i, j int) bool {
	return w.q[i].Committer.When.After(w.q[j].Committer.When)
}
func (w *dateWalk) Swap(i, j int) { w.q[i], w.q[j] = w.q[j], w.q[i] }
func (w *dateWalk) Push(x any)    { w.q = append(w.q, x.(*object.Commit)) }
func (w *dateWalk) Pop() any {
	c := w.q[len(w.q)-1]
	w.q = w.q[:len(w.q)-1]
	return c
}

// InRange returns those of ids that are commits of base..head: reachable from
// head and not from base ("" for base: all of head's history), in the order
// given. The walk is rangeSet's, which may count a commit reachable from base
// as in the range when committer dates go backwards, never the reverse: a
// caller refusing what is in the range errs on the safe side.
func (r *Repo) InRange(base, head Hash, ids ...Hash) ([]Hash, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if _, err := ParseHash(string(head)); err != nil {
		return nil, err
	}
	in := map[plumbing.Hash]bool{}
	if base != "" {
		if _, err := ParseHash(string(base)); err != nil {
			return nil, err
		}
		set, err := r.rangeSet(base.plumbing(), head.plumbing())
		if err != nil {
			return nil, err
		}
		for h := range set {
			in[h] = true
		}
	} else {
		commits, err := r.rangeCommits("", head, false)
		if err != nil {
			return nil, err
		}
		for _, c := range commits {
			in[c.Hash] = true
		}
	}
	var out []Hash
	for _, id := range ids {
		if in[id.plumbing()] {
			out = append(out, id)
		}
	}
	return out, nil
}

// TasksFileAt is a tasks file of one commit's tree ([Repo.TasksFiles]).
type TasksFileAt struct {
	Path string
	// Unit is the file's unit; for an Unrecognized file, what it is parsed
	// as (a spec-kit unit of its directory).
	Unit specfmt.Unit
	// Root is the nested project root of Unit ("" the repository's root);
	// Unit.Dir is repository-relative either way (as [Tick.Unit]).
	Root         string
	Unrecognized bool
	// Irregular is "symlink" or "submodule" for an entry that is not a
	// regular file at a tasks-file position (Content is then nil).
	Irregular string
	Content   []byte
}

// TasksFiles lists the tasks files of commit's tree: every file named
// tasks.md (any case) that layouts does not ignore, with its content, and the
// symbolic links and submodules at tasks-file positions (a tasks.md name, or
// a directory on a unit layout's tasks-file path), in tree order. It reads the
// whole tree: the gate's state check compares head's tasks with base's
// (docs/format.md#the-state-check).
func (r *Repo) TasksFiles(commit Hash, layouts *specfmt.Layouts) ([]TasksFileAt, error) {
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	var out []TasksFileAt
	projects := projectCache{}
	var walk func(tree plumbing.Hash, dir string) error
	walk = func(tree plumbing.Hash, dir string) error {
		t, err := r.tree(tree)
		if err != nil {
			return err
		}
		for _, e := range t.Entries {
			path := e.Name
			if dir != "" {
				path = dir + "/" + e.Name
			}
			if e.Mode == filemode.Dir {
				if err := walk(e.Hash, path); err != nil {
					return err
				}
				continue
			}
			if k := irregularKind(e.Mode); k != "" {
				if specfmt.IsTasksFileName(e.Name) || layouts.MayHoldUnits(path) {
					out = append(out, TasksFileAt{Path: path, Irregular: k})
				}
				continue
			}
			tf, ok := classifyTasksFile(layouts, path)
			if !ok || !isRegular(e.Mode) {
				continue
			}
			if tf.unrecognized {
				tf = r.projectTasksFile(layouts, c.TreeHash, path, tf, projects)
			}
			b, err := r.viewOf(plumbing.BlobObject, e.Hash)
			if err != nil {
				return err
			}
			out = append(out, TasksFileAt{Path: path, Unit: tf.unit, Root: tf.root, Unrecognized: tf.unrecognized, Content: bytes.Clone(b)})
		}
		return nil
	}
	if err := walk(c.TreeHash, ""); err != nil {
		return nil, fmt.Errorf("listing the tasks files of %s: %w", commit, err)
	}
	return out, nil
}
