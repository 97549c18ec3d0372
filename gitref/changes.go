package gitref

import (
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// ChangedPaths lists, sorted, the '/'-separated paths whose blob differs
// between the trees of commits base and head: added and modified files, and a
// renamed file under its new name (deleted files are not listed). An empty base
// compares head with the empty tree.
func (r *Repo) ChangedPaths(base, head Hash) ([]string, error) {
	hc, err := r.commit(head)
	if err != nil {
		return nil, err
	}
	to, err := r.tree(hc.TreeHash)
	if err != nil {
		return nil, err
	}
	from := &object.Tree{}
	if base != "" {
		bc, err := r.commit(base)
		if err != nil {
			return nil, err
		}
		if from, err = r.tree(bc.TreeHash); err != nil {
			return nil, err
		}
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", base, head, err)
	}
	var out []string
	for _, c := range changes {
		if c.To.Name != "" {
			out = append(out, c.To.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// MergeBase returns a best common ancestor of commits a and b, "" when they
// share none.
func (r *Repo) MergeBase(a, b Hash) (Hash, error) {
	ca, err := r.commit(a)
	if err != nil {
		return "", err
	}
	cb, err := r.commit(b)
	if err != nil {
		return "", err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return "", nil
	}
	return fromPlumbing(bases[0].Hash), nil
}
