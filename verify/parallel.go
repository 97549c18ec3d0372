package verify

import (
	"fmt"
	"sync"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/fanout"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
)

// CheckedObject is one commit's Object results and, for each result that
// verified (ok or unsigned), staleAtHead's reason (nil: current at head).
type CheckedObject struct {
	Results []ObjectResult
	Stale   []*Reason
}

// CheckObjects runs Object (with the commit's tasks from hints, its note
// read by readNote: NoteReader's), then staleAtHead on each result that
// verified, for every commit of commits on all cores (fanout.Each: the Repo is safe for concurrent use, and so are the
// Verifier's memos). The results are keyed by commit and do not depend on the
// workers' order; the error (a git precondition, as Object's) is that of the
// earliest commit in commits that failed.
func (v *Verifier) CheckObjects(commits []gitref.Hash, hints map[gitref.Hash]TaskHints, head gitref.Hash, readNote func(gitref.Hash) ([]byte, error)) (map[gitref.Hash]*CheckedObject, error) {
	out := make([]*CheckedObject, len(commits))
	err := fanout.Each(len(commits), 0, func(i int) error {
		rs, err := v.object(commits[i], hints[commits[i]], readNote)
		if err != nil {
			return err
		}
		co := &CheckedObject{Results: rs, Stale: make([]*Reason, len(rs))}
		for j := range rs {
			if rs[j].Outcome == OK || rs[j].Outcome == Unsigned {
				co.Stale[j] = v.staleAtHead(&rs[j], head)
			}
			rs[j].Statement = statementHeader(rs[j].Statement)
		}
		out[i] = co
		return nil
	})
	if err != nil {
		return nil, err
	}
	m := make(map[gitref.Hash]*CheckedObject, len(commits))
	for i, c := range commits {
		m[c] = out[i]
	}
	return m, nil
}

// statementHeader returns a copy of st without its predicate's JSON tree (nil
// for nil): what the policy reads of a Statement (policyInput) once the
// predicate is decoded into ObjectResult.Predicate. The merge gate keeps one
// result per tick until the policy has run; the tree is most of a statement.
func statementHeader(st *statement.Statement) *statement.Statement {
	if st == nil {
		return nil
	}
	return &statement.Statement{Type: st.Type, Subjects: st.Subjects, PredicateType: st.PredicateType}
}

// noteScanMin is the fewest commits for which CheckObjects lists the notes
// tree once (NotesStore.All) instead of looking each commit's note up.
const noteScanMin = 256

// NoteReader returns how CheckObjects reads the notes of n commits: for many,
// the notes tree is indexed once (NotesStore.Index, in fixed-size ids: a long
// range's index stays small) and each note read from its entry (Note's
// checks), which saves decoding the fan-out trees again for every commit; a
// commit the index does not name has no note (an error wrapping
// gitref.ErrNoNote, as Note's). For few, NotesStore.Note.
func (v *Verifier) NoteReader(n int) (func(gitref.Hash) ([]byte, error), error) {
	if n < noteScanMin {
		return v.Notes.Note, nil
	}
	idx, err := v.Notes.Index()
	if err != nil {
		return nil, err
	}
	return func(c gitref.Hash) ([]byte, error) {
		note, ok, err := idx.Read(c)
		if !ok {
			return nil, fmt.Errorf("commit %s: %w", c, gitref.ErrNoNote)
		}
		return note, err
	}, nil
}

// memos is what a Verifier computes once per content and reads again: safe
// for concurrent use (CheckObjects' workers share it), each map bounded by
// memoSize entries and emptied when full. Nothing in it depends on the
// position in a range, only on the bytes a result is computed from.
type memos struct {
	mu sync.Mutex
	// tasks holds tasks files parsed leniently (specfmt.AllowDuplicateIDs) by
	// unit and content: the merge gate reads head's tasks file of a unit once
	// per tick of that unit (staleAtHead). Shared read-only; ≈ 50 KiB each
	// for a 100-task file.
	tasks map[parseCacheKey]*specfmt.TasksFile
	// tasksBytes estimates the heap the files in tasks and tasksAt hold
	// (tasksFileBytes, a file counted once per map): both are emptied when it
	// would pass tasksMemoBytes. memoSize alone lets a history of many large
	// units keep 256 parses of its tasks files.
	tasksBytes int
	// policyHashes is predicate.PolicySHA256 by speccoder.toml's content
	// (policyKey): every tick of a range usually has the same file.
	policyHashes map[string]string
	// tasksAt is a commit's tasks file by path and unit, parsed as by
	// ParseTasksCached, or the error reading or parsing it: head's, read
	// once per tick of its unit (staleAtHead).
	tasksAt map[tasksAtKey]tasksAtResult
	// projects is projectRoot's search by commit and unit dir
	// (projectCandidates); rootUnits whether the repository's root has the
	// unit dir's tasks file there (rootHasUnit).
	projects  map[projectKey][]string
	rootUnits map[projectKey]bool
}

type tasksAtKey struct {
	commit gitref.Hash
	path   string
	unit   specfmt.Unit
}

type tasksAtResult struct {
	file *specfmt.TasksFile
	err  error
}

type parseCacheKey struct {
	unit    specfmt.Unit
	content string
}

// memoSize bounds each map of memos.
const memoSize = 256

// tasksMemoBytes bounds memos.tasksBytes: 16 MiB, about 60 parses of a
// 500-task file counted in both maps; ticks of one unit usually come
// together, so a few units' files are all the gate asks for again.
// A variable for tests.
var tasksMemoBytes = 16 << 20

// tasksFileBytes estimates the heap f, parsed from size bytes, takes in a
// memo: the content (a key's copy) and about 256 bytes a task.
func tasksFileBytes(size int, f *specfmt.TasksFile) int {
	n := 64 + size
	if f != nil {
		n += 256 * (len(f.Tasks) + len(f.Duplicates))
	}
	return n
}

// putTasks runs put, which stores a file of weight bytes (tasksFileBytes) in
// tasks or tasksAt, under m.mu; a put that would pass tasksMemoBytes, or find
// either map full (memoSize), empties both maps first.
func (m *memos) putTasks(weight int, put func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasksBytes+weight > tasksMemoBytes || len(m.tasks) >= memoSize || len(m.tasksAt) >= memoSize {
		clear(m.tasks)
		clear(m.tasksAt)
		m.tasksBytes = 0
	}
	put()
	m.tasksBytes += weight
}

// memo returns the Verifier's memos, made on first use.
func (v *Verifier) memo() *memos {
	if m := v.memos.Load(); m != nil {
		return m
	}
	v.memos.CompareAndSwap(nil, &memos{tasks: map[parseCacheKey]*specfmt.TasksFile{}, policyHashes: map[string]string{}, tasksAt: map[tasksAtKey]tasksAtResult{}, projects: map[projectKey][]string{}, rootUnits: map[projectKey]bool{}})
	return v.memos.Load()
}

// memoPut stores k → val in m under mu, emptying m first when it is full.
func memoPut[K comparable, V any](mu *sync.Mutex, m map[K]V, k K, val V) {
	mu.Lock()
	defer mu.Unlock()
	if len(m) >= memoSize {
		clear(m)
	}
	m[k] = val
}

// memoGet is m[k] under mu.
func memoGet[K comparable, V any](mu *sync.Mutex, m map[K]V, k K) (V, bool) {
	mu.Lock()
	defer mu.Unlock()
	val, ok := m[k]
	return val, ok
}

// ParseTasksCached is specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
// through the Verifier's memos, for files read again and again (head's). The
// returned file must not be modified. Errors are not kept: they are rare and
// cheap to find again.
func (v *Verifier) ParseTasksCached(u specfmt.Unit, content []byte) (*specfmt.TasksFile, error) {
	m := v.memo()
	k := parseCacheKey{u, string(content)}
	if f, ok := memoGet(&m.mu, m.tasks, k); ok {
		return f, nil
	}
	f, err := specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
	if err != nil {
		return nil, err
	}
	m.putTasks(tasksFileBytes(len(content), f), func() { m.tasks[k] = f })
	return f, nil
}

// ParseTasksOnce is ParseTasksCached for a file read once: a parse the memos
// hold is used, another is not kept. The state check parses every tasks file
// of head and base once; keeping those parses would fill the memos with files
// nothing asks for again, at the end of the gate, when its memory peaks.
func (v *Verifier) ParseTasksOnce(u specfmt.Unit, content []byte) (*specfmt.TasksFile, error) {
	m := v.memo()
	if f, ok := memoGet(&m.mu, m.tasks, parseCacheKey{u, string(content)}); ok {
		return f, nil
	}
	return specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
}

// TasksAt is the tasks file at path of commit, read and parsed as unit's
// (ParseTasksCached), through the Verifier's memos: a commit's file is read
// and parsed once however many ticks ask for it. The error is File's or
// ParseTasks's. The returned file must not be modified.
func (v *Verifier) TasksAt(commit gitref.Hash, path string, unit specfmt.Unit) (*specfmt.TasksFile, error) {
	m := v.memo()
	k := tasksAtKey{commit, path, unit}
	if r, ok := memoGet(&m.mu, m.tasksAt, k); ok {
		return r.file, r.err
	}
	var r tasksAtResult
	b, err := v.Repo.File(commit, path)
	if err != nil {
		r.err = err
	} else {
		r.file, r.err = v.ParseTasksCached(unit, b)
	}
	m.putTasks(tasksFileBytes(len(b), r.file), func() { m.tasksAt[k] = r })
	return r.file, r.err
}

// policySHA256Cached is predicate.PolicySHA256(toml) through the Verifier's
// memos. A nil toml (no file) and an empty one are told apart by the key's
// prefix. Errors are not kept.
func (v *Verifier) policySHA256Cached(toml []byte) (string, error) {
	key := "\x00" // no file
	if toml != nil {
		key = "f" + string(toml)
	}
	m := v.memo()
	if h, ok := memoGet(&m.mu, m.policyHashes, key); ok {
		return h, nil
	}
	h, err := predicate.PolicySHA256(toml)
	if err != nil {
		return "", err
	}
	memoPut(&m.mu, m.policyHashes, key, h)
	return h, nil
}
