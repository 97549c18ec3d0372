// Package memo holds what a Verifier reads of a repository and computes once
// per content or commit, and reads again: tasks files parsed, policy
// digests, where the nested projects are. Each map is bounded; nothing in it
// depends on the position in a range.
package memo

import (
	"io/fs"
	"path"
	"sync"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// maxProjectSearch bounds the directories ProjectCandidates reads looking for
// a nested project (docs/format.md#project-root); maxProjectDepth how deep.
const (
	maxProjectSearch = 4096
	maxProjectDepth  = tick.MaxProjectDepth
)

// Memos is what a Verifier computes once per content and reads again: safe
// for concurrent use (the object checks' workers share it), each map bounded by
// memoSize entries and emptied when full. Nothing in it depends on the
// position in a range, only on the bytes a result is computed from.
type Memos struct {
	mu sync.Mutex
	// tasks holds tasks files parsed leniently (specfmt.AllowDuplicateIDs) by
	// unit and content: the merge gate reads head's tasks file of a unit once
	// per tick of that unit (verify.Verifier.StaleAtHead). Shared read-only; ≈ 50 KiB each
	// for a 100-task file.
	tasks map[parseCacheKey]*specfmt.TasksFile
	// tasksBytes estimates the heap the files in tasks and tasksAt hold
	// (TasksFileBytes, a file counted once per map): both are emptied when it
	// would pass TasksBytes. memoSize alone lets a history of many large
	// units keep 256 parses of its tasks files.
	tasksBytes int
	// policyHashes is predicate.PolicySHA256 by speccoder.toml's content
	// (policyKey): every tick of a range usually has the same file.
	policyHashes map[string]string
	// tasksAt is a commit's tasks file by path and unit, parsed as by
	// ParseTasks, or the error reading or parsing it: head's, read
	// once per tick of its unit (verify.Verifier.StaleAtHead).
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

// memoSize bounds each map of Memos.
const memoSize = 256

// TasksBytes bounds the estimate of the heap the parsed tasks files hold: 16 MiB, about 60 parses of a
// 500-task file counted in both maps; ticks of one unit usually come
// together, so a few units' files are all the gate asks for again.
// A variable for tests.
var TasksBytes = 16 << 20

// tasksFileBytes estimates the heap f, parsed from size bytes, takes in a
// memo: the content (a key's copy) and about 256 bytes a task.
func TasksFileBytes(size int, f *specfmt.TasksFile) int {
	n := 64 + size
	if f != nil {
		n += 256 * (len(f.Tasks) + len(f.Duplicates))
	}
	return n
}

// putTasks runs put, which stores a file of weight bytes (TasksFileBytes) in
// tasks or tasksAt, under m.mu; a put that would pass TasksBytes, or find
// either map full (memoSize), empties both maps first.
func (m *Memos) putTasks(weight int, put func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tasksBytes+weight > TasksBytes || len(m.tasks) >= memoSize || len(m.tasksAt) >= memoSize {
		clear(m.tasks)
		clear(m.tasksAt)
		m.tasksBytes = 0
	}
	put()
	m.tasksBytes += weight
}

// New returns empty Memos.
func New() *Memos {
	return &Memos{tasks: map[parseCacheKey]*specfmt.TasksFile{}, policyHashes: map[string]string{}, tasksAt: map[tasksAtKey]tasksAtResult{}, projects: map[projectKey][]string{}, rootUnits: map[projectKey]bool{}}
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

// ParseTasks is specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
// through the memos, for files read again and again (head's). The
// returned file must not be modified. Errors are not kept: they are rare and
// cheap to find again.
func (m *Memos) ParseTasks(u specfmt.Unit, content []byte) (*specfmt.TasksFile, error) {
	k := parseCacheKey{u, string(content)}
	if f, ok := memoGet(&m.mu, m.tasks, k); ok {
		return f, nil
	}
	f, err := specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
	if err != nil {
		return nil, err
	}
	m.putTasks(TasksFileBytes(len(content), f), func() { m.tasks[k] = f })
	return f, nil
}

// ParseTasksOnce is ParseTasks for a file read once: a parse the memos
// hold is used, another is not kept. The state check parses every tasks file
// of head and base once; keeping those parses would fill the memos with files
// nothing asks for again, at the end of the gate, when its memory peaks.
func (m *Memos) ParseTasksOnce(u specfmt.Unit, content []byte) (*specfmt.TasksFile, error) {
	if f, ok := memoGet(&m.mu, m.tasks, parseCacheKey{u, string(content)}); ok {
		return f, nil
	}
	return specfmt.ParseTasks(u, content, specfmt.AllowDuplicateIDs())
}

// TasksAt is the tasks file at path of commit, read and parsed as unit's
// (ParseTasks), through the memos: a commit's file is read
// and parsed once however many ticks ask for it. The error is File's or
// ParseTasks's. The returned file must not be modified.
func (m *Memos) TasksAt(repo *gitref.Repo, commit gitref.Hash, path string, unit specfmt.Unit) (*specfmt.TasksFile, error) {
	k := tasksAtKey{commit, path, unit}
	if r, ok := memoGet(&m.mu, m.tasksAt, k); ok {
		return r.file, r.err
	}
	var r tasksAtResult
	b, err := repo.File(commit, path)
	if err != nil {
		r.err = err
	} else {
		r.file, r.err = m.ParseTasks(unit, b)
	}
	m.putTasks(TasksFileBytes(len(b), r.file), func() { m.tasksAt[k] = r })
	return r.file, r.err
}

// PolicySHA256 is predicate.PolicySHA256(toml) through the memos. A nil toml (no file) and an empty one are told apart by the key's
// prefix. Errors are not kept.
func (m *Memos) PolicySHA256(toml []byte) (string, error) {
	key := "\x00" // no file
	if toml != nil {
		key = "f" + string(toml)
	}
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

// RootHasUnit reports whether the tasks file tasks is at the repository's root at
// commit c, through the memos (a commit's statements ask for the
// same commit and dir).
func (m *Memos) RootHasUnit(repo *gitref.Repo, c gitref.Hash, tasks string) bool {
	k := projectKey{c, tasks}
	if has, ok := memoGet(&m.mu, m.rootUnits, k); ok {
		return has
	}
	has := false
	if fsys, err := repo.FS(c); err == nil {
		_, err = fs.Stat(fsys, tasks)
		has = err == nil
	}
	memoPut(&m.mu, m.rootUnits, k, has)
	return has
}

// ProjectCandidates is the search at commit c for the nested projects whose
// unit has the tasks file tasks (docs/format.md#project-root), through the memos (a commit's statements, and a statement's
// line hashes, ask for the same commit and dir): nil when the commit cannot be
// read, else every directory P
// (breadth first, at most maxProjectDepth levels and maxProjectSearch
// directories) whose P/<tasks> has P as its nearest project root. The
// returned slice must not be modified.
func (m *Memos) ProjectCandidates(repo *gitref.Repo, c gitref.Hash, tasks string) []string {
	k := projectKey{c, tasks}
	if found, ok := memoGet(&m.mu, m.projects, k); ok {
		return found
	}
	found := searchProjects(repo, c, tasks)
	memoPut(&m.mu, m.projects, k, found)
	return found
}

type projectKey struct {
	commit gitref.Hash
	tasks  string
}

// searchProjects is ProjectCandidates without the memo.
func searchProjects(repo *gitref.Repo, c gitref.Hash, tasks string) []string {
	fsys, err := repo.FS(c)
	if err != nil {
		return nil
	}
	exists := func(p string) bool {
		_, err := fs.Stat(fsys, p)
		return err == nil
	}
	var found []string
	queue := []string{"."}
	visited := 0
	for depth := 0; depth < maxProjectDepth && len(queue) > 0 && visited < maxProjectSearch; depth++ {
		var next []string
		for _, d := range queue {
			if visited++; visited > maxProjectSearch {
				break
			}
			entries, err := fs.ReadDir(fsys, d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() {
					continue
				}
				p := path.Join(d, e.Name())
				next = append(next, p)
				if !exists(p+"/"+specfmt.ProjectConfig) || !exists(p+"/"+tasks) {
					continue
				}
				root, _, ok := specfmt.ProjectUnit(p+"/"+tasks, func(x string) bool { return exists(x + "/" + specfmt.ProjectConfig) })
				if ok && root == p {
					found = append(found, p)
				}
			}
		}
		queue = next
	}
	return found
}
