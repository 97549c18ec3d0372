// Package tick finds the ticks of tasks files in git history: the task box
// changes of each commit against its first parent, tasks files followed
// across renames and moves, nested projects resolved
// (docs/format.md#units-and-task-lines, docs/format.md#project-root). It reads
// the repository through gitref's porcelain (commits, raw tree diffs, blobs)
// and resolves units with specfmt's layouts only.
package tick

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/fanout"
	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// Kind is the kind of a task box change found between a commit and its
// first parent.
type Kind string

// The kinds of Tick.
const (
	// KindTick: the parent's line is open ("[ ]", Kiro also "[-]") and the
	// commit's is ticked ("[x]"/"[X]") — a tick
	// (docs/format.md#units-and-task-lines); or the task is ticked in the
	// commit and has no line in the parent's version of the tasks file (Born).
	KindTick Kind = "tick"
	// KindUntick: ticked in the parent, open in the commit.
	KindUntick Kind = "untick"
	// KindEdit: ticked in both, but the task's line (read as open) or the
	// rest of its text (specfmt.Task.Text: continuation lines, detail lines
	// and bullets) changed: a task edited after its tick
	// (docs/format.md#gate-rules).
	KindEdit Kind = "edit"
	// KindBornTicked: a ticked task in a tasks file that is new in the commit
	// (absent at the parent and not a rename or move of one of the parent's
	// tasks files). It is not a tick (docs/format.md#units-and-task-lines:
	// nothing goes from open to ticked; a merged feature branch or an imported
	// unit brings its ticked file), but is reported so that a merge gate can
	// list it. Born is set; Before and OldPath are "" and OldLine is 0.
	KindBornTicked Kind = "born_ticked"
	// KindNotRegular: Path, in Commit, is a symbolic link or a submodule
	// (gitlink) where a tasks file, or a directory on a unit layout's
	// tasks-file path, is (docs/format.md#tasks-files-are-regular-files):
	// what the link stands for is not what git diffs, so the gate cannot see
	// its ticks. Irregular names the entry's kind; TaskID and lines are "".
	KindNotRegular Kind = "not_regular"
	// KindMovedOut: the commit removes OldPath, a unit's tasks file of
	// Parent, and adds Path, a Markdown file that is no tasks file, that
	// the move rule pairs it with (docs/format.md#tasks-files, "Tasks files
	// that leave"): the unit's tasks left the tasks files, and the walk sees
	// no tick of them from here on. Unit and Root are OldPath's. When
	// Unreadable is not "", Path could not be read (why), so whether the
	// tasks went there cannot be told; OldPath is then the first removed
	// unit's tasks file paired with nothing. TaskID and lines are "".
	KindMovedOut Kind = "moved_out"
)

// Tick is one task box change of a commit against its first parent.
type Tick struct {
	Kind    Kind
	Commit  gitref.Hash // the commit making the change (the tick commit)
	Parent  gitref.Hash // its first parent
	Merge   bool        // the commit is a merge (the change is against its first parent)
	Path    string      // the tasks file in Commit
	OldPath string      // the tasks file in Parent (differs from Path when the file moved)
	Line    int         // 1-based line number in Path at Commit
	OldLine int         // 1-based line number in OldPath at Parent
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
	// Nth is which line of TaskID in the tasks file at Commit the task is: 1,
	// or, in a file that repeats the ID, its occurrence in file order. A task
	// is matched across a commit by its ID and Nth (its key).
	Nth    int
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
	// Configured, for an Unrecognized file not named tasks.md, is why the
	// project's tool configuration makes it a tasks file
	// (specfmt.ToolTasksFile: an OpenSpec schema's tracked file, a BMAD story
	// folder no layout covers).
	Configured string
	// Irregular is, for KindNotRegular, "symlink" or "submodule".
	Irregular string
	// Unreadable is, for KindMovedOut, why Path could not be read, or "".
	Unreadable string
	// Task is the task as parsed from Path at Commit (specfmt.ParseTasks with
	// AllowDuplicateIDs): what a verifier needs of the task line without
	// parsing the file again (its open line, markers and requirements for the
	// spec section). When Ambiguous is "", it is the one task of the file with
	// TaskID (TasksFile.Lookup finds it).
	Task specfmt.Task
}

// Options choose the commits Range and Walk walk.
type Options struct {
	// FirstParent walks only head's first-parent chain (git log --first-parent).
	FirstParent bool
	// Layouts are the unit layouts and ignored paths (nil: the built-in
	// layouts alone).
	Layouts *specfmt.Layouts
	// Listed, when set, is called once with the range's listing, parents
	// before children, as soon as it is listed and before any commit is
	// compared: what a caller needs of every commit (their trailers, say)
	// without listing the range a second time. An error of Listed ends the
	// walk before it starts and is returned.
	Listed func(l *gitref.Listing) error
}

// Move is a tasks file followed across a rename or move by a commit of a walk
// (Walk): OldPath at the commit's first parent is Path at Commit.
type Move struct {
	Commit        gitref.Hash
	OldPath, Path string
	OldUnit, Unit specfmt.Unit
}

// Range finds the ticks, unticks and edits of tasks files in the commits
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
func Range(r *gitref.Repo, base, head gitref.Hash, opts Options) ([]Tick, error) {
	w, err := Walk(r, base, head, opts)
	return w.Ticks, err
}

// Walked is what [Walk] found in base..head: the ticks (as [Range] orders
// them, never nil), the moves of tasks files it followed in the same order
// (parents before children), and the number of commits it compared.
type Walked struct {
	Ticks   []Tick
	Moves   []Move
	Commits int
}

// Walk is [Range] that also returns the moves it followed and the number of
// commits in the range, so a caller needs no second walk to tell an empty
// range from one without ticks.
func Walk(r *gitref.Repo, base, head gitref.Hash, opts Options) (Walked, error) {
	var w Walked
	n, err := walk(r, base, head, opts, walkSizes{}, func(ts []Tick, ms []Move) bool {
		w.Ticks = append(w.Ticks, ts...)
		w.Moves = append(w.Moves, ms...)
		return true
	})
	if err != nil {
		return Walked{}, err
	}
	if w.Ticks == nil {
		w.Ticks = []Tick{} // an empty range's ticks are an empty list, not none
	}
	w.Commits = n
	return w, nil
}

// Each calls fn with the ticks and moves of each commit of base..head that
// has any, in [Walk]'s order, as the walk finds them: only the commits
// compared ahead of fn (a few thousand commits' worth) are held, not the
// range's ticks. It returns the number of commits compared, as
// [Walked].Commits. An error of fn stops the walk and is returned; a walk
// error comes after the ticks of the commits before the one that failed.
func Each(r *gitref.Repo, base, head gitref.Hash, opts Options, fn func(ticks []Tick, moves []Move) error) (int, error) {
	var ferr error
	n, err := walk(r, base, head, opts, walkSizes{}, func(ts []Tick, ms []Move) bool {
		ferr = fn(ts, ms)
		return ferr == nil
	})
	if ferr != nil {
		return n, ferr
	}
	return n, err
}

// Stream yields the ticks [Range] returns, in the same order, as the walk
// finds them: a range's ticks are not all held at once, only those of the
// commits compared ahead of the caller (a few thousand commits' worth). An
// error ends the sequence: it is yielded once, with a zero Tick, after the
// ticks of the commits before the one that failed. Breaking out of the loop
// stops the walk; Stream returns only when its workers are done.
func Stream(r *gitref.Repo, base, head gitref.Hash, opts Options) iter.Seq2[Tick, error] {
	return func(yield func(Tick, error) bool) {
		stopped := false
		_, err := walk(r, base, head, opts, walkSizes{}, func(ts []Tick, _ []Move) bool {
			for _, t := range ts {
				if !yield(t, nil) {
					stopped = true
					return false
				}
			}
			return true
		})
		if err != nil && !stopped {
			yield(Tick{}, err)
		}
	}
}

// walkSizes are the walk's chunk (commits one worker compares in a row) and
// batch (chunks compared before the batch is handed out); zero: chosen from
// the range's length.
type walkSizes struct {
	chunk, batch int
}

// The walk's sizes: ticksPerWorkerMin is the fewest commits worth a worker of
// their own, and the smallest chunk; a chunk has at most chunkMax commits; a
// batch holds chunksPerWorker chunks per worker.
const (
	ticksPerWorkerMin = 64
	chunkMax          = 128
	chunksPerWorker   = 16
)

// errWalkStopped ends a batch early once the consumer of the walk stopped.
var errWalkStopped = errors.New("tick walk stopped")

// walk compares each commit of base..head with its first parent and calls
// emit with each commit's ticks and moves, parents before children; emit
// returning false stops the walk. The commits are compared on all cores
// (fanout.Each) in batches of contiguous chunks: within a chunk, a commit's
// parent's tasks file is usually the one parsed for the previous commit, and
// several chunks per worker keep a worker slowed by other work (audit reads
// the notes alongside) from holding up the rest. The next batch is compared
// while emit consumes the last, so at most two batches' ticks are held. On
// an error, the ticks of the commits before the failing one are emitted, and
// walk returns the error of the oldest failing commit.
func walk(r *gitref.Repo, base, head gitref.Hash, opts Options, sz walkSizes, emit func([]Tick, []Move) bool) (int, error) {
	l, err := r.List(base, head, opts.FirstParent)
	if err != nil {
		return 0, err
	}
	if opts.Listed != nil {
		if err := opts.Listed(l); err != nil {
			return 0, err
		}
	}
	n := l.Len()
	workers := min(runtime.GOMAXPROCS(0), max(1, n/ticksPerWorkerMin))
	if sz.chunk <= 0 {
		sz.chunk = min(chunkMax, max(ticksPerWorkerMin, (n+workers*chunksPerWorker-1)/(workers*chunksPerWorker)))
	}
	if sz.batch <= 0 {
		sz.batch = workers * chunksPerWorker
	}
	type batch struct {
		ticks [][]Tick
		moves [][]Move
		err   error
	}
	batches := make(chan batch)
	seeds := &seedFiles{m: map[seedKey]*parsedFile{}}
	quit := make(chan struct{})
	done := make(chan struct{})
	// produce sends the batches; a panic in it (or in a worker: fanout.Each
	// recovers those) ends the walk with a batch holding the panic alone.
	produce := func() error {
		panics.Inject("walk")
		for first := 0; first < n; first += sz.chunk * sz.batch {
			last := min(n, first+sz.chunk*sz.batch)
			chunks := (last - first + sz.chunk - 1) / sz.chunk
			b := batch{ticks: make([][]Tick, last-first), moves: make([][]Move, last-first)}
			failedAt := make([]int, chunks) // per chunk, the failing commit's index in b; -1: none
			b.err = fanout.Each(chunks, workers, func(k int) error {
				failedAt[k] = -1
				select {
				case <-quit:
					return errWalkStopped
				default:
				}
				tc := &tickCtx{r: r, parsed: map[parseKey]*parsedFile{}, layouts: opts.Layouts, seeds: seeds}
				for i := first + k*sz.chunk; i < min(last, first+(k+1)*sz.chunk); i++ {
					ticks, moves, err := tc.commitTicks(l.Link(i))
					if err != nil {
						failedAt[k] = i - first
						return err
					}
					b.ticks[i-first], b.moves[i-first] = ticks, moves
				}
				return nil
			})
			if b.err != nil {
				// The commits after the oldest failing one are not the range's.
				for _, at := range failedAt {
					if at >= 0 {
						b.ticks, b.moves = b.ticks[:at], b.moves[:at]
						break
					}
				}
			}
			select {
			case batches <- b:
			case <-quit:
				return nil
			}
			if b.err != nil {
				return nil
			}
		}
		return nil
	}
	go func() {
		defer close(done)
		defer close(batches)
		if err := panics.Call(produce); err != nil {
			select {
			case batches <- batch{err: err}:
			case <-quit:
			}
		}
	}()
	defer func() {
		close(quit)
		<-done
	}()
	for b := range batches {
		for i := range b.ticks {
			if (len(b.ticks[i]) > 0 || len(b.moves[i]) > 0) && !emit(b.ticks[i], b.moves[i]) {
				return n, nil
			}
		}
		if b.err != nil {
			return n, b.err
		}
	}
	return n, nil
}

type parseKey struct {
	blob gitref.Hash
	unit specfmt.Unit
}

type tickCtx struct {
	r       *gitref.Repo
	prev    *gitref.Link // the commit commitTicks compared last
	parsed  map[parseKey]*parsedFile
	layouts *specfmt.Layouts
	// seeds, when not nil, are the walk's full parses, shared by its workers.
	seeds *seedFiles
}

// seedFiles are, per tasks file and unit, one version a walk's worker parsed in full, shared read-only by
// every worker of the walk: a chunk starts with an empty tickCtx, and its first
// commit's parent version of a file, or the first version of another unit's file,
// is mostly that version with other boxes ticked (reparseBoxes derives it
// from any version of the same length), not a file to parse again. Safe for
// concurrent use; at most seedMax files are held.
type seedFiles struct {
	mu sync.Mutex
	m  map[seedKey]*parsedFile
}

type seedKey struct {
	path string
	unit specfmt.Unit
}

func (s *seedFiles) get(f tasksFile) *parsedFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[seedKey{f.path, f.unit}]
}

// put shares p, a full parse of f, with the walk's workers. Its box offsets
// are computed here, before any other worker can read it: a shared
// parsedFile is never written.
func (s *seedFiles) put(f tasksFile, p *parsedFile) {
	p.boxOffsets()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= seedMax {
		clear(s.m) // what a walk's workers are ticking is a few files at a time
	}
	s.m[seedKey{f.path, f.unit}] = p
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
	// boxAt, once a reparse has needed it (boxOffsets), holds the byte
	// offset in content of each task's box character, ascending: a box-only
	// change moves no line, so every parse derived from this one shares it.
	boxAt *[]int
}

func (f *parsedFile) find(key string) (specfmt.Task, bool) {
	i, ok := f.byKey[key]
	if !ok {
		return specfmt.Task{}, false
	}
	return f.task(i), true
}

// nth is the occurrence of the i-th task's ID among the file's tasks (1 for
// an ID written once), as its key counts it.
func (f *parsedFile) nth(i int) int {
	k := f.keys[i]
	if j := strings.IndexByte(k, 0); j >= 0 {
		n, _ := strconv.Atoi(k[j+1:])
		return n
	}
	return 1
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
		key := taskKey(t.ID, seen[t.ID])
		pf.byKey[key] = i
		pf.keys = append(pf.keys, key)
	}
	return pf, nil
}

// taskKey is parsedFile's key of the nth line with task ID id.
func taskKey(id string, nth int) string {
	if nth > 1 {
		return id + "\x00" + strconv.Itoa(nth) // NUL never occurs in a task ID
	}
	return id
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
	at := prev.boxOffsets()
	if at == nil {
		return nil, false
	}
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
		j, found := slices.BinarySearch(at, d)
		if !found {
			return nil, false
		}
		if strings.HasPrefix(tasks[j].Line[tasks[j].BoxCol+1:], "]:") {
			// "[x]: …" is a link reference definition, "[ ]: …" a task: this
			// box decides whether its line is a task at all.
			return nil, false
		}
		if t := tasks[j]; t.BoxCol == 0 || t.Line[t.BoxCol-1] != '[' || t.Line[t.BoxCol+1] != ']' {
			// A box the format's own tool reads wider than one character
			// ("[ x]"): which of its characters is the box depends on all
			// of them.
			return nil, false
		}
		boxes[j] = content[d]
		changed = append(changed, j) // diffs ascend, one per task at most
	}
	return &parsedFile{content: content, tasks: tasks, boxes: boxes, byKey: prev.byKey, keys: prev.keys, dups: prev.dups, from: prev, changed: changed, boxAt: prev.boxAt}, true
}

// boxOffsets returns the byte offset of each task's box character in
// f.content (the start of its line, as specfmt counts lines — a lone "\r"
// ends a line too — plus its BoxCol), computed once for f and the parses
// derived from it. It is nil when the offsets do not ascend strictly (one
// task per line, in line order), which a parse of specfmt's always does: the
// caller then parses the file.
func (f *parsedFile) boxOffsets() []int {
	if f.boxAt != nil {
		return *f.boxAt
	}
	lineStarts := specfmt.LineStarts(f.content)
	at := make([]int, len(f.tasks))
	for i, t := range f.tasks {
		if t.LineNo < 1 || t.LineNo > len(lineStarts) {
			at = nil
			break
		}
		at[i] = lineStarts[t.LineNo-1] + t.BoxCol
		if i > 0 && at[i] <= at[i-1] {
			at = nil
			break
		}
	}
	f.boxAt = &at
	return at
}

// tasksFile is one side of a changed tasks file.
type tasksFile struct {
	path string
	blob gitref.Hash
	unit specfmt.Unit
	// root is the nested project root the unit is under ("" the
	// repository's root); unit.Dir is repository-relative either way.
	root string
	// unrecognized: the file is named tasks.md but no layout's
	// (specfmt.UnrecognizedTasksFile); unit is what it is parsed as.
	unrecognized bool
	// configured, when not "", is why the project's tool configuration makes
	// this Markdown file, named no tasks.md and claimed by no layout, a tasks
	// file (specfmt.ToolTasksFile); unrecognized is then set.
	configured string
	// ignored: the verifier's policy ignores the path at the repository's
	// root; dropped unless it is a nested project's unit's tasks file (the
	// ignore list is for stray files, not for projects a range adds).
	ignored bool
}

// irregularEntry is a symbolic link or submodule at a tasks-file position
// (KindNotRegular).
type irregularEntry struct {
	path, kind string
}

// diffOut collects the tasks files that differ between two commits' trees
// (its entry visits [gitref.Repo.DiffTrees]' changes).
type diffOut struct {
	r       *gitref.Repo
	layouts *specfmt.Layouts
	// oldRoot and newRoot are the compared commits' root trees, where nested
	// project roots are looked up (projectTasksFile).
	oldRoot, newRoot gitref.Hash
	projects         projectCache
	tools            toolFiles
	olds, news       []tasksFile
	irregular        []irregularEntry
	// strays are the Markdown files the commit adds that are no tasks
	// files and that the policy does not ignore (no unit set).
	strays []tasksFile
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
	b, err := tc.r.Blob(f.blob, gitref.BlobRead{Shared: true})
	if err != nil {
		return nil, err
	}
	p, ok := reparseBoxes(prev, b)
	if !ok && prev == nil && tc.seeds != nil {
		p, ok = reparseBoxes(tc.seeds.get(f), b)
	}
	if !ok {
		if p, err = parseTasks(f.unit, b); err != nil {
			return nil, err
		}
		if tc.seeds != nil {
			tc.seeds.put(f, p)
		}
	}
	if len(tc.parsed) >= parsedMax {
		clear(tc.parsed) // memory stays bounded over long histories
	}
	tc.parsed[k] = p
	return p, nil
}

// seedMax bounds a walk's seedFiles: each holds a file's content and tasks
// (≈ 100 KiB for 500 tasks) for the whole walk.
const seedMax = 32

// parsedMax bounds a tickCtx's parsed files. In a walk, what is parsed again is
// mostly the parent's version of a file the previous commit changed.
const parsedMax = 256

func (tc *tickCtx) commitTicks(c gitref.Link) ([]Tick, []Move, error) {
	prev := tc.prev
	tc.prev = &c
	if len(c.Parents) == 0 {
		return nil, nil, nil
	}
	// In a walk, the parent is mostly the commit compared just before.
	p := prev
	if p == nil || p.ID != c.Parents[0] {
		pc, err := tc.r.Commit(c.Parents[0])
		if err != nil {
			return nil, nil, err
		}
		l := pc.Link
		p = &l
	}
	return tc.compare(c, *p)
}

// compare returns the task box changes and moves of commit c against its
// parent p (any of its parents: Tick.Parent names it).
func (tc *tickCtx) compare(c, p gitref.Link) ([]Tick, []Move, error) {
	if p.Tree == c.Tree {
		return nil, nil, nil
	}
	d := &diffOut{r: tc.r, layouts: tc.layouts, oldRoot: p.Tree, newRoot: c.Tree, projects: projectCache{}, tools: toolFiles{}}
	if err := tc.r.DiffTrees(p.Tree, c.Tree, d.entry); err != nil {
		which := "its first parent"
		if len(c.Parents) == 0 || c.Parents[0] != p.ID {
			which = "its parent"
		}
		return nil, nil, fmt.Errorf("comparing %s with %s %s: %w", c.ID, which, p.ID, err)
	}
	pairs, added, err := tc.pair(d.olds, d.news)
	if err != nil {
		return nil, nil, fmt.Errorf("commit %s: %w", c.ID, err)
	}
	base := Tick{Commit: c.ID, Parent: p.ID, Merge: len(c.Parents) > 1}
	var out []Tick
	var moves []Move
	for _, ir := range d.irregular {
		t := base
		t.Kind, t.Path, t.OldPath, t.Irregular = KindNotRegular, ir.path, ir.path, ir.kind
		out = append(out, t)
	}
	if len(d.strays) > 0 {
		gone := removedUnitFiles(d.olds, pairs)
		if len(gone) > 0 {
			left, err := tc.movedOut(c, p, gone, d.strays)
			if err != nil {
				return nil, nil, fmt.Errorf("commit %s: %w", c.ID, err)
			}
			out = append(out, left...)
		}
	}
	for _, pr := range pairs {
		if pr.old.path != pr.new.path {
			moves = append(moves, Move{Commit: base.Commit, OldPath: pr.old.path, Path: pr.new.path, OldUnit: pr.old.unit, Unit: pr.new.unit})
		}
		of := pr.of
		if of == nil {
			if of, err = tc.parse(pr.old); err != nil {
				return nil, nil, tasksFileErr(c.ID, pr.old.path+" (at the parent "+string(p.ID)+")", err)
			}
		}
		var prev *parsedFile
		if pr.old.unit == pr.new.unit {
			prev = of
		}
		nf := pr.nf
		if nf == nil {
			if nf, err = tc.parseAfter(pr.new, prev); err != nil {
				return nil, nil, tasksFileErr(c.ID, pr.new.path, err)
			}
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
			t.Path, t.OldPath, t.Unit, t.Root, t.Unrecognized, t.Configured = pr.new.path, pr.old.path, pr.new.unit, pr.new.root, pr.new.unrecognized, pr.new.configured
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
			case ot.Ticked() && nt.Ticked() && !ot.Same(nt):
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
			out = append(out, taskTick(t, nt, nf.nth(i), d))
		}
	}
	for _, a := range added {
		nf := a.nf
		if nf == nil {
			if nf, err = tc.parse(a.f); err != nil {
				return nil, nil, tasksFileErr(c.ID, a.f.path, err)
			}
		}
		for i := range nf.tasks {
			nt := nf.task(i)
			if !nt.Ticked() {
				continue
			}
			t := base
			t.Kind, t.Born, t.Path, t.Unit, t.Root, t.Unrecognized, t.Configured = KindBornTicked, true, a.f.path, a.f.unit, a.f.root, a.f.unrecognized, a.f.configured
			out = append(out, taskTick(t, nt, nf.nth(i), nf.dups[nt.ID]))
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

// taskTick completes t with the commit's task line nt, its occurrence nth
// among the file's lines of its ID and, when the file repeats its ID, the
// error naming the repeated lines (Tick.Ambiguous).
func taskTick(t Tick, nt specfmt.Task, nth int, dup *specfmt.DuplicateTaskError) Tick {
	sum := sha256.Sum256([]byte(nt.OpenLine()))
	nt = detachTask(nt)
	t.Before = strings.Clone(t.Before)
	t.Line, t.TaskID, t.Nth, t.After, t.Derived, t.Task = nt.LineNo, nt.ID, nth, nt.Line, nt.Derived, nt
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
	t.Group, t.Parent, t.Text = strings.Clone(t.Group), strings.Clone(t.Parent), strings.Clone(t.Text)
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

// entry takes one entry that differs between the compared trees (ea or eb
// nil: absent on that side): every file named tasks.md (any case) is a tasks
// file, of a unit or not (specfmt.Layouts.Classify, the one place units are
// resolved), so every changed directory is read; symbolic links and
// submodules at tasks-file positions are collected too (d.irregular).
func (d *diffOut) entry(path string, a, b *gitref.TreeEntry) error {
	name := ""
	if a != nil {
		name = a.Name
	} else {
		name = b.Name
	}
	if b != nil {
		if k := irregularKind(b.Mode); k != "" && (specfmt.IsTasksFileName(name) || d.layouts.MayHoldUnits(path)) {
			d.irregular = append(d.irregular, irregularEntry{path: path, kind: k})
		}
	}
	tf, ok := classifyTasksFile(d.layouts, path)
	if !ok && !isMarkdownName(name) {
		return nil
	}
	side := func(e *gitref.TreeEntry, root gitref.Hash, files *[]tasksFile) {
		if e == nil || !e.Mode.IsRegular() {
			return
		}
		t := tf
		if !ok {
			// A Markdown file the project's tool reads tasks from as its
			// configuration at this side says (docs/format.md#tasks-files-a-tool-configures).
			var tool bool
			t, tool = toolTasksFile(d.r, root, path, d.tools)
			if d.layouts.IgnoresPath(path) {
				return
			}
			if !tool {
				if files == &d.news && a == nil {
					// A Markdown file the commit adds, where a removed
					// unit's tasks may have gone (tickCtx.movedOut).
					d.strays = append(d.strays, tasksFile{path: path, blob: e.ID()})
				}
				return
			}
		}
		if t.unrecognized {
			t = projectTasksFile(d.r, d.layouts, root, path, t, d.projects)
		}
		if t.ignored {
			return
		}
		t.blob = e.ID()
		*files = append(*files, t)
	}
	side(a, d.oldRoot, &d.olds)
	side(b, d.newRoot, &d.news)
	return nil
}

// classifyTasksFile is path as a tasks file of the walk (no blob): a unit's,
// or a file named tasks.md no layout claims (parsed as a spec-kit unit of its
// directory, unrecognized set; ignored set too when the policy ignores it,
// for the caller to drop unless a nested project claims it); ok is false for
// other paths.
func classifyTasksFile(l *specfmt.Layouts, path string) (tasksFile, bool) {
	u, kind := l.Classify(path)
	switch kind {
	case specfmt.UnitTasksFile:
		return tasksFile{path: path, unit: u}, true
	case specfmt.UnrecognizedTasksFile, specfmt.IgnoredTasksFile:
		dir := "."
		if i := strings.LastIndexByte(path, '/'); i >= 0 {
			dir = path[:i]
		}
		if !fs.ValidPath(dir) || dir == "." || strings.Contains(dir, `\`) {
			dir = "_" // the root, or a name specfmt refuses: parsed as some unit
		}
		feature := dir[strings.LastIndexByte(dir, '/')+1:]
		return tasksFile{path: path, unit: specfmt.Unit{Format: specfmt.Speckit, Feature: feature, Dir: dir}, unrecognized: true, ignored: kind == specfmt.IgnoredTasksFile}, true
	}
	return tasksFile{}, false
}

// irregularKind is "symlink" or "submodule" for those modes, else "".
func irregularKind(m gitref.EntryMode) string {
	switch m {
	case gitref.Symlink:
		return "symlink"
	case gitref.Submodule:
		return "submodule"
	}
	return ""
}
