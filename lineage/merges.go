package lineage

// Which merges a trace must stop at. A trace stops at every commit that
// changes its task against its first parent or moves a file to its path;
// a merge in between matters only when its other side may bring something
// else: a change of the task or a move of its path in the commits the side
// has that the first parent lacks, or at the merge against that side. A
// merge whose side changes nothing of the line holds it as the first parent
// does, with what the first parent's line comes from (the side's line comes
// from the first parent's history, where the first parent's line comes from
// the same origins, or from ticks the first parent took back and ticked
// again; model: Origins), so the trace follows the first parent through it.
// Without this, tracing every line of a history of N pull-request merges
// passes N merges per line.

// sideBudget bounds the commits looked at for one merge's side; a merge with
// a longer side (a long-lived branch merging the base) is stopped at by
// every trace.
const sideBudget = 4096

// mergeSides computes, once Finish has compared the merges with their other
// parents, which merges each trace stops at (always, or for the tasks and
// paths their sides change).
func (h *History) mergeSides() {
	n := len(h.ids)
	h.stopAt = make([]int32, n)
	h.stopKey, h.stopPath = map[key][]int32{}, map[int32][]int32{}
	seen := make([]int32, n) // the merge (+1) whose side last visited a commit
	for c := range n {
		h.stopAt[c] = -1
		if j := h.fp[c]; j >= 0 {
			h.stopAt[c] = h.stopAt[j]
		}
		if len(h.parents[c]) < 2 {
			continue
		}
		keys, paths, always := h.side(int32(c), seen)
		if always {
			h.stopAt[c] = int32(c)
			continue
		}
		for k := range keys {
			h.stopKey[k] = append(h.stopKey[k], int32(c))
		}
		for p := range paths {
			h.stopPath[p] = append(h.stopPath[p], int32(c))
		}
	}
}

// side returns the tasks and paths merge m's other side changes (its own
// commits', and m's against it), or always: every trace must stop at m (an
// octopus merge, a merge that keeps its side's tree, a side reaching past
// the range or a root commit, a side longer than sideBudget). The side's
// commits are those its parent reaches in the range before the first
// parent's first-parent chain: at least the commits the first parent lacks.
func (h *History) side(m int32, seen []int32) (keys map[key]bool, paths map[int32]bool, always bool) {
	ps := h.parents[m]
	if len(ps) != 2 {
		return nil, nil, true
	}
	slots, err := h.considered(m)
	switch {
	case err != nil:
		return nil, nil, true
	case len(slots) == 1 && slots[0] == 0:
		return nil, nil, false // the side's changes were discarded: nothing
	case len(slots) == 1:
		return nil, nil, true
	}
	keys, paths = map[key]bool{}, map[int32]bool{}
	add := func(d *diff) {
		if d == nil {
			return
		}
		for k := range d.states {
			keys[k] = true
		}
		for to, from := range d.from {
			paths[to], paths[from] = true, true
		}
	}
	add(h.sides[[2]int32{m, 1}])
	p1 := h.fp[m]
	q, ok := h.at[ps[1]]
	if !ok || p1 < 0 {
		return nil, nil, true
	}
	stack := []int32{q}
	seen[q] = m + 1
	visited := 0
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h.fpAncestor(c, p1) {
			continue // the first parent's history, on its first-parent chain
		}
		if visited++; visited > sideBudget || len(h.parents[c]) == 0 {
			return nil, nil, true
		}
		add(h.first[c])
		for s := 1; s < len(h.parents[c]); s++ {
			add(h.sides[[2]int32{c, int32(s)}])
		}
		for _, p := range h.parents[c] {
			j, ok := h.at[p]
			if !ok {
				return nil, nil, true // past the range: the side's line may come in elsewhere
			}
			if seen[j] != m+1 {
				seen[j] = m + 1
				stack = append(stack, j)
			}
		}
	}
	return keys, paths, false
}
