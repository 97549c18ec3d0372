package gitref

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	cfgformat "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/notesync"
	"github.com/taskproof/taskproof/gitref/internal/packstore"
	"github.com/taskproof/taskproof/gitref/internal/rangewalk"
	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// Errors of repositories that lack what a command needs: git preconditions,
// each with what to do in its message (docs/format.md#git-preconditions).
var (
	// ErrShallow: the repository is a shallow clone and what is asked reaches
	// past its edge (commits whose parents were not fetched). The message
	// names the commit at the edge and what needs its parents.
	ErrShallow = gitobj.ErrShallow
	// ErrMissingObject: an object the repository's refs or objects name is
	// not in the repository — a shallow clone's cut history, a partial clone
	// (whose objects may be missing by design), a damaged repository. The
	// message names the object, its kind and, for a partial clone, the
	// promisor remote; the error also matches ErrNotFound, and ErrShallow in
	// a shallow clone.
	ErrMissingObject = gitobj.ErrMissingObject
	// ErrNotesRefNotCommit: a notes ref points at a blob, tree or tag (the
	// message names the ref, the object and its type).
	ErrNotesRefNotCommit = notesync.ErrNotesRefNotCommit
	// ErrBadRef: a ref file (or packed-refs entry) does not hold an object
	// id; the message names the ref, the file, what it holds (cut to 60
	// bytes) and why it is refused, e.g. "a symbolic ref (refusing to follow
	// it)".
	ErrBadRef = refs.ErrBadRef
	// ErrStorage: the repository's files cannot be written because of where
	// they are kept — a full file system, a read-only one, permissions, the
	// file size limit — which is the repository's situation to fix, not a
	// fault of taskproof. The message names the file, the reason and the ref
	// the write was to move (left as it was); the error also matches the
	// system's own (syscall.ENOSPC, …).
	ErrStorage = gitobj.ErrStorage
)

// unshallowHint says how to get a shallow clone's whole history.
const unshallowHint = gitobj.UnshallowHint

// badRef returns the error of ref name read from path holding text.
func badRef(name, path, text, why string) *refs.BadRefError { return refs.Bad(name, path, text, why) }

// IsShallow reports whether the repository is a shallow clone (its
// $GIT_COMMON_DIR/shallow file lists commits whose parents were not fetched).
func (r *Repo) isShallow() bool {
	r.shallowSet()
	return r.shallowListed
}

// shallowCommits lists the commits at the edge of a shallow clone: those
// .git/shallow lists whose parents are not all in the repository (a commit
// listed there whose parents another branch's fetch brought is not at the
// edge). None for a full clone.
func (r *Repo) shallowCommits() []Hash {
	var out []Hash
	for h := range r.shallowSet() {
		out = append(out, fromPlumbing(h))
	}
	slices.Sort(out)
	return out
}

// shallowSet is the clone's edge (see shallowCommits), read from
// $GIT_COMMON_DIR/shallow once per Repo (a fetch that deepens the clone
// meanwhile is seen by the next Open). An unreadable file lists nothing: a
// parent absent is then still reported, as a missing object.
func (r *Repo) shallowSet() map[plumbing.Hash]bool {
	r.shallowOnce.Do(func() {
		f, err := os.Open(filepath.Join(r.commonDir, "shallow"))
		if err != nil {
			return
		}
		var listed []plumbing.Hash
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if h, err := ParseHash(strings.TrimSpace(sc.Text())); err == nil {
				listed = append(listed, toPlumbing(h))
			}
		}
		f.Close()
		r.shallowListed = len(listed) > 0
		set := map[plumbing.Hash]bool{}
		for _, h := range listed {
			if !r.parentsPresent(h) {
				set[h] = true
			}
		}
		r.shallow = set
	})
	return r.shallow
}

// parentsPresent reports whether commit h and all its parents are readable.
func (r *Repo) parentsPresent(h plumbing.Hash) bool {
	o, err := r.object(plumbing.CommitObject, h)
	if err != nil {
		return false
	}
	c, err := object.DecodeCommit(r.store.Storer(), packstore.Hashed(o, h))
	if err != nil {
		return false
	}
	for _, p := range c.ParentHashes {
		if _, err := r.object(plumbing.CommitObject, p); err != nil {
			return false
		}
	}
	return true
}

// promisorRemote is the promisor remote of a partial clone: the remote
// whose remote.<name>.promisor is true, else extensions.partialClone's value;
// "" when the repository's config names none (or cannot be read). Read once
// per Repo.
func (r *Repo) promisorRemote() string {
	r.promisorOnce.Do(func() { r.promisor = r.readPromisorRemote() })
	return r.promisor
}

func (r *Repo) readPromisorRemote() string {
	b, err := os.ReadFile(filepath.Join(r.commonDir, "config"))
	if err != nil {
		return ""
	}
	raw := cfgformat.New()
	if cfgformat.NewDecoder(bytes.NewReader(b)).Decode(raw) != nil {
		return ""
	}
	if raw.HasSection("remote") {
		for _, sub := range raw.Section("remote").Subsections {
			if strings.EqualFold(sub.Option("promisor"), "true") {
				return sub.Name
			}
		}
	}
	return raw.Section("extensions").Option("partialclone")
}

// isShallowCommit reports whether h is at the edge of a shallow clone.
func (r *Repo) isShallowCommit(h plumbing.Hash) bool { return r.shallowSet()[h] }

// missing is the error for object id of kind not found in the repository. A
// tree or blob is reached from a commit or tree that is there, so its absence
// is damage (or a partial clone): the first is kept for Intact.
func (r *Repo) missing(kind string, id plumbing.Hash) *gitobj.MissingObjectError {
	e := &gitobj.MissingObjectError{Kind: kind, ID: fromPlumbing(id), Shallow: r.isShallow(), Partial: r.promisorRemote()}
	if kind == plumbing.TreeObject.String() || kind == plumbing.BlobObject.String() {
		r.damage.CompareAndSwap(nil, e)
	}
	return e
}

// Intact reports what keeps the repository from being judged. With
// commits, it checks that each one's parents are in the repository, as
// verifying it needs (its first parent's speccoder.toml, docs/format.md#hash-recipes
// policy_sha256, and tasks files): a commit at a shallow clone's edge is an
// error matching ErrShallow, a parent absent otherwise one matching
// ErrMissingObject. Without, it returns the first tree or blob a read of this
// Repo found missing (matching ErrMissingObject), nil when none was: a caller whose checks turn read
// errors into findings (a tasks file "not readable at the object") asks it
// before trusting them, since a repository missing objects cannot be judged.
func (r *Repo) Intact(commits ...Hash) error {
	if len(commits) == 0 {
		if e := r.damage.Load(); e != nil {
			return e
		}
		return nil
	}
	for _, commit := range commits {
		c, err := r.commit(commit)
		if err != nil {
			return err
		}
		if r.isShallowCommit(c.Hash) {
			return &gitobj.ShallowError{Commit: commit, Need: "verifying it reads its first parent"}
		}
		for _, p := range c.ParentHashes {
			if _, err := r.commit(fromPlumbing(p)); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkParents are the parents a history walk follows from commit c, whose
// own are parents: none for a commit at a shallow clone's edge (as git
// grafts it), whose parents are not in the repository. Walks that find such
// a commit in what they must list completely report ErrShallow.
func (r *Repo) walkParents(c plumbing.Hash, parents []plumbing.Hash) []plumbing.Hash {
	if r.isShallowCommit(c) {
		return nil
	}
	return parents
}

// checkRangeEdge refuses a range (rangeSet's result for base..head) holding a
// commit at a shallow clone's edge: the walk did not follow its parents, so
// the range may go on past what was fetched.
func (r *Repo) checkRangeEdge(in map[plumbing.Hash]*rangewalk.Node, base, head plumbing.Hash) error {
	if !r.isShallow() {
		return nil
	}
	var edge []string
	for h := range in {
		if r.isShallowCommit(h) {
			edge = append(edge, h.String())
		}
	}
	if len(edge) == 0 {
		return nil
	}
	slices.Sort(edge)
	return &gitobj.ShallowError{Commit: Hash(edge[0]), Need: fmt.Sprintf("it is a commit of the range %s..%s", base, head)}
}

// badRefFor returns the error (ErrBadRef) of the ref a revision that go-git could
// not resolve names, when that ref's file holds something other than an
// object id (or a symbolic ref to such a file), so that the error names the
// file instead of saying "reference not found"; nil otherwise. rev's ref
// part is what comes before any ~, ^ or @ suffix; it is looked up as git
// does: itself, refs/<rev>, refs/tags/, refs/heads/, refs/remotes/ and
// refs/remotes/<rev>/HEAD.
func (r *Repo) badRefFor(rev string) error {
	name := rev
	if i := strings.IndexAny(name, "~^@"); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		name = "HEAD"
	}
	candidates := refs.Candidates(name)
	for _, c := range candidates {
		if err := r.checkRefFile(c, 0); err != nil {
			return err
		}
	}
	return nil
}

// checkRefFile follows ref name's file (HEAD and other all-caps names in the
// git dir, refs/… in theirs) through symbolic refs, and returns a
// ErrBadRef when a file on the way holds neither "ref: …" nor an object id.
func (r *Repo) checkRefFile(name string, depth int) error {
	if depth > 5 {
		return nil
	}
	var p string
	switch {
	case strings.HasPrefix(name, "refs/") && validRefName(name):
		p = filepath.Join(r.refDir(name), filepath.FromSlash(name))
	case name != "" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "":
		p = filepath.Join(r.gitDir, name)
	default:
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil // absent (or a directory): not this candidate
	}
	s := strings.TrimRight(string(b), "\n")
	if target, ok := strings.CutPrefix(s, "ref:"); ok {
		return r.checkRefFile(strings.TrimSpace(target), depth+1)
	}
	if _, err := ParseHash(s); err != nil {
		return badRef(name, p, s, "not an object id")
	}
	return nil
}
