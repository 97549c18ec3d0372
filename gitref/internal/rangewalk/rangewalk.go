// Package rangewalk finds and orders the commits of a range base..head
// (reachable from head and not from base) for gitref: a walk of both sides
// together, newest committer date first, bounded by the range rather than by
// base's history (Set), and the range listed parents before children (Order),
// each commit kept as a small Node instead of the decoded commit.
package rangewalk

import (
	"container/heap"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/taskproof/taskproof/trailer"
)

// Source is what a range's walk reads: commits, and the parents a walk
// follows from one (none at a shallow clone's edge).
type Source interface {
	Commit(h plumbing.Hash) (*object.Commit, error)
	Parents(c plumbing.Hash, parents []plumbing.Hash) []plumbing.Hash
}

// Listing is a range's commits in order, IDs and Nodes parallel.
type Listing struct {
	IDs   []plumbing.Hash
	Nodes []*Node
}

// Set returns the commits reachable from head and not from base — git's
// base..head; all of head's history when base is zero — keyed by id, with
// their decoded objects. It is the bounded replacement for excluding base's
// whole history (for a range's listing): the two sides are walked together, newest
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
func Set(src Source, base, head plumbing.Hash) (map[plumbing.Hash]*Node, error) {
	w := &dateWalk{src: src, nodes: map[plumbing.Hash]*Node{}}
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
		if !skewed && w.nonBase == 0 && (!haveHead || w.q[0].n.When.Before(oldestHead)) {
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
			if !haveHead || c.When.Before(oldestHead) {
				oldestHead, haveHead = c.When, true
			}
		}
		for _, p := range w.src.Parents(q.h, c.Parents) {
			if err := w.mark(p, c.flags); err != nil {
				return nil, err
			}
			if w.nodes[p].When.After(c.When) {
				skewed = true
			}
		}
	}
	maps.DeleteFunc(w.nodes, func(_ plumbing.Hash, n *Node) bool { return n.flags != fromHead })
	return w.nodes, nil
}

// Set's marks: reachable from head, from base.
const (
	fromHead = 1 << iota
	fromBase
)

// Node is what a range's walk keeps of a commit it read: what orders
// the range and what a walk of it compares — a fraction of the decoded
// commit, whose message and signatures a long range could not all hold.
type Node struct {
	When     time.Time         // committer date
	Tree     plumbing.Hash     // root tree
	Parents  []plumbing.Hash   // the commit's own, also at a shallow clone's edge
	Trailers []trailer.Trailer // trailer.Parse of the message; nil when none
	flags    uint8             // Set's marks
	queued   bool              // in Set's queue
}

// NewNode keeps of commit c what a range's walk needs.
func NewNode(c *object.Commit) *Node {
	n := &Node{When: c.Committer.When, Tree: c.TreeHash, Parents: c.ParentHashes, Trailers: trailer.Parse(c.Message)}
	for i, t := range n.Trailers {
		// Copied out of the message, which the node does not keep.
		n.Trailers[i] = trailer.Trailer{Key: strings.Clone(t.Key), Value: strings.Clone(t.Value)}
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
		c, err := w.src.Commit(h)
		if err != nil {
			return err
		}
		n = NewNode(c)
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

// dateWalk is Set's queue: a max-heap of commits by committer date.
type dateWalk struct {
	src     Source
	q       []queuedNode
	nodes   map[plumbing.Hash]*Node // every commit read
	nonBase int                     // queued commits not (yet) known to be reachable from base
}

type queuedNode struct {
	h plumbing.Hash
	n *Node
}

func (w *dateWalk) Len() int { return len(w.q) }
func (w *dateWalk) Less(i, j int) bool {
	return w.q[i].n.When.After(w.q[j].n.When)
}
func (w *dateWalk) Swap(i, j int) { w.q[i], w.q[j] = w.q[j], w.q[i] }
func (w *dateWalk) Push(x any)    { w.q = append(w.q, x.(queuedNode)) }
func (w *dateWalk) Pop() any {
	c := w.q[len(w.q)-1]
	w.q = w.q[:len(w.q)-1]
	return c
}

// Order lists the commits reachable from head and not excluded, parents
// before children: head's first-parent chain when firstParent, else an
// iterative post-order depth-first walk (every commit after all of its
// parents). get reads a commit's Node.
func Order(head plumbing.Hash, firstParent bool, excluded func(plumbing.Hash) bool, get func(plumbing.Hash) (*Node, error)) (*Listing, error) {
	out := &Listing{}
	if firstParent {
		for h := head; !h.IsZero() && !excluded(h); {
			c, err := get(h)
			if err != nil {
				return nil, err
			}
			out.IDs, out.Nodes = append(out.IDs, h), append(out.Nodes, c)
			h = plumbing.ZeroHash
			if len(c.Parents) > 0 {
				h = c.Parents[0]
			}
		}
		slices.Reverse(out.IDs)
		slices.Reverse(out.Nodes)
		return out, nil
	}
	type frame struct {
		h    plumbing.Hash
		c    *Node
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
		if top.next < len(top.c.Parents) {
			p := top.c.Parents[top.next]
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
		out.IDs, out.Nodes = append(out.IDs, top.h), append(out.Nodes, top.c)
		stack = stack[:len(stack)-1]
	}
	return out, nil
}
