// Package lineage finds, for a task line a commit holds checked, the ticks
// it comes from: the commits where that line became checked, by ancestry
// (docs/format.md#the-gates-model: Range, Lineage, Origins). It reads what the tick walk
// found in a range (each commit against its first parent, tick.Walk),
// compares each merge of the range with its other parents itself (tick.Compare),
// and walks beyond the range only to tell whether a merge reopens a line the
// range brought in from outside it.
//
// A History is built from one walk of base..head: New with the walk's
// listing, Add with each commit's ticks and moves as the walk finds them,
// then Finish. Trace then answers for any task a commit of the range (head,
// in the gate) holds checked.
package lineage

import (
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// Kind is what an origin is (model: Origins).
type Kind uint8

// The kinds of Origin.
const (
	// KindTick: the commit's parents have the task open or absent (and a
	// parent has it open), or the commit reopens it (Origin.Reopens).
	KindTick Kind = iota + 1
	// KindBorn: no parent has the task.
	KindBorn
	// KindEdit: a parent has the task checked with another line, and none
	// has it checked with the commit's.
	KindEdit
)

func (k Kind) String() string {
	switch k {
	case KindTick:
		return "tick"
	case KindBorn:
		return "born"
	case KindEdit:
		return "edit"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Task names a task at a commit: its tasks file's path and its key, the task
// ID and which of the file's lines with that ID it is (tick.Tick.Nth).
type Task struct {
	Path string
	ID   string
	Nth  int
}

// Origin is a commit of the range where a traced line became checked (model:
// Origins), and the task as that commit has it.
type Origin struct {
	Commit gitref.Hash
	Task
	Kind Kind
	// Reopens: a merge checking again what one of its parents took back
	// (Kind is KindTick).
	Reopens bool
	// NewFile: the task's tasks file comes from no file of any parent (a
	// root commit's, or one a commit adds): Kind is KindBorn.
	NewFile bool
	// MovedOver: the traced line comes from this origin through a move onto
	// a path where the base has a unit's tasks file (SetBase), made by a
	// commit none of whose parents had a tasks file there: a tick of another
	// unit's file put over the base's (model step 4).
	MovedOver bool
}

// Entry is a parent outside the range holding a traced line: where the line
// comes into the range from the base's history (model: Requirements), and the task
// as that parent has it.
type Entry struct {
	Commit gitref.Hash
	Task
}

// Result is where a checked line comes from: its origins in the range and
// the parents outside it that hold it. Both are sorted and free of repeats.
type Result struct {
	Origins []Origin
	Entries []Entry
}

// state is how a parent has a task that a commit has (a task box change
// between the two, tick.Kind): the commit has it checked, and the parent
// open (stOpen), not at all (stAbsent) or checked with another line
// (stOther); or the commit has it open and the parent checked (stUntick). No
// change means the parent has it as the commit does.
type state uint8

const (
	stOpen state = iota + 1
	stAbsent
	stOther
	stUntick
	// stNewFile: stAbsent, the commit's tasks file coming from no file of
	// the parent.
	stNewFile
)

func stateOf(t *tick.Tick) (state, bool) {
	switch t.Kind {
	case tick.KindTick:
		if t.Born {
			return stAbsent, true
		}
		return stOpen, true
	case tick.KindBornTicked:
		return stNewFile, true
	case tick.KindEdit:
		return stOther, true
	case tick.KindUntick:
		return stUntick, true
	}
	return 0, false
}

// key is a Task with its path and ID interned.
type key struct {
	path, id int32
	nth      int32
}

// diff is a commit's task box changes and moves against one parent.
type diff struct {
	states map[key]state
	from   map[int32]int32 // a moved file's path → its path at the parent
}

// History is what a walk of a range found, indexed for Trace. Not safe for
// concurrent use.
type History struct {
	r       *gitref.Repo
	layouts *specfmt.Layouts

	ids     []gitref.Hash
	at      map[gitref.Hash]int32
	parents [][]gitref.Hash
	trees   []gitref.Hash
	// The first-parent forest of the range: fp is a commit's first parent
	// (-1 outside the range or none); depth its depth, tin and tout its
	// visit times (a is first-parent ancestor of x when tin[a] ≤ tin[x] and
	// tout[x] ≤ tout[a]); merge the nearest merge on its first-parent chain,
	// itself included (-1: none).
	fp, depth, tin, tout, merge []int32
	// root is the first commit of a commit's first-parent chain in the range.
	root []int32
	// stopAt is the nearest merge on a commit's first-parent chain, itself
	// included, that every trace stops at (-1: none); stopKey and stopPath
	// list the merges the traces of a task, or of a path, stop at besides
	// (merges.go).
	stopAt   []int32
	stopKey  map[key][]int32
	stopPath map[int32][]int32

	strs  []string
	strID map[string]int32

	// first[c] is commit c's diff against its first parent (nil: none);
	// byKey lists the commits with a change of a task against their first
	// parent, movedTo those moving a file to a path.
	first   map[int32]*diff
	byKey   map[key][]int32
	movedTo map[int32][]int32
	// sides are the merges' diffs against their other parents, [commit,
	// parent slot], filled by Finish.
	sides map[[2]int32]*diff
	// movedOut are the moves of a unit's tasks file out of the tasks files
	// (tick.KindMovedOut) that a merge makes against its other parents,
	// filled by Finish.
	movedOut []tick.Tick
	// keyed marks the task IDs with any change in the range (any path, any
	// parent): a line of any other ID is traced by its file alone.
	keyed map[int32]bool
	// touched marks the paths with a change or a move (Touched).
	touched map[int32]bool
	// baseUnits marks the paths of the base's units' tasks files (SetBase).
	baseUnits map[int32]bool

	// ancestry caches inHistory's answers; subs the histories of the
	// commits a parent lacks (enters), by parent and entry commit.
	ancestry map[[2]int32]bool
	subs     map[[2]gitref.Hash]*History
	finished bool
}

// New starts the History of the range whose listing is l (gitref.Repo.List,
// the tick walk's: parents before children). layouts are the walk's.
func New(r *gitref.Repo, layouts *specfmt.Layouts, l *gitref.Listing) *History {
	n := l.Len()
	h := &History{r: r, layouts: layouts, ids: make([]gitref.Hash, n), at: make(map[gitref.Hash]int32, n),
		parents: make([][]gitref.Hash, n), trees: make([]gitref.Hash, n),
		strID: map[string]int32{}, first: map[int32]*diff{}, byKey: map[key][]int32{}, movedTo: map[int32][]int32{},
		sides: map[[2]int32]*diff{}, keyed: map[int32]bool{}, touched: map[int32]bool{},
		ancestry: map[[2]int32]bool{}, subs: map[[2]gitref.Hash]*History{}}
	for i := range n {
		link := l.Link(i)
		h.ids[i], h.parents[i], h.trees[i] = link.ID, link.Parents, link.Tree
		h.at[link.ID] = int32(i)
	}
	h.forest()
	return h
}

// forest computes the first-parent forest's arrays.
func (h *History) forest() {
	n := len(h.ids)
	h.fp, h.depth, h.tin, h.tout, h.merge, h.root = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
	children := make([][]int32, n)
	var roots []int32
	for i := range n {
		h.fp[i], h.merge[i] = -1, -1
		if ps := h.parents[i]; len(ps) > 0 {
			if j, ok := h.at[ps[0]]; ok {
				h.fp[i] = j
			}
		}
		// The listing has parents first: fp[i]'s arrays are set.
		h.root[i] = int32(i)
		if j := h.fp[i]; j >= 0 {
			h.depth[i] = h.depth[j] + 1
			h.merge[i] = h.merge[j]
			h.root[i] = h.root[j]
			children[j] = append(children[j], int32(i))
		} else {
			roots = append(roots, int32(i))
		}
		if len(h.parents[i]) > 1 {
			h.merge[i] = int32(i)
		}
	}
	// Visit times, without recursion (a first-parent chain is as long as
	// the range).
	t := int32(0)
	type frame struct {
		c    int32
		next int
	}
	for _, r := range roots {
		stack := []frame{{r, 0}}
		h.tin[r] = t
		t++
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(children[f.c]) {
				c := children[f.c][f.next]
				f.next++
				h.tin[c] = t
				t++
				stack = append(stack, frame{c, 0})
				continue
			}
			h.tout[f.c] = t
			t++
			stack = stack[:len(stack)-1]
		}
	}
}

func (h *History) str(s string) int32 {
	id, ok := h.strID[s]
	if !ok {
		id = int32(len(h.strs))
		h.strs = append(h.strs, s)
		h.strID[s] = id
	}
	return id
}

func (h *History) keyOf(t Task) key {
	return key{h.str(t.Path), h.str(t.ID), int32(t.Nth)}
}

// Add records a commit's ticks and moves against its first parent, as the
// tick walk reports them (tick.Each: one call per commit, in any order).
func (h *History) Add(ticks []tick.Tick, moves []tick.Move) error {
	var commit gitref.Hash
	if len(ticks) > 0 {
		commit = ticks[0].Commit
	} else if len(moves) > 0 {
		commit = moves[0].Commit
	} else {
		return nil
	}
	c, ok := h.at[commit]
	if !ok {
		return fmt.Errorf("lineage: commit %s is not in the range", commit)
	}
	if h.first[c] != nil {
		return fmt.Errorf("lineage: commit %s added twice", commit)
	}
	d := h.diffOf(ticks, moves)
	if d == nil {
		return nil
	}
	h.first[c] = d
	for k := range d.states {
		h.byKey[k] = append(h.byKey[k], c)
	}
	for to := range d.from {
		h.movedTo[to] = append(h.movedTo[to], c)
	}
	return nil
}

// diffOf indexes a commit's changes against one parent; nil when there are
// none the trace reads.
func (h *History) diffOf(ticks []tick.Tick, moves []tick.Move) *diff {
	var d *diff
	for i := range ticks {
		s, ok := stateOf(&ticks[i])
		if !ok {
			continue
		}
		if d == nil {
			d = &diff{states: map[key]state{}}
		}
		k := h.keyOf(Task{ticks[i].Path, ticks[i].TaskID, ticks[i].Nth})
		d.states[k] = s
		h.keyed[k.id] = true
		h.touched[k.path] = true
	}
	for _, m := range moves {
		if d == nil {
			d = &diff{states: map[key]state{}}
		}
		if d.from == nil {
			d.from = map[int32]int32{}
		}
		to, from := h.str(m.Path), h.str(m.OldPath)
		d.from[to] = from
		h.touched[to], h.touched[from] = true, true
	}
	return d
}

// SetBase names the paths where the base has a unit's tasks file, for
// Origin.MovedOver. Call it before Trace.
func (h *History) SetBase(paths []string) {
	h.baseUnits = make(map[int32]bool, len(paths))
	for _, p := range paths {
		h.baseUnits[h.str(p)] = true
	}
}

// Touched reports whether a commit of the range changes a task of a tasks
// file at path against a parent, or moves a file to or from path: a file
// the base holds as head does at a path no commit touched has every line it
// holds checked from the base.
func (h *History) Touched(path string) bool {
	i, ok := h.strID[path]
	return ok && h.touched[i]
}

// Finish compares each merge of the range with its other parents (model:
// Range: not with a parent a merge discarded). Trace needs it.
func (h *History) Finish() error {
	if h.finished {
		return nil
	}
	for c := range h.ids {
		ps := h.parents[c]
		if len(ps) < 2 {
			continue
		}
		slots, err := h.considered(int32(c))
		if err != nil {
			return err
		}
		link := gitref.Link{ID: h.ids[c], Tree: h.trees[c], Parents: ps}
		for _, s := range slots {
			if s == 0 {
				continue
			}
			pc, err := h.r.Commit(ps[s])
			if err != nil {
				return err
			}
			ticks, moves, err := tick.Compare(h.r, link, pc.Link, h.layouts)
			if err != nil {
				return err
			}
			for _, t := range ticks {
				if t.Kind == tick.KindMovedOut {
					h.movedOut = append(h.movedOut, t)
				}
			}
			if d := h.diffOf(ticks, moves); d != nil {
				h.sides[[2]int32{int32(c), int32(s)}] = d
			}
		}
	}
	h.mergeSides()
	h.finished = true
	return nil
}

// MovedOut returns the moves out of the tasks files (tick.KindMovedOut)
// that the range's merges make against their other parents than the first
// (the walk compares a commit with its first parent): what a merge's own
// resolution moves out of a unit its first parent lacks. Finish finds them.
func (h *History) MovedOut() []tick.Tick { return h.movedOut }

// considered returns the parent slots commit c is compared with (model:
// Range): all of them, or the one whose tree is c's.
func (h *History) considered(c int32) ([]int, error) {
	ps := h.parents[c]
	if len(ps) < 2 {
		if len(ps) == 0 {
			return nil, nil
		}
		return []int{0}, nil
	}
	for s, p := range ps {
		tree, err := h.treeOf(p)
		if err != nil {
			return nil, err
		}
		if tree == h.trees[c] {
			return []int{s}, nil
		}
	}
	all := make([]int, len(ps))
	for s := range ps {
		all[s] = s
	}
	return all, nil
}

func (h *History) treeOf(c gitref.Hash) (gitref.Hash, error) {
	if i, ok := h.at[c]; ok {
		return h.trees[i], nil
	}
	cc, err := h.r.Commit(c)
	if err != nil {
		return "", err
	}
	return cc.Tree, nil
}

// diffAt is commit c's diff against its parent in slot s (nil: no change).
func (h *History) diffAt(c int32, s int) *diff {
	if s == 0 {
		return h.first[c]
	}
	return h.sides[[2]int32{c, int32(s)}]
}

// Earlier is a parent's version of a commit's tasks file: the parent, the
// file's path there, and whether the parent is a commit of the range.
type Earlier struct {
	Commit  gitref.Hash
	Path    string
	InRange bool
}

// ParentPaths is where the tasks file a commit of the range has at path
// comes from at each parent the commit is compared with (model: Range and
// Lineage): path itself, or where a move the commit makes against that
// parent brings the file from. A file new at the commit is at no path of
// the parent: reading path there finds nothing.
func (h *History) ParentPaths(commit gitref.Hash, path string) ([]Earlier, error) {
	c, ok := h.at[commit]
	if !ok {
		return nil, nil
	}
	slots, err := h.considered(c)
	if err != nil {
		return nil, err
	}
	out := make([]Earlier, 0, len(slots))
	for _, s := range slots {
		e := Earlier{Commit: h.parents[c][s], Path: path}
		if d := h.diffAt(c, s); d != nil {
			if p, ok := h.strID[path]; ok {
				if from, ok := d.from[p]; ok {
					e.Path = h.strs[from]
				}
			}
		}
		_, e.InRange = h.at[e.Commit]
		out = append(out, e)
	}
	return out, nil
}

// IsTick reports whether a commit of the range is where the task t it holds
// checked became checked (model: Origins; no parent it is compared with holds
// the line) — false for a merge bringing in a side's tick. A commit with one
// parent is a tick of whatever the walk found it ticking.
func (h *History) IsTick(commit gitref.Hash, t Task) (bool, error) {
	c, ok := h.at[commit]
	if !ok {
		return false, fmt.Errorf("lineage: commit %s is not in the range", commit)
	}
	slots, err := h.considered(c)
	if err != nil {
		return false, err
	}
	k := h.keyOf(t)
	for _, s := range slots {
		if d := h.diffAt(c, s); d == nil || d.states[k] == 0 {
			return false, nil
		}
	}
	return true, nil
}

// Keyed reports whether any commit of the range changes a task with this ID
// against a parent: a line of another ID comes from where its file does
// (TraceFile).
func (h *History) Keyed(id string) bool {
	i, ok := h.strID[id]
	return ok && h.keyed[i]
}
