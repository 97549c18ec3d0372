package notesync

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// DefaultMaxNoteSize is the largest note read or written: 4 MiB (docs/format.md#limits).
const DefaultMaxNoteSize = 4 << 20

// Hash is an object id, as gitref names it.
type Hash = gitobj.Hash

// Notes errors.
var (
	// ErrNotesRefAbsent: the notes ref does not exist in the repository
	// (docs/format.md#git-preconditions: its own error, exit 4, never a pass).
	ErrNotesRefAbsent = errors.New("notes ref absent")
	// ErrNoNote: the notes ref exists but holds no note for the commit.
	ErrNoNote = errors.New("no note for commit")
	// ErrNoteNotText: a note blob holds a NUL byte or invalid UTF-8.
	ErrNoteNotText = errors.New("note is not text")
	// ErrNotesRefNotCommit: a notes ref points at a blob, tree or tag.
	ErrNotesRefNotCommit = errors.New("notes ref does not point at a commit")
)

// NoteError reports a note that cannot be used; Err is ErrNoteNotText or a
// *gitobj.TooLargeError.
type NoteError struct {
	Ref    string // the notes ref
	Commit Hash   // the annotated commit
	Path   string // the note's path in the notes tree
	Err    error
}

func (e *NoteError) Error() string {
	return fmt.Sprintf("note for %s in %s (at %s): %v", e.Commit, e.Ref, e.Path, e.Err)
}

// Unwrap returns Err.
func (e *NoteError) Unwrap() error { return e.Err }

// NotesRefError reports a notes ref that points at an object other than a
// notes commit. It matches ErrNotesRefNotCommit.
type NotesRefError struct {
	Ref  string
	ID   Hash
	Type string // "blob", "tree", "tag"
}

func (e *NotesRefError) Error() string {
	return fmt.Sprintf("notes ref %s points at a %s (%s), not a notes commit: point it back at its notes commit (`git reflog %s` lists where it was; `git update-ref %s <commit>`), or delete it (`git update-ref -d %s`) and fetch it again",
		e.Ref, e.Type, e.ID, e.Ref, e.Ref, e.Ref)
}

// Unwrap returns ErrNotesRefNotCommit.
func (e *NotesRefError) Unwrap() error { return ErrNotesRefNotCommit }

// Repo is what the notes store needs of the repository: objects read and
// written, refs read and moved by compare-and-swap, its configuration and
// where it is. gitref's Repo provides it.
type Repo interface {
	// Commit reads a commit; the error wraps gitobj.ErrMissingObject when
	// the repository holds no commit id.
	Commit(id Hash) (*object.Commit, error)
	// ObjectType is the type of object h.
	ObjectType(h plumbing.Hash) (plumbing.ObjectType, error)
	Tree(id plumbing.Hash) (*object.Tree, error)
	// Blob reads a blob, refusing one over limit (> 0) bytes with a
	// *gitobj.TooLargeError before inflating it.
	Blob(id plumbing.Hash, limit int64) ([]byte, error)
	WriteBlob(b []byte) (plumbing.Hash, error)
	// WriteTree sorts entries in git's tree order and writes the tree.
	WriteTree(entries []object.TreeEntry) (plumbing.Hash, error)
	// WriteCommit writes a commit by taskproof's identity.
	WriteCommit(tree plumbing.Hash, parents []plumbing.Hash, message string, when time.Time) (Hash, error)
	// ReadRef is the id ref name points to, "" when it does not exist.
	ReadRef(name string) (Hash, error)
	// SetRef moves ref name from old to new by compare-and-swap.
	SetRef(name string, old, new Hash, opts refs.LockOptions) error
	// RefDir is the directory holding ref name (the git dir or the common dir).
	RefDir(name string) string
	// LogUpdate appends a ref's move to its reflog, as git does.
	LogUpdate(name string, old, new Hash, msg string)
	// ConfigValue is `git config --get key`.
	ConfigValue(key string) (value string, ok bool, err error)
	// GitDir is the repository's git dir, for the git program.
	GitDir() string
	// Reindex makes the object store list the packs again (after a git
	// command that may have written one).
	Reindex()
}

// Store reads and writes the notes of one notes ref (gitref's NotesStore
// says how). Once its fields are set, its methods may be called from several
// goroutines at once.
type Store struct {
	Repo Repo
	// Ref is the notes ref's full name.
	Ref string
	// Lock bounds waiting for other writers' lock files.
	Lock refs.LockOptions
	// MaxNoteSize in bytes; notes over it are refused on read and write.
	// Default 4 MiB (docs/format.md#limits).
	MaxNoteSize int64
	// Message of the notes commits Update writes. Default
	// "Notes added by 'taskproof attest'\n" (removals: "Notes removed by 'taskproof'\n").
	Message string
	// Pinned, when set, is the notes commit a read-only view (WithTracking)
	// reads instead of the ref.
	Pinned Hash
}

func (s *Store) maxSize() int64 {
	if s.MaxNoteSize > 0 {
		return s.MaxNoteSize
	}
	return DefaultMaxNoteSize
}

// Head returns the notes ref's commit id; the error wraps ErrNotesRefAbsent
// when the ref does not exist.
func (s *Store) Head() (Hash, error) {
	if s.Pinned != "" {
		return s.Pinned, nil
	}
	h, err := s.Repo.ReadRef(s.Ref)
	if err != nil {
		return "", err
	}
	if h == "" {
		return "", fmt.Errorf("%w: %s (fetch and merge the remote's with `taskproof notes fetch`; or, with no notes of your own, `git fetch origin %s:%s`)", ErrNotesRefAbsent, s.Ref, s.Ref, s.Ref)
	}
	return h, nil
}

// notesTree returns the root tree of notes commit head.
func (s *Store) notesTree(head Hash) (plumbing.Hash, error) {
	c, err := s.Repo.Commit(head)
	if errors.Is(err, gitobj.ErrMissingObject) {
		// Another type of object, or none: say which, naming the ref.
		if t, oerr := s.Repo.ObjectType(gitobj.ToPlumbing(head)); oerr == nil && t != plumbing.CommitObject {
			return plumbing.ZeroHash, &NotesRefError{Ref: s.Ref, ID: head, Type: t.String()}
		}
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("notes ref %s: %w", s.Ref, err)
	}
	return c.TreeHash, nil
}

// headTree is the tree of the ref's notes commit; the error wraps
// ErrNotesRefAbsent when the ref does not exist.
func (s *Store) headTree() (plumbing.Hash, error) {
	head, err := s.Head()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return s.notesTree(head)
}

// notePath is one blob holding (part of) a commit's note.
type notePath struct {
	path string // in the notes tree: "<40hex>" or "ab/cd…"
	blob plumbing.Hash
}

// findNote lists every path of the notes tree holding a note for hex, whatever
// the fan-out: flat, any depth of two-hex-digit directories, or a mix.
func (s *Store) findNote(tree plumbing.Hash, hex string) ([]notePath, error) {
	var out []notePath
	var walk func(t plumbing.Hash, k int, prefix string) error
	walk = func(t plumbing.Hash, k int, prefix string) error {
		tr, err := s.Repo.Tree(t)
		if err != nil {
			return err
		}
		for _, e := range tr.Entries {
			switch {
			case e.Mode == filemode.Dir:
				if len(e.Name) == 2 && k+2 < len(hex) && e.Name == hex[k:k+2] {
					if err := walk(e.Hash, k+2, prefix+e.Name+"/"); err != nil {
						return err
					}
				}
			case e.Mode.IsFile() && e.Name == hex[k:]:
				out = append(out, notePath{path: prefix + e.Name, blob: e.Hash})
			}
		}
		return nil
	}
	return out, walk(tree, 0, "")
}

// readNote reads and checks the blobs of a note; several blobs (a mixed tree
// holding the same commit at two fan-out depths) are concatenated in tree
// order, each ending in "\n", as JSON Lines allow.
func (s *Store) readNote(commit Hash, paths []notePath) ([]byte, error) {
	var out []byte
	for i, p := range paths {
		b, err := s.Repo.Blob(p.blob, s.maxSize())
		if err != nil {
			var tl *gitobj.TooLargeError
			if errors.As(err, &tl) {
				return nil, &NoteError{Ref: s.Ref, Commit: commit, Path: p.path, Err: err}
			}
			return nil, err
		}
		if gitobj.HasNUL(b) || !utf8.Valid(b) {
			return nil, &NoteError{Ref: s.Ref, Commit: commit, Path: p.path, Err: ErrNoteNotText}
		}
		if len(paths) == 1 && len(b) > 0 {
			out = b // the usual note: one blob, read into a buffer of its own
			break
		}
		if i > 0 && len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, b...)
	}
	if int64(len(out)) > s.maxSize() {
		return nil, &NoteError{Ref: s.Ref, Commit: commit, Path: paths[0].path,
			Err: &gitobj.TooLargeError{Object: gitobj.FromPlumbing(paths[0].blob), Size: int64(len(out)), Limit: s.maxSize()}}
	}
	return out, nil
}

// Note returns the note attached to commit. Errors wrap ErrNotesRefAbsent (no
// notes ref), ErrNoNote (no note for this commit), or are a *NoteError wrapping
// ErrNoteNotText or ErrTooLarge.
func (s *Store) Note(commit Hash) ([]byte, error) {
	if _, err := gitobj.ParseHash(string(commit)); err != nil {
		return nil, err
	}
	tree, err := s.headTree()
	if err != nil {
		return nil, err
	}
	paths, err := s.findNote(tree, string(commit))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w %s in %s", ErrNoNote, commit, s.Ref)
	}
	return s.readNote(commit, paths)
}

// NoteEntry is one annotated commit of a notes ref.
type NoteEntry struct {
	Commit Hash     // the annotated object's id
	Paths  []string // where its note blobs are in the notes tree
	Blobs  []Hash   // the note blobs, parallel to Paths
}

// All lists every note of the ref, sorted by commit id, for whole-repository
// scans (audit --all). Entries of the notes tree that are not notes (names that
// do not spell an object id) are skipped. Read each with ReadEntry. The error
// wraps ErrNotesRefAbsent when the ref does not exist.
func (s *Store) All() ([]NoteEntry, error) {
	tree, err := s.headTree()
	if err != nil {
		return nil, err
	}
	byCommit := map[Hash]*NoteEntry{}
	err = s.walkNotes(tree, func(id Hash, path string, blob plumbing.Hash) {
		ne := byCommit[id]
		if ne == nil {
			ne = &NoteEntry{Commit: id}
			byCommit[id] = ne
		}
		ne.Paths = append(ne.Paths, path)
		ne.Blobs = append(ne.Blobs, gitobj.FromPlumbing(blob))
	})
	if err != nil {
		return nil, err
	}
	out := make([]NoteEntry, 0, len(byCommit))
	for _, e := range byCommit {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Commit < out[j].Commit })
	return out, nil
}

// walkNotes calls fn for every note of a notes tree, flat or fanned out at any
// depth (docs/format.md#storage): id is the annotated object, path the note's path in the tree.
// Entries whose names do not spell an object id are skipped.
func (s *Store) walkNotes(tree plumbing.Hash, fn func(id Hash, path string, blob plumbing.Hash)) error {
	var walk func(t plumbing.Hash, prefix, hex string) error
	walk = func(t plumbing.Hash, prefix, hex string) error {
		tr, err := s.Repo.Tree(t)
		if err != nil {
			return err
		}
		for _, e := range tr.Entries {
			switch {
			case e.Mode == filemode.Dir && len(e.Name) == 2 && gitobj.IsLowerHex(e.Name) && len(hex)+2 < 40:
				if err := walk(e.Hash, prefix+e.Name+"/", hex+e.Name); err != nil {
					return err
				}
			case e.Mode.IsFile() && len(hex)+len(e.Name) == 40 && gitobj.IsLowerHex(e.Name):
				fn(Hash(hex+e.Name), prefix+e.Name, e.Hash)
			}
		}
		return nil
	}
	return walk(tree, "", "")
}

// ReadEntry reads the note of an entry returned by All, with Note's checks.
func (s *Store) ReadEntry(e NoteEntry) ([]byte, error) {
	var paths []notePath
	for i := range e.Paths {
		paths = append(paths, notePath{path: e.Paths[i], blob: gitobj.ToPlumbing(e.Blobs[i])})
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w %s in %s", ErrNoNote, e.Commit, s.Ref)
	}
	return s.readNote(e.Commit, paths)
}

// mergeFunc computes a commit's new note from its current one (see Update).
type mergeFunc = func(old []byte) (new []byte, err error)

// Update replaces commit's note with merge(old note) and moves the notes ref by
// compare-and-swap (docs/format.md#storage). merge computes the new note from
// the current one (nil when the commit has no note); returning empty content
// removes the note, returning an error aborts the update. It may be called
// more than once (after a lost race) and must not have side effects. The caller owns the line merging; Update owns
// atomicity: objects are written before the ref moves (a crash leaves the old or
// the new notes commit), the ref moves under $GIT_COMMON_DIR/<ref>.lock, and
// when another writer moved the ref first, Update re-reads the note and calls
// merge again while holding the lock, so concurrent writers all land. The new
// note goes where the commit's note already is; otherwise into the tree's
// existing fan-out (flat for a new ref). It returns the new notes commit (the
// old one when nothing changed). Lock problems are *LockError; a write the
// file system refuses (full, read-only, permissions) is a *StorageError.
func (s *Store) Update(commit Hash, merge func(old []byte) (new []byte, err error)) (Hash, error) {
	if merge == nil {
		return "", errors.New("notes update: nil merge func")
	}
	next, err := s.update(commit, merge)
	return next, gitobj.StorageFault(err, s.Ref)
}

func (s *Store) update(commit Hash, merge mergeFunc) (Hash, error) {
	if s.Pinned != "" {
		return "", fmt.Errorf("notes ref %s: a read-only view merged with tracking refs cannot be written", s.Ref)
	}
	if _, err := gitobj.ParseHash(string(commit)); err != nil {
		return "", err
	}
	if _, err := s.Repo.Commit(commit); err != nil {
		return "", fmt.Errorf("annotating %s: %w", commit, err)
	}
	old, err := s.Repo.ReadRef(s.Ref)
	if err != nil {
		return "", err
	}
	next, changed, err := s.prepare(commit, old, merge)
	if err != nil || !changed {
		return next, err
	}
	if TestHookBeforeLock != nil {
		TestHookBeforeLock()
	}
	lock, err := refs.Acquire(s.Repo.RefDir(s.Ref), s.Ref, s.Lock)
	if err != nil {
		return "", err
	}
	id, err := refs.Read(s.Repo.RefDir(s.Ref), s.Ref)
	cur := Hash(id)
	if err != nil {
		lock.Release()
		return "", err
	}
	if cur != old {
		// Lost the race: another writer moved the ref between our read and our
		// lock. Nobody can move it while we hold the lock, so merge again on top
		// of the current notes commit.
		next, changed, err = s.prepare(commit, cur, merge)
		if err != nil || !changed {
			lock.Release()
			return next, err
		}
	}
	s.Repo.LogUpdate(s.Ref, cur, next, "taskproof: notes update of "+string(commit))
	if err := lock.Commit(string(next)); err != nil {
		return "", err
	}
	return next, nil
}

// Remove deletes commit's note. The error wraps ErrNotesRefAbsent or ErrNoNote
// when there is nothing to remove.
func (s *Store) Remove(commit Hash) error {
	if _, err := s.Note(commit); err != nil {
		var ne *NoteError
		if !errors.As(err, &ne) { // a note that is not text may still be removed
			return err
		}
	}
	_, err := s.update(commit, nil)
	return gitobj.StorageFault(err, s.Ref)
}

// TestHookBeforeLock, when set (by tests), is called after a notes update's
// objects are written and before the ref is locked.
var TestHookBeforeLock func()

// errEmpty stands for an existing but empty note, to tell it from no note.
var errEmpty = []byte{}

// prepare builds, on top of notes commit head ("" for none), the notes commit
// holding merge's result for commit, writing its objects. changed is false when
// the note would not change (next is then head).
func (s *Store) prepare(commit Hash, head Hash, merge mergeFunc) (next Hash, changed bool, err error) {
	var tree plumbing.Hash
	var paths []notePath
	var old []byte
	if head != "" {
		if tree, err = s.notesTree(head); err != nil {
			return "", false, err
		}
		if paths, err = s.findNote(tree, string(commit)); err != nil {
			return "", false, err
		}
		if len(paths) > 0 && merge != nil {
			if old, err = s.readNote(commit, paths); err != nil {
				return "", false, err
			}
		}
	}
	if old == nil && len(paths) > 0 {
		old = errEmpty
	}
	var content []byte // merge nil: remove the note, without reading it
	if merge != nil {
		if content, err = merge(old); err != nil {
			return "", false, err
		}
	}
	if len(content) == 0 && len(paths) == 0 {
		return head, false, nil
	}
	if merge != nil && len(paths) == 1 && bytes.Equal(content, old) {
		return head, false, nil
	}
	if int64(len(content)) > s.maxSize() {
		return "", false, &NoteError{Ref: s.Ref, Commit: commit, Path: "(new)",
			Err: &gitobj.TooLargeError{Size: int64(len(content)), Limit: s.maxSize()}}
	}
	if len(content) > 0 && (gitobj.HasNUL(content) || !utf8.Valid(content)) {
		return "", false, &NoteError{Ref: s.Ref, Commit: commit, Path: "(new)", Err: ErrNoteNotText}
	}

	// Remove every existing copy but the first, which is replaced in place.
	var target string
	if len(paths) > 0 {
		target = paths[0].path
		for _, p := range paths[1:] {
			if tree, err = s.setPath(tree, strings.Split(p.path, "/"), plumbing.ZeroHash); err != nil {
				return "", false, err
			}
		}
	} else if target, err = s.newNotePath(tree, string(commit)); err != nil {
		return "", false, err
	}
	blob := plumbing.ZeroHash
	msg := s.Message
	if msg == "" {
		msg = "Notes added by 'taskproof attest'\n"
	}
	if len(content) > 0 {
		if blob, err = s.Repo.WriteBlob(content); err != nil {
			return "", false, err
		}
	} else {
		msg = "Notes removed by 'taskproof'\n"
	}
	if tree, err = s.setPath(tree, strings.Split(target, "/"), blob); err != nil {
		return "", false, err
	}
	var parents []plumbing.Hash
	if head != "" {
		parents = []plumbing.Hash{gitobj.ToPlumbing(head)}
	}
	next, err = s.Repo.WriteCommit(tree, parents, msg, time.Now())
	if err != nil {
		return "", false, err
	}
	return next, true, nil
}

// newNotePath chooses where a new note for hex goes, keeping the tree's layout:
// at each level that already has two-hex-digit directories, the note goes one
// level down (into the directory for its next two digits, or the one other
// notes use to find the depth); flat otherwise and for a new ref.
func (s *Store) newNotePath(tree plumbing.Hash, hex string) (string, error) {
	var dirs []string
	k := 0
	cur := tree
	for !cur.IsZero() && k+2 < len(hex) {
		tr, err := s.Repo.Tree(cur)
		if err != nil {
			return "", err
		}
		var mine, any *object.TreeEntry
		for i := range tr.Entries {
			e := &tr.Entries[i]
			if e.Mode == filemode.Dir && len(e.Name) == 2 && gitobj.IsLowerHex(e.Name) {
				if any == nil {
					any = e
				}
				if e.Name == hex[k:k+2] {
					mine = e
				}
			}
		}
		if any == nil {
			break
		}
		dirs = append(dirs, hex[k:k+2])
		k += 2
		if mine != nil {
			cur = mine.Hash
		} else {
			cur = any.Hash
		}
	}
	return strings.Join(append(dirs, hex[k:]), "/"), nil
}

// setPath returns the id of tree with the blob at comps set to blob (a zero
// blob deletes it, and directories left empty), writing the new trees. A zero
// tree is the empty tree.
func (s *Store) setPath(tree plumbing.Hash, comps []string, blob plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !tree.IsZero() {
		tr, err := s.Repo.Tree(tree)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, tr.Entries...)
	}
	name := comps[0]
	idx := -1
	for i, e := range entries {
		if e.Name == name {
			idx = i
			break
		}
	}
	var newEntry *object.TreeEntry
	if len(comps) == 1 {
		if !blob.IsZero() {
			newEntry = &object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: blob}
		}
	} else {
		sub := plumbing.ZeroHash
		if idx >= 0 && entries[idx].Mode == filemode.Dir {
			sub = entries[idx].Hash
		}
		h, err := s.setPath(sub, comps[1:], blob)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h != emptyTreeHash {
			newEntry = &object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
		}
	}
	switch {
	case idx >= 0 && newEntry != nil:
		entries[idx] = *newEntry
	case idx >= 0:
		entries = append(entries[:idx], entries[idx+1:]...)
	case newEntry != nil:
		entries = append(entries, *newEntry)
	}
	return s.Repo.WriteTree(entries)
}

// emptyTreeHash is the id of the empty tree (SHA-1).
var emptyTreeHash = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")
