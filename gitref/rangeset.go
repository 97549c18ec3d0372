package gitref

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/taskproof/taskproof/gitref/internal/rangewalk"
	"github.com/taskproof/taskproof/trailer"
)

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

// Listing is a range's commits in List's order, each as its Link and
// trailers: ≈ 150 bytes a commit, where a Commit, with its message and
// signatures, takes several hundred (a range of 100,000 commits is listed
// before its walk compares any).
type Listing struct {
	ids   []plumbing.Hash
	nodes []*rangewalk.Node
}

// rangeSource is the Repo as a range's walk reads it.
type rangeSource struct{ r *Repo }

func (s rangeSource) Commit(h plumbing.Hash) (*object.Commit, error) {
	return s.r.commit(fromPlumbing(h))
}

func (s rangeSource) Parents(c plumbing.Hash, parents []plumbing.Hash) []plumbing.Hash {
	return s.r.walkParents(c, parents)
}

// rangeSet is rangewalk.Set on the Repo, refusing a range that reaches a
// shallow clone's edge (checkRangeEdge).
func (r *Repo) rangeSet(base, head plumbing.Hash) (map[plumbing.Hash]*rangewalk.Node, error) {
	set, err := rangewalk.Set(rangeSource{r}, base, head)
	if err != nil {
		return nil, err
	}
	if err := r.checkRangeEdge(set, base, head); err != nil {
		return nil, err
	}
	return set, nil
}

// listing is a rangewalk.Listing as a Listing.
func listing(l *rangewalk.Listing, err error) (*Listing, error) {
	if err != nil {
		return nil, err
	}
	return &Listing{ids: l.IDs, nodes: l.Nodes}, nil
}

// Link is a commit's place in history: its id, its root tree (the
// predicate's "tree") and its parents, Parents[0] the first
// (docs/format.md#units-and-task-lines).
type Link struct {
	ID      Hash
	Tree    Hash
	Parents []Hash
}

// List lists the commits of base..head — reachable from head and not from
// base ("" base: all of head's history) — parents before children: only
// head's first-parent chain when firstParent (git log --first-parent), else
// every commit after all of its parents. The walk is bounded by the range
// (rangeSet): base's history is read only as far back as the range reaches,
// and each commit is read once; read a whole commit with [Repo.Commit]. The
// error wraps ErrNotFound for a missing commit.
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
	out := Link{ID: fromPlumbing(l.ids[i]), Tree: fromPlumbing(n.Tree), Parents: make([]Hash, len(n.Parents))}
	for k, p := range n.Parents {
		out.Parents[k] = fromPlumbing(p)
	}
	return out
}

// Trailers returns the trailers of the i-th commit's message
// ([trailer.Parse]), read by the walk that listed it.
func (l *Listing) Trailers(i int) []trailer.Trailer { return l.nodes[i].Trailers }

// rangeCommits lists the commits of base..head, parents before children. The
// range is found by rangeSet's bounded walk (base's history is walked only as far
// back as the range reaches), then ordered by a depth-first walk from head.
func (r *Repo) rangeCommits(base, head Hash, firstParent bool) (*Listing, error) {
	var in map[plumbing.Hash]*rangewalk.Node // nil: all of head's history
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
	get := func(h plumbing.Hash) (*rangewalk.Node, error) {
		if c := in[h]; c != nil {
			return c, nil
		}
		c, err := r.commit(fromPlumbing(h))
		if err != nil {
			return nil, err
		}
		return rangewalk.NewNode(c), nil
	}
	return listing(rangewalk.Order(toPlumbing(head), firstParent, excluded, get))
}

// rangeCommitsFull lists base..head by excluding base's whole history first:
// the slow, obviously correct reference TestRangeSet compares rangeCommits
// with, and BenchmarkRangeSet's baseline.
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
	return listing(rangewalk.Order(toPlumbing(head), firstParent, func(h plumbing.Hash) bool { return excluded[h] },
		func(h plumbing.Hash) (*rangewalk.Node, error) {
			c, err := r.commit(fromPlumbing(h))
			if err != nil {
				return nil, err
			}
			return rangewalk.NewNode(c), nil
		}))
}
