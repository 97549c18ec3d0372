package gitref

import (
	"container/heap"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

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
	w := &dateWalk{r: r, flags: map[plumbing.Hash]uint8{}, commits: map[plumbing.Hash]*object.Commit{}, queued: map[plumbing.Hash]bool{}}
	if err := w.mark(head, fromHead); err != nil {
		return nil, err
	}
	if !base.IsZero() {
		if err := w.mark(base, fromBase); err != nil {
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
			if err := w.mark(p, f); err != nil {
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

// rangeSet's marks: reachable from head, from base.
const (
	fromHead = 1 << iota
	fromBase
)

// mark adds the marks f to commit h and queues it when they are new to it,
// reading it on first sight; nonBase counts the queued commits not marked
// fromBase.
func (w *dateWalk) mark(h plumbing.Hash, f uint8) error {
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
		if c, err = w.r.commit(fromPlumbing(h)); err != nil {
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

// dateWalk is rangeSet's queue: a max-heap of commits by committer date.
type dateWalk struct {
	r       *Repo
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

// RangeCommits lists the commits of base..head — reachable from head and not
// from base ("" base: all of head's history) — parents before children: only
// head's first-parent chain when firstParent (git log --first-parent), else
// every commit after all of its parents. The walk is bounded by the range
// (rangeSet): base's history is read only as far back as the range reaches.
// The error wraps ErrNotFound for a missing commit.
func (r *Repo) RangeCommits(base, head Hash, firstParent bool) ([]*Commit, error) {
	cs, err := r.rangeCommits(base, head, firstParent)
	if err != nil {
		return nil, err
	}
	out := make([]*Commit, len(cs))
	for i, c := range cs {
		out[i] = toCommit(fromPlumbing(c.Hash), c)
		// Dropped as converted: over a long range the decoded commits and
		// their conversions are not all held at once (the range's listing
		// was the gate's peak of memory).
		cs[i] = nil
	}
	return out, nil
}

// rangeCommits lists the commits of base..head, parents before children. The
// range is found by rangeSet's bounded walk (base's history is walked only as far
// back as the range reaches), then ordered by a depth-first walk from head.
func (r *Repo) rangeCommits(base, head Hash, firstParent bool) ([]*object.Commit, error) {
	var in map[plumbing.Hash]*object.Commit // nil: all of head's history
	if base != "" {
		var err error
		if in, err = r.rangeSet(base.plumbing(), head.plumbing()); err != nil {
			return nil, err
		}
	}
	excluded := func(h plumbing.Hash) bool {
		if in == nil {
			return false
		}
		_, ok := in[h]
		return !ok
	}
	get := func(h plumbing.Hash) (*object.Commit, error) {
		if c := in[h]; c != nil {
			return c, nil
		}
		return r.commit(fromPlumbing(h))
	}
	return orderCommits(head.plumbing(), firstParent, excluded, get)
}

// orderCommits lists the commits reachable from head and not excluded, parents
// before children: head's first-parent chain when firstParent, else an
// iterative post-order depth-first walk (every commit after all of its parents).
func orderCommits(head plumbing.Hash, firstParent bool, excluded func(plumbing.Hash) bool, get func(plumbing.Hash) (*object.Commit, error)) ([]*object.Commit, error) {
	if firstParent {
		var out []*object.Commit
		for h := head; !h.IsZero() && !excluded(h); {
			c, err := get(h)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			h = plumbing.ZeroHash
			if len(c.ParentHashes) > 0 {
				h = c.ParentHashes[0]
			}
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out, nil
	}
	type frame struct {
		c    *object.Commit
		next int
	}
	var out []*object.Commit
	seen := map[plumbing.Hash]bool{}
	if excluded(head) {
		return nil, nil
	}
	hc, err := get(head)
	if err != nil {
		return nil, err
	}
	seen[hc.Hash] = true
	stack := []frame{{c: hc}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.c.ParentHashes) {
			p := top.c.ParentHashes[top.next]
			top.next++
			if seen[p] || excluded(p) {
				continue
			}
			seen[p] = true
			pc, err := get(p)
			if err != nil {
				return nil, err
			}
			stack = append(stack, frame{c: pc})
			continue
		}
		out = append(out, top.c)
		stack = stack[:len(stack)-1]
	}
	return out, nil
}

// rangeCommitsFull is the former rangeCommits: base's whole history is
// excluded first. Kept for BenchmarkRangeSet's comparison and as the reference
// of TestRangeCommitsMatchesFull.
func (r *Repo) rangeCommitsFull(base, head Hash, firstParent bool) ([]*object.Commit, error) {
	excluded := map[plumbing.Hash]bool{}
	if base != "" {
		stack := []plumbing.Hash{base.plumbing()}
		for len(stack) > 0 {
			h := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if excluded[h] {
				continue
			}
			excluded[h] = true
			c, err := r.commit(fromPlumbing(h))
			if err != nil {
				return nil, err
			}
			stack = append(stack, c.ParentHashes...)
		}
	}
	return orderCommits(head.plumbing(), firstParent, func(h plumbing.Hash) bool { return excluded[h] },
		func(h plumbing.Hash) (*object.Commit, error) { return r.commit(fromPlumbing(h)) })
}
