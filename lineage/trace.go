package lineage

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/tick"
)

// res is one element of a trace's result: an origin (a commit of the range)
// or an entry (a parent outside it), with the task's path there.
type res struct {
	origin  bool
	commit  int32       // an origin's commit
	entry   gitref.Hash // an entry's parent
	path    int32
	kind    Kind
	reopens bool
	newFile bool
	over    bool
}

// tracer traces one line: its ID and occurrence are fixed, its path follows
// the moves. memo holds, per commit of the range and path, where the line
// the commit holds there comes from.
type tracer struct {
	h       *History
	id, nth int32
	memo    map[[2]int32][]res
}

// Trace returns where the task t that commit at holds checked comes from
// (model: Origins). at is a commit of the range (the gate's head); a commit
// outside it is the line's entry itself. Finish must have been called.
func (h *History) Trace(at gitref.Hash, t Task) (Result, error) {
	return h.trace(at, t.Path, h.str(t.ID), int32(t.Nth), t.ID, t.Nth)
}

// TraceFile is Trace for a task of the tasks file at path whose ID no commit
// of the range changes (Keyed is false): such a line comes from where its
// file does, as every other such line of the file. The result's tasks have
// only their Path set.
func (h *History) TraceFile(at gitref.Hash, path string) (Result, error) {
	return h.trace(at, path, -1, 0, "", 0)
}

func (h *History) trace(at gitref.Hash, path string, id, nth int32, ids string, nths int) (Result, error) {
	if !h.finished {
		return Result{}, fmt.Errorf("lineage: Trace before Finish")
	}
	c, ok := h.at[at]
	if !ok {
		return Result{Entries: []Entry{{Commit: at, Task: Task{path, ids, nths}}}}, nil
	}
	tr := &tracer{h: h, id: id, nth: nth, memo: map[[2]int32][]res{}}
	rs, err := tr.rec(c, h.str(path))
	if err != nil {
		return Result{}, err
	}
	var out Result
	for _, r := range rs {
		t := Task{h.strs[r.path], ids, nths}
		if r.origin {
			out.Origins = append(out.Origins, Origin{Commit: h.ids[r.commit], Task: t, Kind: r.kind, Reopens: r.reopens, NewFile: r.newFile, MovedOver: r.over})
		} else {
			out.Entries = append(out.Entries, Entry{Commit: r.entry, Task: t})
		}
	}
	slices.SortFunc(out.Origins, func(a, b Origin) int {
		return cmp.Or(cmp.Compare(a.Commit, b.Commit), cmp.Compare(a.Path, b.Path))
	})
	slices.SortFunc(out.Entries, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Commit, b.Commit), cmp.Compare(a.Path, b.Path))
	})
	return out, nil
}

// rec is where the line commit x holds checked at path comes from.
func (tr *tracer) rec(x, path int32) ([]res, error) {
	mk := [2]int32{x, path}
	if r, ok := tr.memo[mk]; ok {
		return r, nil
	}
	h := tr.h
	k := key{path, tr.id, tr.nth}
	var out []res
	// Between x and y, the commits change nothing of the line against their
	// first parent and move no file to its path, and a merge among them has
	// a side that changes nothing of it: each holds it as its first parent
	// does, from what the first parent's line comes from (merges.go).
	y := h.nearest(x, k)
	if y < 0 {
		root := h.root[x]
		if ps := h.parents[root]; len(ps) == 0 {
			out = []res{{origin: true, commit: root, path: path, kind: KindBorn, newFile: true}}
		} else {
			out = []res{{entry: ps[0], path: path}}
		}
	} else {
		var err error
		if out, err = tr.at(y, path); err != nil {
			return nil, err
		}
		tr.memo[[2]int32{y, path}] = out
	}
	tr.memo[mk] = out
	return out, nil
}

// at is rec at a commit y whose parents the line may differ at (model: Origins).
func (tr *tracer) at(y, path int32) ([]res, error) {
	h := tr.h
	k := key{path, tr.id, tr.nth}
	slots, err := h.considered(y)
	if err != nil {
		return nil, err
	}
	type holder struct {
		slot int
		path int32
	}
	var (
		holders    []holder
		takenBack  []int // parents with the task open
		other      bool
		absentOnly = true
		newFile    = true // absent with its file at every parent
	)
	for _, s := range slots {
		d := h.diffAt(y, s)
		var st state
		if d != nil {
			st = d.states[k]
		}
		switch st {
		case 0:
			p := path
			if d != nil {
				if f, ok := d.from[path]; ok {
					p = f
				}
			}
			holders = append(holders, holder{s, p})
			newFile = false
		case stOpen:
			takenBack = append(takenBack, s)
			absentOnly, newFile = false, false
		case stAbsent:
			newFile = false
		case stNewFile:
		case stOther:
			other, absentOnly, newFile = true, false, false
		case stUntick:
			return nil, fmt.Errorf("lineage: %s has %s line %d of %s open, traced as checked", h.ids[y], h.strs[path], tr.nth, h.str2(tr.id))
		}
	}
	if len(holders) == 0 {
		kind := KindTick
		switch {
		case other:
			kind = KindEdit
		case absentOnly:
			kind = KindBorn
		}
		return []res{{origin: true, commit: y, path: path, kind: kind, newFile: kind == KindBorn && newFile}}, nil
	}
	// What each holding parent's line comes from.
	held := make([][]res, len(holders))
	for i, hd := range holders {
		p := h.parents[y][hd.slot]
		if j, ok := h.at[p]; ok {
			rs, err := tr.rec(j, hd.path)
			if err != nil {
				return nil, err
			}
			held[i] = rs
		} else {
			held[i] = []res{{entry: p, path: hd.path}}
		}
	}
	// A parent that has the task open and one of the line's origins in its
	// history took that tick back: y checks the line again. A holding
	// parent that has one in its history, its own line not coming from it,
	// took it back and ticked the line again: its own origins carry the line.
	qs := make([]gitref.Hash, len(takenBack))
	for i, s := range takenBack {
		qs[i] = h.parents[y][s]
	}
	var out []res
	reopened := false
	for i := range holders {
		over := holders[i].path != path && h.movedOver(y, slots, path, k)
		for _, c := range held[i] {
			kept := true
			if len(qs) > 0 {
				back, k, err := tr.takenBack(c, qs)
				if err != nil {
					return nil, err
				}
				reopened, kept = reopened || back, k
			}
			for j := range holders {
				if !kept || j == i {
					continue
				}
				again, err := tr.tickedAgain(c, h.parents[y][holders[j].slot], held[j])
				if err != nil {
					return nil, err
				}
				kept = !again
			}
			if kept {
				if over && c.origin {
					c.over = true
				}
				out = append(out, c)
			}
		}
	}
	if reopened || len(out) == 0 {
		out = append(out, res{origin: true, commit: y, path: path, kind: KindTick, reopens: true})
	}
	return uniq(out), nil
}

// tickedAgain tells whether q, a parent of a merge holding the traced line
// whose line comes from qs (rec's result for q), took back and ticked again
// what c (an origin or entry another holding parent brings) stands for: c's
// origins are in q's history and q's line comes from none of them. An
// origin of the range is one commit; for an entry, the answer is yes only
// where it is sure: every entry of q's line comes from commits after c
// alone (traced through the commits of its history that c's lacks, the line
// comes into none of c's history). Otherwise c stays, and with it the base's
// hold on it (model: Requirements): never fewer requirements than the model's.
func (tr *tracer) tickedAgain(c res, q gitref.Hash, qs []res) (bool, error) {
	h := tr.h
	for _, x := range qs {
		if x == c {
			return false, nil
		}
	}
	if c.origin {
		qi, ok := h.at[q]
		return ok && h.inHistory(c.commit, qi), nil
	}
	if tr.id < 0 {
		// A line traced by its file alone: kept (the gate traces a line
		// coming into the range at several commits on its own).
		return false, nil
	}
	in, err := h.r.IsAncestor(c.entry, q)
	if err != nil || !in {
		return false, err
	}
	t := Task{Path: "", ID: h.strs[tr.id], Nth: int(tr.nth)}
	for _, x := range qs {
		if x.origin {
			continue // a commit of the range: not in c's history
		}
		if x.entry == c.entry {
			return false, nil
		}
		t.Path = h.strs[x.path]
		r, inHistory, err := h.enters(c.entry, x.entry, t)
		if err != nil || inHistory || len(r.Entries) > 0 {
			return false, err
		}
	}
	return true, nil
}

func (h *History) str2(id int32) string {
	if id < 0 {
		return "(any ID)"
	}
	return h.strs[id]
}

// uniq sorts rs and drops repeats.
func uniq(rs []res) []res {
	slices.SortFunc(rs, func(a, b res) int {
		if a.origin != b.origin {
			if a.origin {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.commit, b.commit), cmp.Compare(a.entry, b.entry), cmp.Compare(a.path, b.path),
			cmp.Compare(a.kind, b.kind), cmp.Compare(b2i(a.reopens), b2i(b.reopens)), cmp.Compare(b2i(a.newFile), b2i(b.newFile)),
			cmp.Compare(b2i(a.over), b2i(b.over)))
	})
	return slices.CompactFunc(rs, func(a, b res) bool { return a == b })
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nearest is the nearest commit on x's first-parent chain, x included, that
// changes the task k against its first parent, moves a file to k's path, or
// is a merge whose other side may bring something else of k (merges.go);
// -1 when there is none in the range.
func (h *History) nearest(x int32, k key) int32 {
	best := h.stopAt[x]
	bd := int32(-1)
	if best >= 0 {
		bd = h.depth[best]
	}
	for _, list := range [4][]int32{h.byKey[k], h.movedTo[k.path], h.stopKey[k], h.stopPath[k.path]} {
		for _, e := range list {
			if h.depth[e] > bd && h.fpAncestor(e, x) {
				best, bd = e, h.depth[e]
			}
		}
	}
	return best
}

// fpAncestor reports whether a is on x's first-parent chain (x included).
func (h *History) fpAncestor(a, x int32) bool {
	return h.tin[a] <= h.tin[x] && h.tout[x] <= h.tout[a]
}

// takenBack tells, for c, an origin or entry of the line a merge's holding
// parents bring, and qs, the merge's parents that have the task open:
// whether one of the origins c stands for is in a parent's history
// (back: the merge reopens it), and whether one is in none (kept: c stays an
// origin or entry of the merge's line). An origin is one commit; an entry
// stands for the origins of the line it holds, outside the range.
func (tr *tracer) takenBack(c res, qs []gitref.Hash) (back, kept bool, err error) {
	h := tr.h
	if c.origin {
		// A commit of the range is never in the history of a commit outside
		// it (the base's history).
		for _, q := range qs {
			if qi, ok := h.at[q]; ok && h.inHistory(c.commit, qi) {
				return true, false, nil
			}
		}
		return false, true, nil
	}
	// A line traced by its file alone (TraceFile) has no change anywhere in
	// the range, so no parent has it open: c is an entry of a keyed line.
	t := Task{h.strs[c.path], h.strs[tr.id], int(tr.nth)}
	var left []gitref.Hash // the entry's origins not in the parents' histories so far
	for i, q := range qs {
		if i == 0 {
			r, inHistory, err := h.enters(q, c.entry, t)
			if err != nil {
				return false, false, err
			}
			if inHistory {
				return true, false, nil
			}
			back = len(r.Entries) > 0
			for _, o := range r.Origins {
				left = append(left, o.Commit)
			}
			continue
		}
		var still []gitref.Hash
		for _, o := range left {
			in, err := h.r.IsAncestor(o, q)
			if err != nil {
				return false, false, err
			}
			if in {
				back = true
			} else {
				still = append(still, o)
			}
		}
		left = still
	}
	return back, len(left) > 0, nil
}

// inHistory reports whether commit c of the range is in the history of its
// commit q. The listing puts parents before children, so only commits
// listed after c can lead from q to it; the answer is remembered.
func (h *History) inHistory(c, q int32) bool {
	switch {
	case c == q || h.fpAncestor(c, q):
		return true
	case c > q:
		return false
	}
	k := [2]int32{c, q}
	if v, ok := h.ancestry[k]; ok {
		return v
	}
	found := false
	seen := map[int32]bool{q: true}
	stack := []int32{q}
	for len(stack) > 0 && !found {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range h.parents[x] {
			j, ok := h.at[p]
			if !ok || j < c || seen[j] {
				continue
			}
			if j == c || h.fpAncestor(c, j) {
				found = true
				break
			}
			seen[j] = true
			stack = append(stack, j)
		}
	}
	h.ancestry[k] = found
	return found
}

// enters traces the line entry b holds (task t there) through the commits
// of b's history that q's lacks: its origins there are the line's origins
// outside q's history, and its entries are where it comes from q's history
// (so that some origin is in it). inHistory: b is in q's history itself.
func (h *History) enters(q, b gitref.Hash, t Task) (r Result, inHistory bool, err error) {
	sub, err := h.sub(q, b)
	if err != nil || sub == nil {
		return Result{}, sub == nil, err
	}
	r, err = sub.Trace(b, t)
	return r, false, err
}

// sub is the History of the commits of b's history that q's lacks, walked
// once per q and b; nil when there are none (b is in q's history).
func (h *History) sub(q, b gitref.Hash) (*History, error) {
	sk := [2]gitref.Hash{q, b}
	if sub, ok := h.subs[sk]; ok {
		return sub, nil
	}
	l, err := h.r.List(q, b, false)
	if err != nil {
		return nil, err
	}
	var sub *History
	if l.Len() > 0 {
		sub = New(h.r, h.layouts, l)
		if _, err := tick.Each(h.r, q, b, tick.Options{Layouts: h.layouts}, func(ts []tick.Tick, ms []tick.Move) error {
			return sub.Add(ts, ms)
		}); err != nil {
			return nil, err
		}
		if err := sub.Finish(); err != nil {
			return nil, err
		}
	}
	h.subs[sk] = sub
	return sub, nil
}

// Comes reports whether the task t that commit to holds checked comes from
// from's task at path (same key): traced back through the commits of to's
// history that from's lacks, its line comes from from, or to is from and
// path is t's. from is in to's history (the base's, in the gate: the hold of
// the model's Requirements on a line coming into the range at from).
func (h *History) Comes(from gitref.Hash, path string, to gitref.Hash, t Task) (bool, error) {
	if from == to {
		return path == t.Path, nil
	}
	sub, err := h.sub(from, to)
	if err != nil || sub == nil {
		return false, err
	}
	r, err := sub.Trace(to, t)
	if err != nil {
		return false, err
	}
	for _, e := range r.Entries {
		if e.Commit == from && e.Path == path {
			return true, nil
		}
	}
	return false, nil
}

// movedOver tells whether commit y's tasks file at path, which a holding
// parent has at another path, was moved onto a path where the base has a
// unit's tasks file (SetBase) while no parent y is compared with (slots) has
// a tasks file there: another unit's file put over the base's (model step 4).
// A parent lacks the file at path when y's file there comes from another of
// its paths, or from none of its files (the traced line, checked, is then
// stNewFile).
func (h *History) movedOver(y int32, slots []int, path int32, k key) bool {
	if !h.baseUnits[path] {
		return false
	}
	for _, s := range slots {
		d := h.diffAt(y, s)
		if d == nil {
			return false
		}
		if _, moved := d.from[path]; !moved && d.states[k] != stNewFile {
			return false
		}
	}
	return true
}
