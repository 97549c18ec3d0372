package gitref

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Signature is a commit's author or committer.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is a commit object's fields.
type Commit struct {
	ID        Hash
	Tree      Hash   // the root tree's id (SPEC §4 "tree")
	Parents   []Hash // in order; Parents[0] is the first parent (SPEC §1)
	Author    Signature
	Committer Signature
	Message   string
}

// FirstParent returns the commit's first parent, "" for a root commit.
func (c *Commit) FirstParent() Hash {
	if len(c.Parents) == 0 {
		return ""
	}
	return c.Parents[0]
}

// Resolve resolves a revision to a commit id: "HEAD", "HEAD~2", "HEAD^2",
// branch and tag names (annotated tags are peeled), full and abbreviated ids,
// "refs/…" names. The error wraps ErrUnknownRevision when rev names no commit.
func (r *Repo) Resolve(rev string) (Hash, error) {
	if rev == "" || strings.ContainsAny(rev, "\x00\n:") { // "rev:path" names a blob or tree, never a commit
		return "", fmt.Errorf("%w: %q", ErrUnknownRevision, rev)
	}
	h, err := r.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil || h == nil || h.IsZero() {
		why := "no such ref or object"
		if err != nil {
			why = err.Error()
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
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("object %s: %w", h, err)
		}
		switch o.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			t, err := object.DecodeTag(r.storage, o)
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
	out := &Commit{
		ID:        id,
		Tree:      fromPlumbing(c.TreeHash),
		Author:    Signature{c.Author.Name, c.Author.Email, c.Author.When},
		Committer: Signature{c.Committer.Name, c.Committer.Email, c.Committer.When},
		Message:   c.Message,
	}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, fromPlumbing(p))
	}
	return out, nil
}

func (r *Repo) commit(id Hash) (*object.Commit, error) {
	if _, err := ParseHash(string(id)); err != nil {
		return nil, err
	}
	o, err := r.object(plumbing.CommitObject, id.plumbing())
	var c *object.Commit
	if err == nil {
		c, err = object.DecodeCommit(r.storage, o)
	}
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fmt.Errorf("commit %s: %w (%v)", id, ErrNotFound, err)
		}
		return nil, fmt.Errorf("reading commit %s: %w", id, err)
	}
	return c, nil
}

// object reads an object. go-git loads its pack index once and can keep an
// empty one when it raced with a concurrent writer of the objects directory, so
// a miss re-reads the pack indexes once before reporting ErrObjectNotFound.
func (r *Repo) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := r.storage.EncodedObject(t, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		r.storage.Reindex()
		o, err = r.storage.EncodedObject(t, h)
	}
	return o, err
}

// tree reads tree id (cached by go-git's object cache).
func (r *Repo) tree(id plumbing.Hash) (*object.Tree, error) {
	o, err := r.object(plumbing.TreeObject, id)
	var t *object.Tree
	if err == nil {
		t, err = object.DecodeTree(r.storage, o)
	}
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fmt.Errorf("tree %s: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("reading tree %s: %w", id, err)
	}
	return t, nil
}

// blob reads blob id whole, refusing blobs larger than limit bytes (limit ≤ 0:
// no limit).
func (r *Repo) blob(id plumbing.Hash, limit int64) ([]byte, error) {
	o, err := r.object(plumbing.BlobObject, id)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, fmt.Errorf("blob %s: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("reading blob %s: %w", id, err)
	}
	if limit > 0 && o.Size() > limit {
		return nil, &TooLargeError{Object: fromPlumbing(id), Size: o.Size(), Limit: limit}
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: %w", id, err)
	}
	defer rd.Close()
	b := make([]byte, 0, o.Size())
	buf := make([]byte, 32*1024)
	for {
		n, err := rd.Read(buf)
		b = append(b, buf[:n]...)
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading blob %s: %w", id, err)
		}
	}
}

// ErrTooLarge is wrapped by TooLargeError.
var ErrTooLarge = errors.New("object too large")

// TooLargeError reports a blob over a size limit (SPEC §9 limits notes to 4 MiB).
type TooLargeError struct {
	Object Hash
	Size   int64 // bytes
	Limit  int64 // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("blob %s is %d bytes, over the limit of %d", e.Object, e.Size, e.Limit)
}

// Unwrap returns ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// entryAt finds the tree entry at path ('/'-separated, repository-relative) in
// tree root. ok is false when there is none.
func (r *Repo) entryAt(root plumbing.Hash, path string) (object.TreeEntry, bool, error) {
	cur := root
	for {
		name, rest, more := strings.Cut(path, "/")
		t, err := r.tree(cur)
		if err != nil {
			return object.TreeEntry{}, false, err
		}
		e, found := findEntry(t, name)
		if !found {
			return object.TreeEntry{}, false, nil
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

// findEntry binary-searches nothing: trees are small and git's order is not
// plain byte order for directories, so a linear scan is both simple and correct.
func findEntry(t *object.Tree, name string) (object.TreeEntry, bool) {
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// File returns the content of the regular file (or executable) at path in
// commit's tree. path is repository-relative with '/' separators. The error
// wraps ErrNotFound when the commit has no file there.
func (r *Repo) File(commit Hash, path string) ([]byte, error) {
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	return r.fileInTree(c.TreeHash, path, fmt.Sprintf("commit %s", commit))
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
// (SPEC §2) at the current time, and returns its id. It moves no ref: use
// SetRef. Used for the skip records of SPEC §2.
func (r *Repo) WriteCommit(tree, parent Hash, message string) (Hash, error) {
	if _, err := ParseHash(string(tree)); err != nil {
		return "", err
	}
	if _, err := r.tree(tree.plumbing()); err != nil {
		return "", err
	}
	var parents []plumbing.Hash
	if parent != "" {
		if _, err := r.commit(parent); err != nil {
			return "", err
		}
		parents = append(parents, parent.plumbing())
	}
	return r.writeCommit(tree.plumbing(), parents, message, time.Now())
}

// Identity is the author and committer of the commits taskproof writes (SPEC §2).
var Identity = Signature{Name: "taskproof", Email: "taskproof@users.noreply.invalid"}

func (r *Repo) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, message string, when time.Time) (Hash, error) {
	sig := object.Signature{Name: Identity.Name, Email: Identity.Email, When: when.Truncate(time.Second)}
	c := &object.Commit{Author: sig, Committer: sig, Message: message, TreeHash: tree, ParentHashes: parents}
	o := r.storage.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		return "", fmt.Errorf("encoding commit: %w", err)
	}
	h, err := r.storage.SetEncodedObject(o)
	if err != nil {
		return "", fmt.Errorf("writing commit object: %w", err)
	}
	return fromPlumbing(h), nil
}

// CommitsWithTree returns the commits whose root tree is tree, among the
// commits reachable from heads (from every ref outside refs/notes/ when heads
// is empty), in no particular order. Used to report same_tree_as (SPEC §8).
func (r *Repo) CommitsWithTree(tree Hash, heads ...Hash) ([]Hash, error) {
	if _, err := ParseHash(string(tree)); err != nil {
		return nil, err
	}
	var starts []plumbing.Hash
	if len(heads) == 0 {
		refs, err := r.storage.IterReferences()
		if err != nil {
			return nil, fmt.Errorf("listing refs: %w", err)
		}
		err = refs.ForEach(func(ref *plumbing.Reference) error {
			if ref.Type() != plumbing.HashReference || strings.HasPrefix(ref.Name().String(), "refs/notes/") {
				return nil
			}
			if c, err := r.peelToCommit(ref.Hash()); err == nil {
				starts = append(starts, c)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	} else {
		for _, h := range heads {
			starts = append(starts, h.plumbing())
		}
	}
	seen := map[plumbing.Hash]bool{}
	var out []Hash
	want := tree.plumbing()
	for len(starts) > 0 {
		h := starts[len(starts)-1]
		starts = starts[:len(starts)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := object.GetCommit(r.storage, h)
		if err != nil {
			return nil, fmt.Errorf("reading commit %s: %w", h, err)
		}
		if c.TreeHash == want {
			out = append(out, fromPlumbing(h))
		}
		starts = append(starts, c.ParentHashes...)
	}
	return out, nil
}
