package gitref

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// TickKind is the kind of a task box change found between a commit and its
// first parent.
type TickKind string

// The kinds of Tick.
const (
	// KindTick: the parent's line is open ("[ ]", Kiro also "[-]") and the
	// commit's is ticked ("[x]"/"[X]") — a tick
	// (docs/format.md#units-and-task-lines); or the task is ticked in the
	// commit and has no line in the parent's version of the tasks file (Born).
	KindTick TickKind = "tick"
	// KindUntick: ticked in the parent, open in the commit.
	KindUntick TickKind = "untick"
	// KindEdit: ticked in both, but the line's text (read as open) changed: a
	// task line edited after its tick (docs/format.md#gate-rules).
	KindEdit TickKind = "edit"
	// KindBornTicked: a ticked task in a tasks file that is new in the commit
	// (absent at the parent and not a rename or move of one of the parent's
	// tasks files). It is not a tick (docs/format.md#units-and-task-lines:
	// nothing goes from open to ticked; a merged feature branch or an imported
	// unit brings its ticked file), but is reported so that a merge gate can
	// list it. Born is set; Before and OldPath are "" and OldLine is 0.
	KindBornTicked TickKind = "born_ticked"
	// KindNotRegular: Path, in Commit, is a symbolic link or a submodule
	// (gitlink) where a tasks file, or a directory on a unit layout's
	// tasks-file path, is (docs/format.md#tasks-files-are-regular-files):
	// what the link stands for is not what git diffs, so the gate cannot see
	// its ticks. Irregular names the entry's kind; TaskID and lines are "".
	KindNotRegular TickKind = "not_regular"
)

// Tick is one task box change of a commit against its first parent.
type Tick struct {
	Kind    TickKind
	Commit  Hash   // the commit making the change (the tick commit)
	Parent  Hash   // its first parent
	Merge   bool   // the commit is a merge (the change is against its first parent)
	Path    string // the tasks file in Commit
	OldPath string // the tasks file in Parent (differs from Path when the file moved)
	Line    int    // 1-based line number in Path at Commit
	OldLine int    // 1-based line number in OldPath at Parent
	// Unit is the task's unit. Its Dir is repository-relative: for a unit of
	// a nested project (Root not ""), Root/<unit.dir> as the project's
	// statements write unit.dir (docs/format.md#project-root), so that every
	// key built from it tells two projects' units apart; [Tick.ProjectUnit]
	// is the unit as the project names it.
	Unit specfmt.Unit
	// Root is the nested project root (the nearest ancestor directory of
	// Path holding speccoder.toml), "" for the repository's root.
	Root   string
	TaskID string
	Before string // the task line at Parent, without line ending ("" when Born)
	After  string // the task line at Commit, without line ending
	// LineHash is the lowercase hex SHA-256 of After read as open
	// (Task.OpenLine, docs/format.md#hash-recipes line_hash): the task line as the tick commit has
	// it, which is what a verifier recomputes from the object's tasks file
	// (docs/format.md#verification-rules) and what an attestation of the tick binds.
	LineHash string
	// TextChanged: the line read as open differs between Parent and Commit (for
	// a tick, the tick commit also edited the task's text; LineHash covers the
	// new text). Information only; false when Born.
	TextChanged bool
	// Born: the task has no predecessor at the parent — its ID (for an ID-less
	// task, the ID derived from its title) is not in the parent's version of
	// the tasks file, or the file is new. A Born task ticked in a tasks file
	// that the parent has (same path, or followed across a rename or move) is a
	// tick (KindTick): adding "- [x] T099 …" to an existing file, or rewording
	// an ID-less task while ticking it, must be evidenced like any tick. A Born
	// task ticked in a new file is KindBornTicked. Before and OldLine are then
	// "" and 0.
	Born bool
	// Derived: the task line carries no written task ID; TaskID is derived from
	// its title (specfmt.DeriveID, "h-" + 12 hex digits, "-n" for repeats), so
	// the line is matched across the commit by its title.
	Derived bool
	// Ambiguous, when not "", is why the task cannot be named unambiguously:
	// the tasks file (at Commit, else at Parent) repeats this tick's TaskID
	// ("specfmt: duplicate task id "5.3" on lines 45 and 49", the
	// specfmt.TasksFile.Lookup error). Only ticks of the repeated ID are
	// marked: the file's other tasks are named unambiguously and are ordinary
	// ticks. Repeated lines are still reported, with their real TaskID (paired
	// by order of occurrence); such a tick is its line, which an attestation
	// names by LineHash (the ID alone cannot:
	// docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line,
	// also when its task ID repeats").
	Ambiguous string
	// Unrecognized: Path is a file named tasks.md (any case) that is no
	// unit layout's and not ignored (specfmt.UnrecognizedTasksFile): its
	// ticks are listed, and fail the gate (docs/format.md#tasks-files). Unit
	// is then only what the file was parsed as (speckit, its directory).
	Unrecognized bool
	// Irregular is, for KindNotRegular, "symlink" or "submodule".
	Irregular string
	// Task is the task as parsed from Path at Commit (specfmt.ParseTasks with
	// AllowDuplicateIDs): what a verifier needs of the task line without
	// parsing the file again (its open line, markers and requirements for the
	// spec section). When Ambiguous is "", it is the one task of the file with
	// TaskID (TasksFile.Lookup finds it).
	Task specfmt.Task
}

// TickOptions choose the commits Ticks walks.
type TickOptions struct {
	// FirstParent walks only head's first-parent chain (git log --first-parent).
	FirstParent bool
	// Layouts are the unit layouts and ignored paths (nil: the built-in
	// layouts alone).
	Layouts *specfmt.Layouts
}

// Move is a tasks file followed across a rename or move by a commit of a walk
// (Walk): OldPath at the commit's first parent is Path at Commit.
type Move struct {
	Commit        Hash
	OldPath, Path string
	OldUnit, Unit specfmt.Unit
}

// Ticks finds the ticks, unticks and edits of tasks files in the commits
// reachable from head and not from base (base "" : all of head's history),
// merges included. Each commit is compared with its FIRST parent only
// (docs/format.md#units-and-task-lines): a merge's ticks are the lines the
// merge changes relative to the branch it was merged into — so, in a walk that
// is not first-parent, a tick made on a side branch is reported at the branch
// commit and again at the merge that brings it in (with Merge set). A root
// commit has no ticks.
//
// Only trees and blobs whose ids differ are read. Tasks files are followed
// across renames and moves (OpenSpec's changes/<id>/ → changes/archive/<date>-<id>/):
// a file removed from the parent and one added in the commit are paired when
// their blobs are equal, or when at least half of their tasks have the same ID
// and title. Tasks are matched by ID within the paired files (in a file that
// repeats an ID, the n-th line with that ID is matched with the parent's n-th).
// A ticked task with no match in the parent's file is a tick too (Born): in a
// tasks file the parent has, nothing else tells a task added already ticked
// from one ticked under a new name. A ticked task in a tasks file that is new
// in the commit is not a tick; it is reported as KindBornTicked.
//
// Results are ordered parents before children, then by path and line.
func (r *Repo) Ticks(base, head Hash, opts TickOptions) ([]Tick, error) {
	ticks, _, err := r.Walk(base, head, opts)
	return ticks, err
}

// Walk is [Repo.Ticks] that also returns the moves of tasks files it followed,
// in the same order (parents before children).
func (r *Repo) Walk(base, head Hash, opts TickOptions) ([]Tick, []Move, error) {
	commits, err := r.rangeCommits(base, head, opts.FirstParent)
	if err != nil {
		return nil, nil, err
	}
	// The commits are compared with their parents on all cores. The range is
	// cut into contiguous chunks, several per worker, that the workers take in
	// turn: within a chunk, a commit's parent's tasks file is usually the one
	// the worker parsed for the previous commit, and a worker slowed by other
	// work (audit reads the notes alongside) does not hold up the rest.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(commits)/ticksPerWorkerMin))
	size := max(ticksPerWorkerMin, (len(commits)+workers*ticksChunksPerWorker-1)/(workers*ticksChunksPerWorker))
	chunks := (len(commits) + size - 1) / size
	per := make([][]Tick, len(commits))
	perMoves := make([][]Move, len(commits))
	errs := make([]error, chunks)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc := &tickCtx{r: r, parsed: map[parseKey]*parsedFile{}, layouts: opts.Layouts}
			for {
				k := int(next.Add(1) - 1)
				if k >= chunks || failed.Load() {
					return
				}
				for i := k * size; i < min(len(commits), (k+1)*size); i++ {
					ticks, moves, err := tc.commitTicks(commits[i])
					if err != nil {
						errs[k] = err
						failed.Store(true)
						break
					}
					per[i], perMoves[i] = ticks, moves
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err // the oldest failing commit's error: chunks are contiguous runs in order
		}
	}
	n := 0
	for _, ts := range per {
		n += len(ts)
	}
	out := make([]Tick, 0, n)
	for _, ts := range per {
		out = append(out, ts...)
	}
	var moves []Move
	for _, ms := range perMoves {
		moves = append(moves, ms...)
	}
	return out, moves, nil
}

// ticksPerWorkerMin is the fewest commits worth a worker of their own in Ticks,
// and the smallest chunk; ticksChunksPerWorker is how many chunks each worker
// takes in a long range.
const (
	ticksPerWorkerMin    = 64
	ticksChunksPerWorker = 8
)

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

type parseKey struct {
	blob plumbing.Hash
	unit specfmt.Unit
}

type tickCtx struct {
	r       *Repo
	parsed  map[parseKey]*parsedFile
	layouts *specfmt.Layouts
}

// parsedFile is a tasks file's tasks, keyed for matching: the task ID, and, only
// in a file that repeats a task ID (parsed with AllowDuplicateIDs), the ID and
// its occurrence number for the second and later lines with that ID. The keys
// are internal: ticks always carry the real task ID.
type parsedFile struct {
	content []byte // the file as parsed
	// tasks are the tasks as parsed; a parse derived by reparseBoxes shares
	// them with the parse it comes from and holds its own boxes: read a task
	// with task(i), which applies them.
	tasks []specfmt.Task
	boxes []byte // nil, or the box of tasks[i] in this version of the file
	byKey map[string]int
	keys  []string
	// dups maps each repeated task ID to the error naming its first two lines;
	// nil when IDs are unique.
	dups map[string]*specfmt.DuplicateTaskError
	// from and changed are set by reparseBoxes: the file differs from from's
	// only in the boxes of tasks[changed[i]] (ascending indices).
	from    *parsedFile
	changed []int
}

func (f *parsedFile) find(key string) (specfmt.Task, bool) {
	i, ok := f.byKey[key]
	if !ok {
		return specfmt.Task{}, false
	}
	return f.task(i), true
}

// task is the i-th task of this version of the file.
func (f *parsedFile) task(i int) specfmt.Task {
	t := f.tasks[i]
	if f.boxes != nil && f.boxes[i] != t.Box {
		t.Box = f.boxes[i]
		t.Line = t.Line[:t.BoxCol] + string(t.Box) + t.Line[t.BoxCol+1:]
	}
	return t
}

// parseTasks parses content leniently (specfmt.AllowDuplicateIDs): a file that
// repeats an explicit task ID still yields every task line, so that its changed
// lines are reported (those of a repeated ID as ambiguous) rather than dropped.
func parseTasks(u specfmt.Unit, content []byte) (*parsedFile, error) {
	f, err := specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
	if err != nil {
		return nil, err
	}
	pf := &parsedFile{content: content, tasks: f.Tasks, byKey: make(map[string]int, len(f.Tasks)), keys: make([]string, 0, len(f.Tasks))}
	for _, d := range f.Duplicates {
		if pf.dups == nil {
			pf.dups = make(map[string]*specfmt.DuplicateTaskError, len(f.Duplicates))
		}
		pf.dups[d.ID] = d
	}
	seen := map[string]int{}
	for i, t := range f.Tasks {
		seen[t.ID]++
		key := t.ID
		if n := seen[t.ID]; n > 1 {
			key = t.ID + "\x00" + strconv.Itoa(n) // NUL never occurs in a task ID
		}
		pf.byKey[key] = i
		pf.keys = append(pf.keys, key)
	}
	return pf, nil
}

// reparseBoxes returns the parse of content derived from prev's, when content
// differs from prev.content only in the inner characters of task boxes (" ",
// "x", "X", "-"): the usual tick commit. specfmt reads a task line the same
// whatever its box holds (read into Task.Box only; a box right before ":" is
// the exception, as "[x]: …" is a link reference definition: then content is
// parsed), and no other line's reading depends on it, so the tasks, their IDs,
// keys and duplicates are prev's with Box and Line updated
// (FuzzReparseBoxes checks this against specfmt.ParseTasks). ok is false
// otherwise: the caller parses content.
func reparseBoxes(prev *parsedFile, content []byte) (pf *parsedFile, ok bool) {
	if prev == nil || len(prev.content) != len(content) {
		return nil, false
	}
	old := prev.content
	var diffs []int
	for i := 0; i < len(old); {
		n := i + 64
		if n > len(old) {
			n = len(old)
		}
		if !bytes.Equal(old[i:n], content[i:n]) {
			for j := i; j < n; j++ {
				if old[j] != content[j] {
					diffs = append(diffs, j)
				}
			}
		}
		i = n
	}
	if len(diffs) == 0 || len(diffs) > len(prev.tasks) {
		return nil, false
	}
	// Line starts as specfmt counts lines (a lone "\r" ends a line too).
	lineStarts := specfmt.LineStarts(old)
	isBox := func(b byte) bool { return b == ' ' || b == 'x' || b == 'X' || b == '-' }
	tasks := prev.tasks
	boxes := make([]byte, len(tasks))
	if prev.boxes != nil {
		copy(boxes, prev.boxes)
	} else {
		for i := range tasks {
			boxes[i] = tasks[i].Box
		}
	}
	changed := make([]int, 0, len(diffs))
	for _, d := range diffs {
		if !isBox(old[d]) || !isBox(content[d]) {
			return nil, false
		}
		line := sort.Search(len(lineStarts), func(i int) bool { return lineStarts[i] > d }) // 1-based line of d
		j := sort.Search(len(tasks), func(i int) bool { return tasks[i].LineNo >= line })
		if j == len(tasks) || tasks[j].LineNo != line || lineStarts[line-1]+tasks[j].BoxCol != d {
			return nil, false
		}
		if strings.HasPrefix(tasks[j].Line[tasks[j].BoxCol+1:], "]:") {
			// "[x]: …" is a link reference definition, "[ ]: …" a task: this
			// box decides whether its line is a task at all.
			return nil, false
		}
		boxes[j] = content[d]
		changed = append(changed, j) // diffs ascend, one per task at most
	}
	return &parsedFile{content: content, tasks: tasks, boxes: boxes, byKey: prev.byKey, keys: prev.keys, dups: prev.dups, from: prev, changed: changed}, true
}

// tasksFile is one side of a changed tasks file.
type tasksFile struct {
	path string
	blob plumbing.Hash
	unit specfmt.Unit
	// root is the nested project root the unit is under ("" the
	// repository's root); unit.Dir is repository-relative either way.
	root string
	// unrecognized: the file is named tasks.md but no layout's
	// (specfmt.UnrecognizedTasksFile); unit is what it is parsed as.
	unrecognized bool
}

// irregularEntry is a symbolic link or submodule at a tasks-file position
// (KindNotRegular).
type irregularEntry struct {
	path, kind string
}

// diffOut collects what diffTasks finds.
type diffOut struct {
	layouts *specfmt.Layouts
	// oldRoot and newRoot are the compared commits' root trees, where nested
	// project roots are looked up (projectTasksFile).
	oldRoot, newRoot plumbing.Hash
	projects         projectCache
	olds, news       []tasksFile
	irregular        []irregularEntry
}

func (tc *tickCtx) parse(f tasksFile) (*parsedFile, error) {
	return tc.parseAfter(f, nil)
}

// parseAfter parses f, from prev (the same unit's tasks file as the parent
// has it) when the two differ only in task boxes (reparseBoxes).
func (tc *tickCtx) parseAfter(f tasksFile, prev *parsedFile) (*parsedFile, error) {
	k := parseKey{f.blob, f.unit}
	if p, ok := tc.parsed[k]; ok {
		return p, nil
	}
	// Read in place: the parse and reparseBoxes only read the bytes, and ticks
	// keep copies of their lines (detachTask), not the file.
	b, err := tc.r.viewOf(plumbing.BlobObject, f.blob)
	if err != nil {
		return nil, err
	}
	p, ok := reparseBoxes(prev, b)
	if !ok {
		if p, err = parseTasks(f.unit, b); err != nil {
			return nil, err
		}
	}
	if len(tc.parsed) >= parsedMax {
		clear(tc.parsed) // memory stays bounded over long histories
	}
	tc.parsed[k] = p
	return p, nil
}

// parsedMax bounds a tickCtx's parsed files. In a walk, what is parsed again is
// mostly the parent's version of a file the previous commit changed.
const parsedMax = 256

func (tc *tickCtx) commitTicks(c *object.Commit) ([]Tick, []Move, error) {
	if len(c.ParentHashes) == 0 {
		return nil, nil, nil
	}
	p, err := tc.r.commit(fromPlumbing(c.ParentHashes[0]))
	if err != nil {
		return nil, nil, err
	}
	if p.TreeHash == c.TreeHash {
		return nil, nil, nil
	}
	d := &diffOut{layouts: tc.layouts, oldRoot: p.TreeHash, newRoot: c.TreeHash, projects: projectCache{}}
	if err := tc.r.diffTasks(p.TreeHash, c.TreeHash, "", d); err != nil {
		return nil, nil, fmt.Errorf("comparing %s with its first parent %s: %w", c.Hash, p.Hash, err)
	}
	pairs, added, err := tc.pair(d.olds, d.news)
	if err != nil {
		return nil, nil, fmt.Errorf("commit %s: %w", c.Hash, err)
	}
	base := Tick{Commit: fromPlumbing(c.Hash), Parent: fromPlumbing(p.Hash), Merge: len(c.ParentHashes) > 1}
	var out []Tick
	var moves []Move
	for _, ir := range d.irregular {
		t := base
		t.Kind, t.Path, t.OldPath, t.Irregular = KindNotRegular, ir.path, ir.path, ir.kind
		out = append(out, t)
	}
	for _, pr := range pairs {
		if pr[0].path != pr[1].path {
			moves = append(moves, Move{Commit: base.Commit, OldPath: pr[0].path, Path: pr[1].path, OldUnit: pr[0].unit, Unit: pr[1].unit})
		}
		of, err := tc.parse(pr[0])
		if err != nil {
			return nil, nil, tasksFileErr(Hash(c.Hash.String()), pr[0].path+" (at the parent "+p.Hash.String()+")", err)
		}
		var prev *parsedFile
		if pr[0].unit == pr[1].unit {
			prev = of
		}
		nf, err := tc.parseAfter(pr[1], prev)
		if err != nil {
			return nil, nil, tasksFileErr(Hash(c.Hash.String()), pr[1].path, err)
		}
		// A box-only change from of (reparseBoxes) can only tick or untick the
		// tasks whose box changed; every other task line is of's.
		idx := func(yield func(int) bool) {
			for i := range nf.tasks {
				if !yield(i) {
					return
				}
			}
		}
		if nf.from == of {
			idx = slices.Values(nf.changed)
		}
		for i := range idx {
			nt := nf.task(i)
			t := base
			t.Path, t.OldPath, t.Unit, t.Root, t.Unrecognized = pr[1].path, pr[0].path, pr[1].unit, pr[1].root, pr[1].unrecognized
			ot, ok := of.find(nf.keys[i])
			switch {
			case !ok && nt.Ticked():
				t.Kind, t.Born = KindTick, true
			case !ok:
				continue // a new open task
			case ot.Open() && nt.Ticked():
				t.Kind = KindTick
			case ot.Ticked() && nt.Open():
				t.Kind = KindUntick
			case ot.Ticked() && nt.Ticked() && ot.OpenLine() != nt.OpenLine():
				t.Kind = KindEdit
			default:
				continue
			}
			if ok {
				t.OldLine, t.Before, t.TextChanged = ot.LineNo, ot.Line, ot.OpenLine() != nt.OpenLine()
			}
			d := nf.dups[nt.ID]
			if ok && d == nil {
				d = of.dups[ot.ID]
			}
			out = append(out, taskTick(t, nt, d))
		}
	}
	for _, f := range added {
		nf, err := tc.parse(f)
		if err != nil {
			return nil, nil, tasksFileErr(Hash(c.Hash.String()), f.path, err)
		}
		for i := range nf.tasks {
			nt := nf.task(i)
			if !nt.Ticked() {
				continue
			}
			t := base
			t.Kind, t.Born, t.Path, t.Unit, t.Root, t.Unrecognized = KindBornTicked, true, f.path, f.unit, f.root, f.unrecognized
			out = append(out, taskTick(t, nt, nf.dups[nt.ID]))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, moves, nil
}

// taskTick completes t with the commit's task line nt and, when the file
// repeats its ID, the error naming the repeated lines (Tick.Ambiguous).
func taskTick(t Tick, nt specfmt.Task, dup *specfmt.DuplicateTaskError) Tick {
	sum := sha256.Sum256([]byte(nt.OpenLine()))
	nt = detachTask(nt)
	t.Before = strings.Clone(t.Before)
	t.Line, t.TaskID, t.After, t.Derived, t.Task = nt.LineNo, nt.ID, nt.Line, nt.Derived, nt
	t.LineHash = hex.EncodeToString(sum[:])
	if dup != nil {
		t.Ambiguous = dup.Error()
	}
	return t
}

// detachTask copies t's strings out of its tasks file's content (the parser's
// strings are slices of it), so that a Tick kept for a long range holds its own
// line, not the whole file.
func detachTask(t specfmt.Task) specfmt.Task {
	t.ID, t.Line, t.Title, t.Story = strings.Clone(t.ID), strings.Clone(t.Line), strings.Clone(t.Title), strings.Clone(t.Story)
	t.Group, t.Parent = strings.Clone(t.Group), strings.Clone(t.Parent)
	clone := func(ss []string) []string {
		if ss == nil {
			return nil
		}
		out := make([]string, len(ss))
		for i, x := range ss {
			out[i] = strings.Clone(x)
		}
		return out
	}
	t.Labels, t.Requirements = clone(t.Labels), clone(t.Requirements)
	return t
}

// pair matches the parent's changed tasks files with the commit's: same path
// first, then moves (equal blobs, then by shared tasks). added are the
// commit's tasks files paired with none of the parent's: new files.
func (tc *tickCtx) pair(olds, news []tasksFile) (pairs [][2]tasksFile, added []tasksFile, err error) {
	oldBy := map[string]int{}
	for i, o := range olds {
		oldBy[o.path] = i
	}
	usedOld := make([]bool, len(olds))
	for _, n := range news {
		if i, ok := oldBy[n.path]; ok {
			pairs = append(pairs, [2]tasksFile{olds[i], n})
			usedOld[i] = true
		} else {
			added = append(added, n)
		}
	}
	var removed []int
	for i := range olds {
		if !usedOld[i] {
			removed = append(removed, i)
		}
	}
	if len(added) == 0 || len(removed) == 0 {
		return pairs, added, nil
	}
	type cand struct {
		o, n  int
		score float64
	}
	var cands []cand
	for ni, n := range added {
		for _, oi := range removed {
			if olds[oi].blob == n.blob {
				cands = append(cands, cand{oi, ni, 2})
				continue
			}
			of, err := tc.parse(olds[oi])
			if err != nil {
				return nil, nil, tasksFileErr("", olds[oi].path, err)
			}
			nf, err := tc.parse(n)
			if err != nil {
				return nil, nil, tasksFileErr("", n.path, err)
			}
			if s := similarity(of, nf); s >= 0.5 {
				cands = append(cands, cand{oi, ni, s})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	usedNew := make([]bool, len(added))
	for _, c := range cands {
		if usedOld[c.o] || usedNew[c.n] {
			continue
		}
		usedOld[c.o], usedNew[c.n] = true, true
		pairs = append(pairs, [2]tasksFile{olds[c.o], added[c.n]})
	}
	var unpaired []tasksFile
	for i, n := range added {
		if !usedNew[i] {
			unpaired = append(unpaired, n)
		}
	}
	return pairs, unpaired, nil
}

// similarity is the share of tasks two files have in common: the larger of
// the share with the same ID and title, and the share with the same written
// (not derived) ID — a move that also rewrites every title keeps the IDs
// (docs/format.md#units-and-task-lines). Files of different formats are compared the same
// way: a unit moved to another layout keeps its tasks.
func similarity(a, b *parsedFile) float64 {
	n := max(len(a.tasks), len(b.tasks))
	if n == 0 {
		return 0
	}
	common, ids := 0, 0
	for i := range b.tasks {
		if o, ok := a.find(b.keys[i]); ok {
			if o.Title == b.tasks[i].Title {
				common++
			}
			if !o.Derived && !b.tasks[i].Derived {
				ids++
			}
		}
	}
	return float64(max(common, ids)) / float64(n)
}

// diffTasks appends to d the tasks files that differ between trees a and b
// (zero: absent), descending only into subtrees whose ids differ: every file
// named tasks.md (any case) is a tasks file, of a unit or not
// (specfmt.Layouts.Classify, the one place units are resolved), so every
// changed directory is read. Symbolic links and submodules at tasks-file
// positions are collected too (d.irregular).
//
// The raw trees are compared entry by entry in git's order (diffRawTrees),
// without decoding them; a tree that is not in git's order (or repeats a name)
// is compared by name instead (diffDecoded), as go-git reads it. Either way the
// entries are visited in a's order, then those only b has, in b's order.
func (r *Repo) diffTasks(a, b plumbing.Hash, dir string, d *diffOut) error {
	if a == b {
		return nil
	}
	ra, err := r.rawTree(a)
	if err != nil {
		return err
	}
	rb, err := r.rawTree(b)
	if err != nil {
		return err
	}
	changes, ok, err := diffRawTrees(ra, rb)
	if err != nil {
		return err
	}
	if !ok {
		return r.diffDecoded(a, b, dir, d)
	}
	for _, ch := range changes {
		if err := r.diffEntry(dir, ch.a, ch.b, d); err != nil {
			return err
		}
	}
	return nil
}

// rawTree returns tree id's raw bytes (nil for the zero id). They may be the
// object cache's own copy (viewOf): read them, never modify or keep them.
func (r *Repo) rawTree(id plumbing.Hash) ([]byte, error) {
	if id.IsZero() {
		return nil, nil
	}
	return r.viewOf(plumbing.TreeObject, id)
}

// viewObject returns the content of an object held in memory without copying
// it: go-git's memory objects read as a bytes.Reader, whose WriteTo hands its
// whole remaining slice to one Write. ok is false for any other object (the
// caller reads it with readObject). The bytes are shared with the object
// cache: read-only, and not to be kept past the caller's use.
func viewObject(o plumbing.EncodedObject) (b []byte, ok bool) {
	rd, err := o.Reader()
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	wt, isWT := rd.(io.WriterTo)
	if !isWT {
		return nil, false
	}
	var v viewer
	if n, err := wt.WriteTo(&v); err != nil || v.calls != 1 || n != o.Size() || int64(len(v.b)) != n {
		return nil, false
	}
	return v.b, true
}

// viewer keeps the one slice a bytes.Reader's WriteTo writes (viewObject).
type viewer struct {
	b     []byte
	calls int
}

func (v *viewer) Write(p []byte) (int, error) {
	v.b = p
	v.calls++
	return len(p), nil
}

// rawEntry is one entry of a raw tree; name points into the tree's bytes.
type rawEntry struct {
	name []byte
	mode filemode.FileMode // canonicalized as object.DecodeTree does
	hash plumbing.Hash
}

// nextRawEntry splits the first entry off a raw tree, checking its syntax as
// scanTree does.
func nextRawEntry(b []byte) (rawEntry, []byte, error) {
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return rawEntry{}, nil, fmt.Errorf("%w: missing mode terminator", errMalformedTree)
	}
	mode, ok := parseOctalMode(b[:sp])
	if !ok {
		return rawEntry{}, nil, fmt.Errorf("%w: malformed mode", errMalformedTree)
	}
	b = b[sp+1:]
	nul := bytes.IndexByte(b, 0)
	switch {
	case nul < 0:
		return rawEntry{}, nil, fmt.Errorf("%w: missing filename terminator", errMalformedTree)
	case nul == 0:
		return rawEntry{}, nil, fmt.Errorf("%w: empty filename", errMalformedTree)
	case len(b) < nul+1+len(plumbing.ZeroHash):
		return rawEntry{}, nil, fmt.Errorf("%w: truncated object id", errMalformedTree)
	}
	e := rawEntry{name: b[:nul], mode: canonicalMode(mode)}
	copy(e.hash[:], b[nul+1:])
	return e, b[nul+1+len(plumbing.ZeroHash):], nil
}

// compareTreeNames orders tree entries as git does (base_name_compare): by
// name, a tree's name compared as if it ended in '/'.
func compareTreeNames(a, b rawEntry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	next := func(e rawEntry) int {
		switch {
		case len(e.name) > n:
			return int(e.name[n])
		case e.mode == filemode.Dir:
			return '/'
		}
		return 0
	}
	return next(a) - next(b)
}

// rawChange is an entry that differs between two trees (a or b nil: absent).
type rawChange struct{ a, b *object.TreeEntry }

// diffRawTrees lists the entries that differ between raw trees a and b: first
// those of a (changed or removed) in a's order, then those only b has. ok is
// false when a tree is not strictly in git's order (then names could repeat or
// pair wrongly: the caller compares the decoded trees instead). A name that is
// a tree on one side and a file on the other sorts apart and is listed as
// removed and added.
func diffRawTrees(a, b []byte) (changes []rawChange, ok bool, err error) {
	var ea, eb, pa, pb rawEntry
	hasA, hasB, havePA, havePB := false, false, false, false
	advance := func(buf *[]byte, e, prev *rawEntry, has, havePrev *bool) error {
		if *has {
			*prev, *havePrev = *e, true
		}
		*has = false
		if len(*buf) == 0 {
			return nil
		}
		ne, rest, err := nextRawEntry(*buf)
		if err != nil {
			return err
		}
		*buf, *e, *has = rest, ne, true
		return nil
	}
	entry := func(e rawEntry) *object.TreeEntry {
		return &object.TreeEntry{Name: string(e.name), Mode: e.mode, Hash: e.hash}
	}
	if err := advance(&a, &ea, &pa, &hasA, &havePA); err != nil {
		return nil, false, err
	}
	if err := advance(&b, &eb, &pb, &hasB, &havePB); err != nil {
		return nil, false, err
	}
	var added []rawChange
	for hasA || hasB {
		if (hasA && havePA && compareTreeNames(pa, ea) >= 0) || (hasB && havePB && compareTreeNames(pb, eb) >= 0) {
			return nil, false, nil
		}
		c := 0
		switch {
		case !hasA:
			c = 1
		case !hasB:
			c = -1
		default:
			c = compareTreeNames(ea, eb)
		}
		switch {
		case c < 0:
			changes = append(changes, rawChange{a: entry(ea)})
			err = advance(&a, &ea, &pa, &hasA, &havePA)
		case c > 0:
			added = append(added, rawChange{b: entry(eb)})
			err = advance(&b, &eb, &pb, &hasB, &havePB)
		default:
			if ea.hash != eb.hash || ea.mode != eb.mode {
				changes = append(changes, rawChange{a: entry(ea), b: entry(eb)})
			}
			if err = advance(&a, &ea, &pa, &hasA, &havePA); err == nil {
				err = advance(&b, &eb, &pb, &hasB, &havePB)
			}
		}
		if err != nil {
			return nil, false, err
		}
	}
	return append(changes, added...), true, nil
}

// diffDecoded is diffTasks on go-git's decoding of the trees, pairing entries
// by name.
func (r *Repo) diffDecoded(a, b plumbing.Hash, dir string, d *diffOut) error {
	var ae, be []object.TreeEntry
	if !a.IsZero() {
		t, err := r.tree(a)
		if err != nil {
			return err
		}
		ae = t.Entries
	}
	if !b.IsZero() {
		t, err := r.tree(b)
		if err != nil {
			return err
		}
		be = t.Entries
	}
	type pair struct{ a, b *object.TreeEntry }
	byName := map[string]*pair{}
	var names []string
	for i := range ae {
		byName[ae[i].Name] = &pair{a: &ae[i]}
		names = append(names, ae[i].Name)
	}
	for i := range be {
		if p, ok := byName[be[i].Name]; ok {
			p.b = &be[i]
		} else {
			byName[be[i].Name] = &pair{b: &be[i]}
			names = append(names, be[i].Name)
		}
	}
	for _, name := range names {
		p := byName[name]
		if p.a != nil && p.b != nil && p.a.Hash == p.b.Hash && p.a.Mode == p.b.Mode {
			continue
		}
		if err := r.diffEntry(dir, p.a, p.b, d); err != nil {
			return err
		}
	}
	return nil
}

// diffEntry handles one entry of dir that differs between two trees (a or b
// nil: absent on that side): subtrees are compared, tasks files listed.
func (r *Repo) diffEntry(dir string, a, b *object.TreeEntry, d *diffOut) error {
	name := ""
	if a != nil {
		name = a.Name
	} else {
		name = b.Name
	}
	path := name
	if dir != "" {
		path = dir + "/" + name
	}
	var sa, sb plumbing.Hash
	if a != nil && a.Mode == filemode.Dir {
		sa = a.Hash
	}
	if b != nil && b.Mode == filemode.Dir {
		sb = b.Hash
	}
	if !sa.IsZero() || !sb.IsZero() {
		if err := r.diffTasks(sa, sb, path, d); err != nil {
			return err
		}
	}
	if b != nil {
		if k := irregularKind(b.Mode); k != "" && (specfmt.IsTasksFileName(name) || d.layouts.MayHoldUnits(path)) {
			d.irregular = append(d.irregular, irregularEntry{path: path, kind: k})
		}
	}
	tf, ok := classifyTasksFile(d.layouts, path)
	if !ok {
		return nil
	}
	if a != nil && isRegular(a.Mode) {
		t := tf
		if t.unrecognized {
			t = r.projectTasksFile(d.layouts, d.oldRoot, path, t, d.projects)
		}
		t.blob = a.Hash
		d.olds = append(d.olds, t)
	}
	if b != nil && isRegular(b.Mode) {
		t := tf
		if t.unrecognized {
			t = r.projectTasksFile(d.layouts, d.newRoot, path, t, d.projects)
		}
		t.blob = b.Hash
		d.news = append(d.news, t)
	}
	return nil
}

// classifyTasksFile is path as a tasks file of the walk (no blob): a unit's,
// or a file named tasks.md no layout claims (parsed as a spec-kit unit of its
// directory, unrecognized set); ok is false for other paths and ignored ones.
func classifyTasksFile(l *specfmt.Layouts, path string) (tasksFile, bool) {
	u, kind := l.Classify(path)
	switch kind {
	case specfmt.UnitTasksFile:
		return tasksFile{path: path, unit: u}, true
	case specfmt.UnrecognizedTasksFile:
		dir := "."
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			dir = path[:i]
		}
		if !fs.ValidPath(dir) || dir == "." || strings.Contains(dir, `\`) {
			dir = "_" // the root, or a name specfmt refuses: parsed as some unit
		}
		feature := dir[strings.LastIndexByte(dir, '/')+1:]
		return tasksFile{path: path, unit: specfmt.Unit{Format: specfmt.Speckit, Feature: feature, Dir: dir}, unrecognized: true}, true
	}
	return tasksFile{}, false
}

// irregularKind is "symlink" or "submodule" for those modes, else "".
func irregularKind(m filemode.FileMode) string {
	switch m {
	case filemode.Symlink:
		return "symlink"
	case filemode.Submodule:
		return "submodule"
	}
	return ""
}

func isRegular(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}
