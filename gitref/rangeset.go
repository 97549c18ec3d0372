package gitref

import (
	"container/heap"
	"maps"
	"slices"
	"strings"
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
func (r *Repo) rangeSet(base, head plumbing.Hash) (map[plumbing.Hash]*rangeNode, error) {
	w := &dateWalk{r: r, nodes: map[plumbing.Hash]*rangeNode{}}
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
		if !skewed && w.nonBase == 0 && (!haveHead || w.q[0].n.when.Before(oldestHead)) {
			if left == 0 {
				break
			}
			left--
		} else {
			left = slop
		}
		q := heap.Pop(w).(queuedNode)
		c := q.n
		c.queued = false
		if c.flags&fromBase == 0 {
			w.nonBase--
			if !haveHead || c.when.Before(oldestHead) {
				oldestHead, haveHead = c.when, true
			}
		}
		for _, p := range r.walkParents(q.h, c.parents) {
			if err := w.mark(p, c.flags); err != nil {
				return nil, err
			}
			if w.nodes[p].when.After(c.when) {
				skewed = true
			}
		}
	}
	maps.DeleteFunc(w.nodes, func(_ plumbing.Hash, n *rangeNode) bool { return n.flags != fromHead })
	if err := r.checkRangeEdge(w.nodes, base, head); err != nil {
		return nil, err
	}
	return w.nodes, nil
}

// rangeSet's marks: reachable from head, from base.
const (
	fromHead = 1 << iota
	fromBase
)

// rangeNode is what a range's walk keeps of a commit it read: what orders
// the range and what a walk of it compares — a fraction of the decoded
// commit, whose message and signatures a long range could not all hold.
type rangeNode struct {
	when     time.Time       // committer date
	tree     plumbing.Hash   // root tree
	parents  []plumbing.Hash // the commit's own, also at a shallow clone's edge
	trailers []Trailer       // ParseTrailers of the message; nil when none
	flags    uint8           // rangeSet's marks
	queued   bool            // in rangeSet's queue
}

func newRangeNode(c *object.Commit) *rangeNode {
	n := &rangeNode{when: c.Committer.When, tree: c.TreeHash, parents: c.ParentHashes, trailers: ParseTrailers(c.Message)}
	for i, t := range n.trailers {
		// Copied out of the message, which the node does not keep.
		n.trailers[i] = Trailer{Key: strings.Clone(t.Key), Value: strings.Clone(t.Value)}
	}
	return n
}

// mark adds the marks f to commit h and queues it when they are new to it,
// reading it on first sight; nonBase counts the queued commits not marked
// fromBase.
func (w *dateWalk) mark(h plumbing.Hash, f uint8) error {
	n := w.nodes[h]
	if n != nil && n.flags|f == n.flags {
		return nil
	}
	if n == nil {
		c, err := w.r.commit(fromPlumbing(h))
		if err != nil {
			return err
		}
		n = newRangeNode(c)
		w.nodes[h] = n
	}
	old := n.flags
	n.flags |= f
	if n.queued {
		if old&fromBase == 0 && f&fromBase != 0 {
			w.nonBase--
		}
		return nil
	}
	n.queued = true
	if n.flags&fromBase == 0 {
		w.nonBase++
	}
	heap.Push(w, queuedNode{h, n})
	return nil
}

// dateWalk is rangeSet's queue: a max-heap of commits by committer date.
type dateWalk struct {
	r       *Repo
	q       []queuedNode
	nodes   map[plumbing.Hash]*rangeNode // every commit read
	nonBase int                          // queued commits not (yet) known to be reachable from base
}

type queuedNode struct {
	h plumbing.Hash
	n *rangeNode
}

func (w *dateWalk) Len() int { return len(w.q) }
func (w *dateWalk) Less(i, j int) bool {
	return w.q[i].n.when.After(w.q[j].n.when)
}
func (w *dateWalk) Swap(i, j int) { w.q[i], w.q[j] = w.q[j], w.q[i] }
func (w *dateWalk) Push(x any)    { w.q = append(w.q, x.(queuedNode)) }
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
		set, err := r.rangeSet(toPlumbing(base), toPlumbing(head))
		if err != nil {
			return nil, err
		}
		for h := range set {
			in[h] = true
		}
	} else {
		l, err := r.rangeCommits("", head, false)
		if err != nil {
			return nil, err
		}
		for _, h := range l.ids {
			in[h] = true
		}
	}
	var out []Hash
	for _, id := range ids {
		if in[toPlumbing(id)] {
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
// Each commit is read whole; a walk of a long range lists it with List.
// The error wraps ErrNotFound for a missing commit.
func (r *Repo) RangeCommits(base, head Hash, firstParent bool) ([]*Commit, error) {
	l, err := r.List(base, head, firstParent)
	if err != nil {
		return nil, err
	}
	out := make([]*Commit, l.Len())
	for i := range out {
		if out[i], err = r.Commit(l.ID(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Listing is a range's commits in RangeCommits' order, each as its Link and
// trailers: ≈ 150 bytes a commit, where a Commit, with its message and
// signatures, takes several hundred (a range of 100,000 commits is listed
// before its walk compares any).
type Listing struct {
	ids   []plumbing.Hash
	nodes []*rangeNode
}

// Link is a commit's place in history: its id, its root tree (the
// predicate's "tree") and its parents, Parents[0] the first.
type Link struct {
	ID      Hash
	Tree    Hash
	Parents []Hash
}

// Link returns c's Link.
func (c *Commit) Link() Link { return Link{ID: c.ID, Tree: c.Tree, Parents: c.Parents} }

// List lists the commits of base..head as RangeCommits does, reading each
// once. The error wraps ErrNotFound for a missing commit.
func (r *Repo) List(base, head Hash, firstParent bool) (*Listing, error) {
	return r.rangeCommits(base, head, firstParent)
}

// Len is the number of commits listed.
func (l *Listing) Len() int { return len(l.ids) }

// ID returns the id of the i-th commit listed.
func (l *Listing) ID(i int) Hash { return fromPlumbing(l.ids[i]) }

// Link returns the i-th commit listed.
func (l *Listing) Link(i int) Link {
	n := l.nodes[i]
	out := Link{ID: fromPlumbing(l.ids[i]), Tree: fromPlumbing(n.tree), Parents: make([]Hash, len(n.parents))}
	for k, p := range n.parents {
		out.Parents[k] = fromPlumbing(p)
	}
	return out
}

// WithTrailer returns the commits listed, in their order, whose message has a
// trailer named key (compared case-insensitively), each with its trailers
// ([ParseTrailers]).
func (l *Listing) WithTrailer(key string) []TrailerCommit {
	var out []TrailerCommit
	for i, n := range l.nodes {
		if len(TrailerValues(n.trailers, key)) > 0 {
			out = append(out, TrailerCommit{ID: fromPlumbing(l.ids[i]), Trailers: n.trailers})
		}
	}
	return out
}

// rangeCommits lists the commits of base..head, parents before children. The
// range is found by rangeSet's bounded walk (base's history is walked only as far
// back as the range reaches), then ordered by a depth-first walk from head.
func (r *Repo) rangeCommits(base, head Hash, firstParent bool) (*Listing, error) {
	var in map[plumbing.Hash]*rangeNode // nil: all of head's history
	if base != "" {
		var err error
		if in, err = r.rangeSet(toPlumbing(base), toPlumbing(head)); err != nil {
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
	get := func(h plumbing.Hash) (*rangeNode, error) {
		if c := in[h]; c != nil {
			return c, nil
		}
		c, err := r.commit(fromPlumbing(h))
		if err != nil {
			return nil, err
		}
		return newRangeNode(c), nil
	}
	return orderCommits(toPlumbing(head), firstParent, excluded, get)
}

// orderCommits lists the commits reachable from head and not excluded, parents
// before children: head's first-parent chain when firstParent, else an
// iterative post-order depth-first walk (every commit after all of its parents).
func orderCommits(head plumbing.Hash, firstParent bool, excluded func(plumbing.Hash) bool, get func(plumbing.Hash) (*rangeNode, error)) (*Listing, error) {
	out := &Listing{}
	if firstParent {
		for h := head; !h.IsZero() && !excluded(h); {
			c, err := get(h)
			if err != nil {
				return nil, err
			}
			out.ids, out.nodes = append(out.ids, h), append(out.nodes, c)
			h = plumbing.ZeroHash
			if len(c.parents) > 0 {
				h = c.parents[0]
			}
		}
		slices.Reverse(out.ids)
		slices.Reverse(out.nodes)
		return out, nil
	}
	type frame struct {
		h    plumbing.Hash
		c    *rangeNode
		next int
	}
	seen := map[plumbing.Hash]bool{}
	if excluded(head) {
		return out, nil
	}
	hc, err := get(head)
	if err != nil {
		return nil, err
	}
	seen[head] = true
	stack := []frame{{h: head, c: hc}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next < len(top.c.parents) {
			p := top.c.parents[top.next]
			top.next++
			if seen[p] || excluded(p) {
				continue
			}
			seen[p] = true
			pc, err := get(p)
			if err != nil {
				return nil, err
			}
			stack = append(stack, frame{h: p, c: pc})
			continue
		}
		out.ids, out.nodes = append(out.ids, top.h), append(out.nodes, top.c)
		stack = stack[:len(stack)-1]
	}
	return out, nil
}

// rangeCommitsFull is the former rangeCommits: base's whole history is
// excluded first. Kept for BenchmarkRangeSet's comparison and as the reference
// of TestRangeCommitsMatchesFull.
func (r *Repo) rangeCommitsFull(base, head Hash, firstParent bool) (*Listing, error) {
	excluded := map[plumbing.Hash]bool{}
	if base != "" {
		stack := []plumbing.Hash{toPlumbing(base)}
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
	return orderCommits(toPlumbing(head), firstParent, func(h plumbing.Hash) bool { return excluded[h] },
		func(h plumbing.Hash) (*rangeNode, error) {
			c, err := r.commit(fromPlumbing(h))
			if err != nil {
				return nil, err
			}
			return newRangeNode(c), nil
		})
}
