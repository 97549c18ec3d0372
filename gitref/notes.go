package gitref

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/notesync"
	"github.com/taskproof/taskproof/gitref/internal/refs"
	"github.com/taskproof/taskproof/notesref"
)

// Notes errors.
var (
	// ErrNotesRefAbsent: the notes ref does not exist in the repository
	// (docs/format.md#git-preconditions: its own error, exit 4, never a pass).
	ErrNotesRefAbsent = notesync.ErrNotesRefAbsent
	// ErrNoNote: the notes ref exists but holds no note for the commit.
	ErrNoNote = notesync.ErrNoNote
	// ErrNoteNotText: a note blob holds a NUL byte or invalid UTF-8.
	ErrNoteNotText = notesync.ErrNoteNotText
)

// Errors of notes synchronisation.
var (
	// ErrGitProgram: the git program is not installed, or a git command failed
	// for a reason other than a rejected ref (network, authentication, unknown
	// remote). Its message names git's arguments, exit code and standard
	// error.
	ErrGitProgram = notesync.ErrGitProgram
	// ErrRemoteNotesAbsent: the remote has no notes ref.
	ErrRemoteNotesAbsent = notesync.ErrRemoteNotesAbsent
	// ErrRemoteUnknown: the remote is a bare name no remote is configured
	// under (nor a URL or a path).
	ErrRemoteUnknown = notesync.ErrRemoteUnknown
	// ErrPushRetries: the push was rejected again after every retry (the remote
	// keeps moving).
	ErrPushRetries = notesync.ErrPushRetries
)

// NoteError reports a note that cannot be used: Ref, the notes ref; Commit,
// the annotated commit; Path, the note's path in the notes tree; Err,
// ErrNoteNotText or an error matching ErrTooLarge.
type NoteError = notesync.NoteError

// NoteEntry is one annotated commit of a notes ref: Commit, the annotated
// object's id; Paths, where its note blobs are in the notes tree; Blobs, the
// note blobs, parallel to Paths.
type NoteEntry = notesync.NoteEntry

// SyncOptions configure [NotesStore.Sync]: Remote (a remote name or URL,
// default "origin"), Merge (decides a commit's note both sides changed;
// required), ConflictsRef and MergeConflicts (where the lines Merge displaced
// are kept, and their set union), SkipRefs (also move the skip records, never
// forced), MaxAttempts (push attempts, default 5), Git (the git program,
// default "git" from PATH) and Push (push after fetching).
type SyncOptions = notesync.SyncOptions

// SyncResult says what Sync did: the local notes ref Before and
// After, the remote's head, the Action ("up-to-date", "created",
// "fast-forward", "merged", "pushed"), the commits whose notes were Merged,
// the lines that Arrived in or were Removed to the conflicts ref, the refs
// Rejected, and whether the remote was Rewritten by someone else.
type SyncResult = notesync.SyncResult

// NotesStore reads and writes the notes of one notes ref. Its fields may be set
// before use; zero values take the defaults. Once its fields are set, its
// methods may be called from several goroutines at once, like the Repo's
// (Update's compare-and-swap lands every concurrent writer's note).
type NotesStore struct {
	repo *Repo
	ref  string

	// MaxNoteSize in bytes; notes over it are refused on read and write.
	// Default 4 MiB (docs/format.md#limits).
	MaxNoteSize int64
	// Message of the notes commits Update writes. Default
	// "Notes added by 'taskproof attest'\n" (removals: "Notes removed by 'taskproof'\n").
	Message string

	// lock bounds waiting for other writers' lock files (the defaults but
	// in tests).
	lock refs.LockOptions
	// pinned, when set, is the notes commit a read-only view (WithTracking)
	// reads instead of the ref.
	pinned Hash
}

// Notes returns the notes store of ref (notesref.Default when ref is ""),
// named as `git notes --ref` names it: "refs/notes/x" as given, "notes/x" and
// "x" under refs/notes/. Any other ref under refs/ (a branch, a tag) is
// refused with ErrBadRefName: git keeps notes only under refs/notes/, and a
// branch's tree read as a notes tree would hold no notes.
func (r *Repo) Notes(ref string) (*NotesStore, error) {
	if ref == "" {
		ref = notesref.Default
	}
	switch {
	case strings.HasPrefix(ref, "refs/notes/"):
	case strings.HasPrefix(ref, "notes/"):
		ref = "refs/" + ref
	case strings.HasPrefix(ref, "refs/"):
		return nil, fmt.Errorf("%w: notes ref %q is outside refs/notes/: git keeps notes only there (refs/notes/<name>, or <name> for short)", ErrBadRefName, ref)
	default:
		ref = "refs/notes/" + ref
	}
	if !validRefName(ref) {
		return nil, fmt.Errorf("%w: notes ref %q", ErrBadRefName, ref)
	}
	return &NotesStore{repo: r, ref: ref}, nil
}

// Ref is the store's full ref name.
func (s *NotesStore) Ref() string { return s.ref }

// store is the notes store's machinery, set as s's fields are now.
func (s *NotesStore) store() *notesync.Store {
	return &notesync.Store{Repo: notesRepo{s.repo}, Ref: s.ref, Lock: s.lock,
		MaxNoteSize: s.MaxNoteSize, Message: s.Message, Pinned: s.pinned}
}

// Head returns the notes ref's commit id; the error wraps ErrNotesRefAbsent
// when the ref does not exist.
func (s *NotesStore) Head() (Hash, error) { return s.store().Head() }

// Note returns the note attached to commit. Errors wrap ErrNotesRefAbsent (no
// notes ref), ErrNoNote (no note for this commit), or are a *NoteError wrapping
// ErrNoteNotText or ErrTooLarge.
func (s *NotesStore) Note(commit Hash) ([]byte, error) { return s.store().Note(commit) }

// All lists every note of the ref, sorted by commit id, for whole-repository
// scans (audit --all). Entries of the notes tree that are not notes (names that
// do not spell an object id) are skipped. Read each with ReadEntry. The error
// wraps ErrNotesRefAbsent when the ref does not exist.
func (s *NotesStore) All() ([]NoteEntry, error) { return s.store().All() }

// ReadEntry reads the note of an entry returned by All, with Note's checks.
func (s *NotesStore) ReadEntry(e NoteEntry) ([]byte, error) { return s.store().ReadEntry(e) }

// noteScanMin is the fewest commits for which NoteReader indexes the notes
// tree once instead of looking each commit's note up.
const noteScanMin = 256

// NoteReader returns a function reading a commit's note as Note does (an
// error wrapping ErrNoNote when it has none), for reading the notes of about
// commits commits (the merge gate's objects): for many, the notes tree is
// indexed once, in fixed-size ids so that a long history's index stays a few
// dozen bytes a note, and each note read from its entry, which saves decoding
// the fan-out trees again for every commit; for few, Note itself. Safe for
// concurrent use. The error wraps ErrNotesRefAbsent when the ref does not
// exist.
func (s *NotesStore) NoteReader(commits int) (func(Hash) ([]byte, error), error) {
	if commits < noteScanMin {
		return s.Note, nil
	}
	idx, err := s.store().Index()
	if err != nil {
		return nil, err
	}
	return func(c Hash) ([]byte, error) {
		note, ok, err := idx.Read(c)
		if !ok {
			return nil, fmt.Errorf("commit %s: %w", c, ErrNoNote)
		}
		return note, err
	}, nil
}

// Update replaces commit's note with merge(old note) and moves the notes ref by
// compare-and-swap (docs/format.md#storage). merge computes the new note from
// the current one (nil when the commit has no note); returning empty content
// removes the note, returning an error aborts the update. It may be called
// more than once (after a lost race) and must not have side effects. The
// caller owns the line merging; Update owns atomicity: objects are written
// before the ref moves (a crash leaves the old or the new notes commit), the
// ref moves under $GIT_COMMON_DIR/<ref>.lock, and when another writer moved
// the ref first, Update re-reads the note and calls merge again while holding
// the lock, so concurrent writers all land. The new note goes where the
// commit's note already is; otherwise into the tree's existing fan-out (flat
// for a new ref). It returns the new notes commit (the old one when nothing
// changed). A held lock matches ErrLocked; a write the file system refuses
// (full, read-only, permissions) matches ErrStorage.
func (s *NotesStore) Update(commit Hash, merge func(old []byte) (new []byte, err error)) (Hash, error) {
	return s.store().Update(commit, merge)
}

// Remove deletes commit's note. The error wraps ErrNotesRefAbsent or ErrNoNote
// when there is nothing to remove.
func (s *NotesStore) Remove(commit Hash) error { return s.store().Remove(commit) }

// Sync shares the notes ref with a remote. It fetches the remote's notes ref
// into its tracking ref (TrackingRef) and integrates it into the local one:
// created when absent locally, fast-forwarded when the local ref is behind,
// left alone when it is ahead, and otherwise merged — a notes commit whose
// parents are the local and the remote notes commits and whose tree holds
// every note of both, o.Merge deciding the notes both sides changed. Lines
// o.Merge displaces go to o.ConflictsRef, which is merged with the remote's
// the same way (written before the notes ref moves, so a crash loses
// nothing). Refs move by compare-and-swap; after a lost race the integration
// is redone (bounded). Neither side is ever overwritten. With o.SkipRefs the
// skip records are fetched into SkipTrackingPrefix and each is created or
// fast-forwarded locally; one that differs is listed in Rejected. Without
// o.Push the error wraps ErrRemoteNotesAbsent when the remote has no notes
// ref.
//
// With o.Push, once integrated (so a conflict is decided, and reported,
// before anything is pushed), the local notes ref — and o.ConflictsRef when
// it exists — is pushed to the remote without force. When the remote refuses
// it as not a fast-forward (someone else pushed in between), Sync fetches,
// merges and pushes again, up to o.MaxAttempts times (then the error wraps
// ErrPushRetries); skip records are pushed afterwards, never forced, those
// the remote refuses listed in SyncResult.Rejected; the error wraps
// ErrNotesRefAbsent when there is no notes ref on either side.
//
// The error matches ErrGitProgram when git fails.
func (s *NotesStore) Sync(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	return s.store().Sync(ctx, o)
}

// WithTracking returns a read-only view of the notes ref merged with every
// tracking ref of it that exists (refs/notes/remotes/<remote>/<name>, one per
// remote fetched), as `taskproof notes fetch` would merge them, without
// moving any ref: the merged notes commits are written as objects only.
// merge decides the notes both sides hold differently (the lines it
// displaces are not part of the view). tracking lists the tracking refs
// merged, sorted. With neither the ref nor a tracking ref present the error
// wraps ErrNotesRefAbsent.
func (s *NotesStore) WithTracking(merge func(commit Hash, local, remote []byte) ([]byte, error)) (view *NotesStore, tracking []string, err error) {
	if tracking, err = s.store().TrackingRefs(); err != nil {
		return nil, nil, err
	}
	v, err := s.store().WithTracking(tracking, merge)
	if err != nil {
		return nil, nil, err
	}
	pinned := *s
	pinned.pinned = v.Pinned
	return &pinned, tracking, nil
}

// notesRepo is the Repo as the notes store's machinery reads and writes it.
type notesRepo struct{ r *Repo }

func (n notesRepo) Commit(id Hash) (*object.Commit, error) { return n.r.commit(id) }

func (n notesRepo) ObjectType(h plumbing.Hash) (plumbing.ObjectType, error) {
	o, err := n.r.object(plumbing.AnyObject, h)
	if err != nil {
		return plumbing.InvalidObject, err
	}
	return o.Type(), nil
}

func (n notesRepo) Tree(id plumbing.Hash) (*object.Tree, error)           { return n.r.tree(id) }
func (n notesRepo) Blob(id plumbing.Hash, limit int64) ([]byte, error)    { return n.r.blob(id, limit) }
func (n notesRepo) WriteBlob(b []byte) (plumbing.Hash, error)             { return n.r.writeBlob(b) }
func (n notesRepo) WriteTree(e []object.TreeEntry) (plumbing.Hash, error) { return n.r.writeTree(e) }
func (n notesRepo) WriteCommit(tree plumbing.Hash, parents []plumbing.Hash, message string, when time.Time) (Hash, error) {
	return n.r.writeCommit(tree, parents, message, when)
}
func (n notesRepo) ReadRef(name string) (Hash, error) { return n.r.ReadRef(name) }
func (n notesRepo) SetRef(name string, old, new Hash, opts refs.LockOptions) error {
	return n.r.setRefLocked(name, old, new, opts)
}
func (n notesRepo) RefDir(name string) string { return n.r.refDir(name) }
func (n notesRepo) LogUpdate(name string, old, new Hash, msg string) {
	n.r.logUpdate(name, old, new, msg)
}
func (n notesRepo) ConfigValue(key string) (string, bool, error) { return n.r.configValue(key) }
func (n notesRepo) GitDir() string                               { return n.r.gitDir }
func (n notesRepo) Reindex()                                     { n.r.store.Reindex() }

// storageFault returns err as a storage error (ErrStorage) when the system refused a write
// for one of ErrStorage's reasons (see gitobj.StorageFault).
func storageFault(err error, ref string) error { return gitobj.StorageFault(err, ref) }

// writeTree sorts entries in git's tree order and writes the tree.
func (r *Repo) writeTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	sort.Slice(entries, func(i, j int) bool { return treeKey(entries[i]) < treeKey(entries[j]) })
	t := &object.Tree{Entries: entries}
	o := r.store.Storer().NewEncodedObject()
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encoding tree: %w", err)
	}
	h, err := r.store.Storer().SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing tree object: %w", err)
	}
	return h, nil
}

// treeKey is an entry's sort key in git's order: directories sort as if their
// name ended in '/'.
func treeKey(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

func (r *Repo) writeBlob(b []byte) (plumbing.Hash, error) {
	o := r.store.Storer().NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	o.SetSize(int64(len(b)))
	w, err := o.Writer()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing blob: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return plumbing.ZeroHash, fmt.Errorf("writing blob: %w", err)
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing blob: %w", err)
	}
	h, err := r.store.Storer().SetEncodedObject(o)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("writing blob object: %w", err)
	}
	return h, nil
}
