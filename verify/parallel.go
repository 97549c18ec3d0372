package verify

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// checkedObject is one commit's Object results and, for each result that
// verified (ok or unsigned), staleAtHead's reason (nil: current at head).
type checkedObject struct {
	results []ObjectResult
	stale   []*Reason
}

// checkObjects runs Object (with the commit's tasks from hints), then staleAtHead on each result that verified, for
// every commit of commits on all cores: min(GOMAXPROCS, len(commits)) workers
// share the Repo (safe for concurrent use) and the package's parse cache. The
// results are keyed by commit and do not depend on the workers' order. The
// first error (a git precondition, as Object's) is returned; the work left is
// then skipped.
func (v *Verifier) checkObjects(commits []gitref.Hash, hints map[gitref.Hash]taskHints, head gitref.Hash) (map[gitref.Hash]*checkedObject, error) {
	readNote, err := v.noteReader(len(commits))
	if err != nil {
		return nil, err
	}
	out := make([]*checkedObject, len(commits))
	workers := min(runtime.GOMAXPROCS(0), len(commits))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		next    int
		firstEr error
	)
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if firstEr != nil || next >= len(commits) {
			return -1
		}
		next++
		return next - 1
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := take(); i >= 0; i = take() {
				rs, err := v.object(commits[i], hints[commits[i]], readNote)
				if err != nil {
					mu.Lock()
					if firstEr == nil {
						firstEr = err
					}
					mu.Unlock()
					return
				}
				co := &checkedObject{results: rs, stale: make([]*Reason, len(rs))}
				for j := range rs {
					if rs[j].Outcome == OK || rs[j].Outcome == Unsigned {
						co.stale[j] = v.staleAtHead(&rs[j], head)
					}
					rs[j].Statement = statementHeader(rs[j].Statement)
				}
				out[i] = co
			}
		}()
	}
	wg.Wait()
	if firstEr != nil {
		return nil, firstEr
	}
	m := make(map[gitref.Hash]*checkedObject, len(commits))
	for i, c := range commits {
		m[c] = out[i]
	}
	return m, nil
}

// statementHeader returns a copy of st without its predicate's JSON tree (nil
// for nil): what the policy reads of a Statement (policyInput) once the
// predicate is decoded into ObjectResult.Predicate. The merge gate keeps one
// result per tick until the policy has run; the tree is most of a statement.
func statementHeader(st *attest.Statement) *attest.Statement {
	if st == nil {
		return nil
	}
	return &attest.Statement{Type: st.Type, Subjects: st.Subjects, PredicateType: st.PredicateType}
}

// noteScanMin is the fewest commits for which checkObjects lists the notes
// tree once (NotesStore.All) instead of looking each commit's note up.
const noteScanMin = 256

// noteReader returns how checkObjects reads the notes of n commits: for many,
// the notes tree is listed once and each note read from its entry
// (NotesStore.ReadEntry: Note's checks), which saves decoding the fan-out
// trees again for every commit; a commit the listing does not name has no
// note (an error wrapping gitref.ErrNoNote, as Note's). For few, NotesStore.Note.
func (v *Verifier) noteReader(n int) (func(gitref.Hash) ([]byte, error), error) {
	if n < noteScanMin {
		return v.Notes.Note, nil
	}
	entries, err := v.Notes.All()
	if err != nil {
		return nil, err
	}
	byCommit := make(map[gitref.Hash]gitref.NoteEntry, len(entries))
	for _, e := range entries {
		byCommit[e.Commit] = e
	}
	return func(c gitref.Hash) ([]byte, error) {
		e, ok := byCommit[c]
		if !ok {
			return nil, fmt.Errorf("commit %s: %w", c, gitref.ErrNoNote)
		}
		return v.Notes.ReadEntry(e)
	}, nil
}

// parseCache holds tasks files parsed leniently (specfmt.AllowDuplicateIDs),
// keyed by unit and content, for the verifier's repeated reads of one file: the
// merge gate reads head's tasks file of a unit once per tick of that unit
// (staleAtHead). The parsed files are shared read-only. It holds at most
// parseCacheSize files (≈ 50 KiB each for a 100-task file) and forgets them all
// when full.
type parseCache struct {
	mu    sync.Mutex
	files map[parseCacheKey]*specfmt.TasksFile
}

type parseCacheKey struct {
	unit    specfmt.Unit
	content string
}

const parseCacheSize = 256

var tasksCache = &parseCache{files: map[parseCacheKey]*specfmt.TasksFile{}}

// parseTasksCached is specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
// through the cache, for files read again and again (head's). The returned file
// must not be modified.
func parseTasksCached(u specfmt.Unit, content []byte) (*specfmt.TasksFile, error) {
	c := tasksCache
	c.mu.Lock()
	f, ok := c.files[parseCacheKey{u, string(content)}]
	c.mu.Unlock()
	if ok {
		return f, nil
	}
	f, err := specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
	if err != nil {
		return nil, err // not cached: errors are rare and cheap to find again
	}
	c.mu.Lock()
	if len(c.files) >= parseCacheSize {
		clear(c.files)
	}
	c.files[parseCacheKey{u, string(content)}] = f
	c.mu.Unlock()
	return f, nil
}

// policyHashes memoizes predicate.PolicySHA256 by speccoder.toml's content (""
// for no file): every tick of a range usually has the same file. At most
// parseCacheSize contents are kept; errors are not kept.
var policyHashes = struct {
	mu sync.Mutex
	m  map[string]string
}{m: map[string]string{}}

// policySHA256Cached is predicate.PolicySHA256(toml) through policyHashes. A
// nil toml (no file) and an empty one are told apart by the key's prefix.
func policySHA256Cached(toml []byte) (string, error) {
	key := "\x00" // no file
	if toml != nil {
		key = "f" + string(toml)
	}
	policyHashes.mu.Lock()
	h, ok := policyHashes.m[key]
	policyHashes.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := predicate.PolicySHA256(toml)
	if err != nil {
		return "", err
	}
	policyHashes.mu.Lock()
	if len(policyHashes.m) >= parseCacheSize {
		clear(policyHashes.m)
	}
	policyHashes.m[key] = h
	policyHashes.mu.Unlock()
	return h, nil
}
