package gitref

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/objstore"
	"github.com/taskproof/taskproof/gitref/internal/packstore"
	"github.com/taskproof/taskproof/gitref/internal/rawtree"
	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// Signature is a commit's author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a commit object's fields.
type Commit struct {
	Link      // its id, root tree and parents
	Author    Signature
	Committer Signature
	Message   string
}

// FirstParent returns the commit's first parent, "" for a root commit.
func (l Link) FirstParent() Hash {
	if len(l.Parents) == 0 {
		return ""
	}
	return l.Parents[0]
}

// Resolve resolves a revision to a commit id: "HEAD", "HEAD~2", "HEAD^2",
// branch and tag names (annotated tags are peeled), full and abbreviated ids,
// "refs/…" names. The error wraps ErrUnknownRevision when rev names no commit
// or is a reflog revision ("HEAD@{1}", which go-git would read as HEAD),
// ErrBadRange when it is a range ("A..B", "^A").
func (r *Repo) Resolve(rev string) (Hash, error) {
	if rev == "" || strings.ContainsAny(rev, "\x00\n:") { // "rev:path" names a blob or tree, never a commit
		return "", fmt.Errorf("%w: %q", ErrUnknownRevision, rev)
	}
	if strings.Contains(rev, "..") || strings.HasPrefix(rev, "^") {
		return "", fmt.Errorf("%w: %q where one revision is expected (a range is its own argument, A..B)", ErrBadRange, rev)
	}
	if strings.Contains(rev, "@{") {
		// go-git reads "X@{1}" as X itself: the reflog is not read, so the
		// revision is refused rather than taken for another commit.
		return "", fmt.Errorf("%w: %q: reflog revisions (@{…}) are not read; give the commit id (git rev-parse %s)", ErrUnknownRevision, rev, rev)
	}
	var h *plumbing.Hash
	var unresolved error // go-git's, when it resolves no id
	err := r.store.WithRepo(func(repo *git.Repository) error {
		if names := refs.Ambiguous(repo, rev); len(names) > 0 {
			return fmt.Errorf("%w: %q is ambiguous: %s name different commits; name one in full (e.g. %s)", ErrUnknownRevision, rev, strings.Join(names, ", "), names[len(names)-1])
		}
		full, err := refs.RefFirst(repo, rev)
		if err != nil {
			return err
		}
		rev = full
		h, unresolved = repo.ResolveRevision(plumbing.Revision(rev))
		return nil
	})
	if err != nil {
		return "", err
	}
	if unresolved != nil || h == nil || h.IsZero() {
		err := unresolved
		if bad := r.badRefFor(rev); bad != nil {
			return "", fmt.Errorf("%w: %q: %w", ErrUnknownRevision, rev, bad)
		}
		why := "no such ref or object"
		switch {
		case errors.Is(err, io.EOF):
			// go-git walks past a root commit (HEAD~5 in a history of three).
			why = "no such ancestor: the history is shorter than that"
		case err != nil:
			why = err.Error()
		}
		if r.isShallow() {
			return "", fmt.Errorf("%w: %q: %s; the repository is a shallow clone, and the revision may be beyond its edge: %s", ErrUnknownRevision, rev, why, unshallowHint)
		}
		return "", fmt.Errorf("%w: %q: %s", ErrUnknownRevision, rev, why)
	}
	c, err := r.peelToCommit(*h)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrUnknownRevision, rev, err)
	}
	return fromPlumbing(c), nil
}

// peelToCommit follows annotated tags to the commit they name.
func (r *Repo) peelToCommit(h plumbing.Hash) (plumbing.Hash, error) {
	for range 16 {
		o, err := r.object(plumbing.AnyObject, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, r.missing("object", h)
		}
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("object %s: %w", h, err)
		}
		switch o.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			t, err := object.DecodeTag(r.store.Storer(), o)
			if err != nil {
				return plumbing.ZeroHash, fmt.Errorf("tag %s: %w", h, err)
			}
			h = t.Target
		default:
			return plumbing.ZeroHash, fmt.Errorf("object %s is a %s, not a commit", h, o.Type())
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("tag chain at %s too long", h)
}

// ResolveRange parses a range: "A..B" (commits reachable from B and not from A;
// an empty side means HEAD), or a single revision "B" (base "": all of B's
// history). Symmetric ranges ("A...B") are refused with ErrBadRange.
func (r *Repo) ResolveRange(spec string) (base, head Hash, err error) {
	if strings.Contains(spec, "...") {
		return "", "", fmt.Errorf("%w: %q: symmetric ranges (A...B) are not supported; use A..B", ErrBadRange, spec)
	}
	a, b, isRange := strings.Cut(spec, "..")
	if !isRange {
		head, err = r.Resolve(spec)
		return "", head, err
	}
	if strings.Contains(b, "..") {
		return "", "", fmt.Errorf("%w: %q", ErrBadRange, spec)
	}
	if a == "" {
		a = "HEAD"
	}
	if b == "" {
		b = "HEAD"
	}
	if base, err = r.Resolve(a); err != nil {
		return "", "", err
	}
	if head, err = r.Resolve(b); err != nil {
		return "", "", err
	}
	return base, head, nil
}

// Commit reads commit id. The error wraps ErrNotFound when there is no such commit.
func (r *Repo) Commit(id Hash) (*Commit, error) {
	c, err := r.commit(id)
	if err != nil {
		return nil, err
	}
	return toCommit(id, c), nil
}

// toCommit is c, read by id, as a Commit.
func toCommit(id Hash, c *object.Commit) *Commit {
	out := &Commit{
		Link:      Link{ID: id, Tree: fromPlumbing(c.TreeHash)},
		Author:    Signature{c.Author.Name, c.Author.Email, c.Author.When},
		Committer: Signature{c.Committer.Name, c.Committer.Email, c.Committer.When},
		Message:   c.Message,
	}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, fromPlumbing(p))
	}
	return out
}

// commit reads and decodes commit id, through the Repo's decoded-commit cache:
// a walk reads each commit several times (range, tick detection, its parent's
// side of the next commit, the gate's checks). The *object.Commit returned is
// shared: callers must not modify it.
func (r *Repo) commit(id Hash) (*object.Commit, error) {
	if _, err := ParseHash(string(id)); err != nil {
		return nil, err
	}
	h := toPlumbing(id)
	if r.store.Closed() {
		return nil, errClosed
	}
	if c, ok := r.commits.Get(h); ok {
		return c, nil
	}
	// A commit is read past the object cache: the commit cache keeps it
	// decoded, and a range read again once it outgrows that cache would
	// otherwise push the trees and blobs out of the object cache, keying each
	// commit with a collision-detecting SHA-1 on the way.
	o := r.store.ObjectOnce(plumbing.CommitObject, h)
	var err error
	if o == nil {
		o, err = r.object(plumbing.CommitObject, h)
	}
	var c *object.Commit
	if err == nil {
		// DecodeCommit asks the object for its id, which a memory object
		// would compute (collision-detecting SHA-1 over the content): it is
		// the id the object was read by.
		c, err = object.DecodeCommit(r.store.Storer(), packstore.Hashed(o, h))
	}
	if err == nil {
		r.commits.Put(h, c)
	}
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, r.missing("commit", h)
		}
		return nil, fmt.Errorf("reading commit %s: %w", id, err)
	}
	return c, nil
}

// object reads an object (objstore.Store.Object).
func (r *Repo) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return r.store.Object(t, h, 0)
}

// tree reads tree id (cached by go-git's object cache).
func (r *Repo) tree(id plumbing.Hash) (*object.Tree, error) {
	o, err := r.object(plumbing.TreeObject, id)
	var t *object.Tree
	if err == nil {
		t, err = object.DecodeTree(r.store.Storer(), packstore.Hashed(o, id)) // as in commit
	}
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, r.missing("tree", id)
		}
		return nil, fmt.Errorf("reading tree %s: %w", id, err)
	}
	return t, nil
}

// blob reads blob id whole, refusing blobs larger than limit bytes (limit ≤ 0:
// no limit). With a limit, the size is checked before the content is inflated:
// a loose object's from its header (looseBlob; go-git would inflate it whole
// first), a packed one's from its pack entry (packObject). Packs are looked in first, as git does: a packed note is
// not looked for among the loose objects (a failed open per note).
func (r *Repo) blob(id plumbing.Hash, limit int64) ([]byte, error) {
	if limit > 0 {
		if r.store.Closed() {
			return nil, errClosed
		}
		if !r.store.Cached(id) && !r.store.InPack(id) {
			b, err := r.store.LooseBlob(id, limit)
			if !errors.Is(err, objstore.ErrNotLoose) {
				return b, err
			}
		}
	}
	o, err := r.store.Object(plumbing.BlobObject, id, limit)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, r.missing("blob", id)
		}
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("reading blob %s: %w", id, err)
	}
	if limit > 0 && o.Size() > limit {
		return nil, &gitobj.TooLargeError{Object: fromPlumbing(id), Size: o.Size(), Limit: limit}
	}
	b, err := objstore.ReadAll(o, make([]byte, 0, o.Size()))
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", id, err)
	}
	return b, nil
}

// BlobRead says how [Repo.Blob] reads a blob. The zero value reads a copy of
// the whole blob with no size limit.
type BlobRead struct {
	// Limit refuses a blob over Limit bytes with an error matching ErrTooLarge (≤ 0: no
	// limit), its size checked before its content is inflated. A limited
	// read returns a copy of its own; Shared and Once apply to reads without
	// a limit.
	Limit int64
	// Shared returns the content without a copy where the object cache holds
	// it: the bytes may be shared with the cache, so the caller only reads
	// them and does not keep them past its use (copying what it keeps). For
	// parsing blobs read in bulk (the tick walk's tasks files).
	Shared bool
	// Once is for a blob read once per run: one in a pack is read without
	// putting it, or the delta bases it is rebuilt from, into the object
	// cache, and a copy is returned. Caching an object keys it by the
	// collision-detecting SHA-1 of its content (packstore.ObjectCache.Put),
	// which for a blob at the end of a long delta chain costs more than the
	// read; the chain of one tasks file's blob shares nothing with another's.
	// A blob the cache holds is read from there.
	Once bool
}

// Blob returns blob id's content, read as how says. The error wraps
// ErrNotFound when the blob is missing, ErrTooLarge when it is over
// how.Limit.
func (r *Repo) Blob(id Hash, how BlobRead) ([]byte, error) {
	switch {
	case how.Limit > 0 || !how.Shared && !how.Once:
		return r.blob(toPlumbing(id), how.Limit)
	case how.Once:
		if b, ok := r.store.BlobOnce(toPlumbing(id)); ok {
			return b, nil
		}
		b, err := r.viewOf(plumbing.BlobObject, toPlumbing(id))
		if err != nil {
			return nil, err
		}
		return bytes.Clone(b), nil
	default:
		return r.viewOf(plumbing.BlobObject, toPlumbing(id))
	}
}

// viewOf reads object id of type t without a copy where the object cache
// holds it (packstore.ViewObject), copied otherwise: the bytes may be shared with the
// cache, so the caller only reads them and does not keep them past its use.
// For gitref's own parsing (the tick walk's trees and tasks files).
func (r *Repo) viewOf(t plumbing.ObjectType, id plumbing.Hash) ([]byte, error) {
	o, err := r.object(t, id)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, r.missing(t.String(), id)
		}
		return nil, fmt.Errorf("reading %s %s: %w", t, id, err)
	}
	if b, ok := packstore.ViewObject(o); ok {
		return b, nil
	}
	b, err := objstore.ReadAll(o, make([]byte, 0, o.Size()))
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", t, id, err)
	}
	return b, nil
}

// entryAt finds the tree entry at path ('/'-separated, repository-relative) in
// tree root. ok is false when there is none.
func (r *Repo) entryAt(root plumbing.Hash, path string) (object.TreeEntry, bool, error) {
	bufp := treeBufs.Get().(*[]byte)
	defer treeBufs.Put(bufp)
	cur := root
	for {
		name, rest, more := strings.Cut(path, "/")
		e, found, err := r.lookup(cur, name, bufp)
		if err != nil || !found {
			return object.TreeEntry{}, false, err
		}
		if !more {
			return e, true, nil
		}
		if e.Mode != filemode.Dir {
			return object.TreeEntry{}, false, nil
		}
		cur, path = e.Hash, rest
	}
}

// treeBufs holds buffers for raw trees read by lookup.
var treeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// lookup finds the entry name in tree id by scanning the tree's raw encoding,
// without decoding its other entries (object.DecodeTree allocates every name;
// a path lookup needs one). *buf is scratch space, grown as needed. The whole
// tree is still checked as DecodeTree checks it.
func (r *Repo) lookup(id plumbing.Hash, name string, buf *[]byte) (object.TreeEntry, bool, error) {
	o, err := r.object(plumbing.TreeObject, id)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return object.TreeEntry{}, false, r.missing("tree", id)
		}
		return object.TreeEntry{}, false, fmt.Errorf("reading tree %s: %w", id, err)
	}
	b, err := objstore.ReadAll(o, (*buf)[:0])
	if err != nil {
		return object.TreeEntry{}, false, fmt.Errorf("reading tree %s: %w", id, err)
	}
	*buf = b
	e, found, err := rawtree.Find(b, name)
	if err != nil {
		return object.TreeEntry{}, false, fmt.Errorf("reading tree %s: %w", id, err)
	}
	return e, found, nil
}

// File returns the content of the regular file (or executable) at path in
// commit's tree. path is repository-relative with '/' separators. The error
// wraps ErrNotFound when the commit has no file there.
func (r *Repo) File(commit Hash, path string) ([]byte, error) {
	tree, err := r.commitTree(commit)
	if err != nil {
		return nil, err
	}
	return r.fileInTree(tree, path, fmt.Sprintf("commit %s", commit))
}

// commitTree returns commit id's root tree, read from the commit's first line
// ("tree <hex>") without decoding the rest of it. Errors are commit's.
func (r *Repo) commitTree(id Hash) (plumbing.Hash, error) {
	if _, err := ParseHash(string(id)); err != nil {
		return plumbing.ZeroHash, err
	}
	o, err := r.object(plumbing.CommitObject, toPlumbing(id))
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, r.missing("commit", toPlumbing(id))
		}
		return plumbing.ZeroHash, fmt.Errorf("reading commit %s: %w", id, err)
	}
	var head [len("tree ") + 40 + 1]byte
	rd, err := o.Reader()
	if err == nil {
		_, err = io.ReadFull(rd, head[:])
		rd.Close()
	}
	tree, ok := bytes.CutPrefix(head[:], []byte("tree "))
	if err != nil || !ok || tree[40] != '\n' || !isLowerHex(string(tree[:40])) {
		return plumbing.ZeroHash, fmt.Errorf("reading commit %s: malformed: it does not start with a tree line", id)
	}
	return plumbing.NewHash(string(tree[:40])), nil
}

func (r *Repo) fileInTree(tree plumbing.Hash, path, where string) ([]byte, error) {
	if !validPath(path) {
		return nil, fmt.Errorf("%s: %w: invalid path %q", where, ErrNotFound, path)
	}
	e, ok, err := r.entryAt(tree, path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w: no file %s", where, ErrNotFound, path)
	}
	if !e.Mode.IsFile() || e.Mode == filemode.Symlink {
		return nil, fmt.Errorf("%s: %w: %s is not a regular file (mode %s)", where, ErrNotFound, path, e.Mode)
	}
	return r.blob(e.Hash, 0)
}

// validPath accepts repository-relative '/'-separated paths without empty,
// "." or ".." elements.
func validPath(p string) bool {
	if p == "" {
		return false
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." {
			return false
		}
	}
	return true
}

// WriteCommit writes a commit object with the given tree and parent (parent ""
// for a root commit) and message, authored and committed by taskproof
// (docs/format.md#storage) at the current time, and returns its id. It moves no ref: use
// SetRef. Used for the skip records of docs/format.md#storage.
func (r *Repo) WriteCommit(tree, parent Hash, message string) (Hash, error) {
	if _, err := ParseHash(string(tree)); err != nil {
		return "", err
	}
	if _, err := r.tree(toPlumbing(tree)); err != nil {
		return "", err
	}
	var parents []plumbing.Hash
	if parent != "" {
		if _, err := r.commit(parent); err != nil {
			return "", err
		}
		parents = append(parents, toPlumbing(parent))
	}
	h, err := r.writeCommit(toPlumbing(tree), parents, message, time.Now())
	return h, storageFault(err, "")
}

// identity is the author and committer of the commits taskproof writes (docs/format.md#storage).
var identity = Signature{Name: "taskproof", Email: "taskproof@users.noreply.invalid"}

func (r *Repo) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, message string, when time.Time) (Hash, error) {
	sig := object.Signature{Name: identity.Name, Email: identity.Email, When: when.Truncate(time.Second)}
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: tree, ParentHashes: parents}
	o := r.store.Storer().NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return "", fmt.Errorf("encoding commit: %w", err)
	}
	h, err := r.store.Storer().SetEncodedObject(o)
	if err != nil {
		return "", fmt.Errorf("writing commit object: %w", err)
	}
	return fromPlumbing(h), nil
}

// PackOrder returns the positions of ids (0 … len(ids)-1) in the order their
// objects are stored: by the pack that holds each, then by offset in it;
// objects no pack holds come last, in the order given. Reading many objects
// of one kind in this order finds each delta's base in a small object cache
// (objstore.Store.PackOrder says why).
func (r *Repo) PackOrder(ids []Hash) ([]int, error) { return r.store.PackOrder(ids) }
