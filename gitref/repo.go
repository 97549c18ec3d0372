// Package gitref is taskproof's git layer: it opens repositories, resolves
// revisions, reads commits, trees and files, keeps the notes store that holds
// attestations (docs/format.md#storage) and finds the ticks of tasks files in a commit range
// (docs/format.md#units-and-task-lines, docs/format.md#gate-rules).
//
// gitref is the only taskproof package that imports go-git. It exposes a small
// porcelain built on go-git's plumbing: object ids are lowercase hex strings
// ([Hash]), and files are read through [Repo.File] or the io/fs view [Repo.FS].
//
// A Repo is safe for concurrent use by several goroutines (see [Repo]); the
// notes store's compare-and-swap makes concurrent writers — goroutines sharing a
// Repo, several Repos, or several processes — safe.
package gitref

import (
	"bufio"
	"bytes"
	"crypto"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	gogithash "github.com/go-git/go-git/v5/plumbing/hash"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/taskproof/taskproof/gitref/internal/packidx"
)

// Sentinel errors. Use errors.Is; the errors returned wrap them with the
// directory, revision or ref concerned.
var (
	// ErrNotRepository: the directory is not inside a git work tree, linked
	// worktree or bare repository.
	ErrNotRepository = errors.New("not a git repository")
	// ErrUnsupportedRepository: the repository uses a format go-git cannot read
	// (SHA-256 object ids, the reftable ref backend).
	ErrUnsupportedRepository = errors.New("unsupported repository format")
	// ErrUnknownRevision: a revision does not name a commit of the repository.
	ErrUnknownRevision = errors.New("unknown revision")
	// ErrBadRange: a range expression is not "REV", "A..B" or "..B"/"A..".
	ErrBadRange = errors.New("bad revision range")
	// ErrNotFound: a path does not exist in a commit's tree, or an object is absent.
	ErrNotFound = errors.New("not found")
	// ErrBadHash: a string is not a full lowercase-hex object id.
	ErrBadHash = errors.New("bad object id")
	// ErrBadRefName: a ref name is not a valid name under refs/.
	ErrBadRefName = errors.New("bad ref name")
)

// Hash is a git object id as lowercase hex (40 characters for SHA-1). The empty
// Hash means "none" (no parent, ref absent).
type Hash string

// IsZero reports whether h is the empty Hash.
func (h Hash) IsZero() bool { return h == "" }

// String returns h's hex form.
func (h Hash) String() string { return string(h) }

// ParseHash validates s as a full lowercase hex SHA-1 object id. It returns an
// error wrapping ErrBadHash otherwise.
func ParseHash(s string) (Hash, error) {
	if len(s) != 40 || !isLowerHex(s) {
		return "", fmt.Errorf("%w: %q is not 40 lowercase hex digits", ErrBadHash, s)
	}
	return Hash(s), nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func fromPlumbing(h plumbing.Hash) Hash {
	if h.IsZero() {
		return ""
	}
	return Hash(h.String())
}

func (h Hash) plumbing() plumbing.Hash { return plumbing.NewHash(string(h)) }

// Repo is an open repository. Close it when done: it keeps its pack files open
// for speed.
//
// A Repo is safe for concurrent use by several goroutines: every method may be
// called concurrently with any other, except Close. go-git's storage and pack
// readers are not (a pack reader keeps a file offset and lazily built maps),
// so a Repo keeps a pool of handles — at most max(2, runtime.GOMAXPROCS(0)),
// opened as needed, each a go-git storage with its own pack readers — sharing
// one object cache (defaultObjectCacheSize, see setObjectCacheSize), one index
// per pack, read in place (packIndex), and one open file per pack
// (sharedPacks); every object read borrows a handle for the duration of the
// read. Readers beyond that many wait for a handle to come free. What a read
// returns is shared only through types safe for concurrent use: objects held
// whole in memory, carrying their id (withID), never a go-git pack reader or
// anything that reads through one (see packReaders).
type Repo struct {
	gitDir    string // the repository's (or linked worktree's) git dir
	commonDir string // $GIT_COMMON_DIR: objects, shared refs, packed-refs
	workTree  string // "" for a bare repository

	dotFS    billy.Filesystem // the git dir as go-git sees it (see listFS)
	wtFS     billy.Filesystem // nil for a bare repository
	cache    *objectCache     // shared by the pool's storages
	mapPacks atomic.Bool      // listFS maps pack files (setPackMapping)
	commits  commitCache      // decoded commits (see commit)
	objects  *poolStorer      // object access through the pool, for go-git decoders
	packs    *packSet         // objects/pack, indexes shared by the pool (see packObject)
	packFS   billy.Filesystem // the common dir, for the pool's pack readers

	shallowOnce   sync.Once
	shallow       map[plumbing.Hash]bool             // the shallow clone's edge (see shallowSet)
	shallowListed bool                               // .git/shallow lists commits
	damage        atomic.Pointer[MissingObjectError] // see Damaged

	// Read once from the repository's config, for the errors and writes
	// that ask again and again: the promisor remote of a partial clone
	// (promisorRemote), whether a ref without a log gets one (logsRef).
	promisorOnce sync.Once
	promisor     string
	logsOnce     sync.Once
	logsMode     string

	// Facts of commits, which never change, for a range carry that asks
	// them once to check every pair and again to carry it: PatchID by
	// commit, IsAncestor by pair.
	patchIDs  sync.Map // Hash → string
	ancestors sync.Map // [2]Hash → bool

	// storage.Reindex() makes every storage of the pool re-list the packs
	// before its next read (after running a git command that may add a pack).
	storage reindexer

	mu     sync.Mutex
	cond   *sync.Cond // signalled when a handle is released or the Repo closes
	free   []*handle
	opened int    // handles opened and not yet closed
	max    int    // most handles open at once
	gen    uint64 // bumped by storage.Reindex
	closed bool
	done   atomic.Bool // closed, for reads that need no lock
}

// reindexer is Repo.storage: see its Reindex.
type reindexer struct{ r *Repo }

// Reindex makes every storage of the pool re-read the pack indexes before its
// next read.
func (x reindexer) Reindex() {
	x.r.mu.Lock()
	x.r.gen++
	x.r.mu.Unlock()
	x.r.packs.invalidate()
}

// handle is one go-git storage (and the go-git repository over it, for revision
// parsing) with its own readers of the Repo's packs; it is used by one goroutine
// at a time, the one that borrowed it (acquire, release), and nothing it
// returns refers to it.
//
// Objects are read from the Repo's packs (packSet) with the handle's own pack
// readers, then, for objects no pack holds, through st (loose objects,
// alternates). st's own pack indexes are loaded only on that path.
type handle struct {
	gen     uint64 // the Repo's gen when st last dropped its pack indexes
	st      *filesystem.Storage
	repo    *git.Repository
	packs   packStamp   // objects/pack as it was before st last loaded its pack indexes
	readers packReaders // of the Repo's packs
}

// close closes the handle's pack readers and storage.
func (h *handle) close() error {
	return errors.Join(h.readers.close(), h.st.Close())
}

// defaultObjectCacheSize is the bound, in bytes, of the object cache a Repo's
// storages share (decoded commits, trees and blobs, and pack delta bases)
// until setObjectCacheSize: go-git's default, 96 MiB. Commands that read a
// long history's objects more than once (audit checking signatures) need it;
// see setObjectCacheSize.
const defaultObjectCacheSize = int64(cache.DefaultMaxSize)

// objectCache is the Repo's object cache: an LRU that setObjectCacheSize
// replaces while the storages keep using the cache. Safe for concurrent use.
type objectCache struct {
	lru atomic.Pointer[cache.ObjectLRU]
}

func newObjectCache(size int64) *objectCache {
	c := &objectCache{}
	c.lru.Store(cache.NewObjectLRU(cache.FileSize(size)))
	return c
}

// Put stores o. go-git hands its cache every object it inflates (and every
// delta base it resolves) as a *plumbing.MemoryObject whose id the LRU then
// asks for, so an object is cached under the SHA-1 of its content, not under
// the id it was looked up by. Put computes that id with collision detection
// (sha1cd, as git's own SHA-1 does) and caches nothing whose content is part
// of a SHA-1 collision attack: such an object is then always read from its
// pack under the id the pack index gives it, and never served from the cache
// for its colliding twin's id (docs/format.md#object-ids-and-collisions).
// A handle's pack readers store the object read by id under that id instead
// (readCache), so Put hashes the delta bases resolved on the way.
func (c *objectCache) Put(o plumbing.EncodedObject) {
	h := keyHashes.Get().(hash.Hash)
	k, ok := keyedObject(o, func() hash.Hash { h.Reset(); return h })
	keyHashes.Put(h)
	if ok {
		c.lru.Load().Put(k)
	}
}

// newKeyHash returns the hash the cache keys objects by: go-git's SHA-1,
// which is sha1cd's, with collision detection.
func newKeyHash() hash.Hash { return gogithash.New(crypto.SHA1) }

// keyHashes pools key hashes (a sha1cd state is a few hundred bytes, allocated
// once per object otherwise).
var keyHashes = sync.Pool{New: func() any { return newKeyHash() }}

// collisionSum is sha1cd's digest with its verdict.
type collisionSum interface {
	CollisionResistantSum(b []byte) ([]byte, bool)
}

// keyedObject returns a memory object with its id computed with newHash (see
// Put), and false when the hash detected a collision attack in its content;
// any other object (go-git's FSObject carries its id) is returned as it is.
func keyedObject(o plumbing.EncodedObject, newHash func() hash.Hash) (plumbing.EncodedObject, bool) {
	mo, ok := o.(*plumbing.MemoryObject)
	if !ok {
		return o, true
	}
	rd, err := mo.Reader()
	if err != nil {
		return o, true
	}
	defer rd.Close()
	h := newHash()
	h.Write(mo.Type().Bytes())
	h.Write([]byte(" " + strconv.FormatInt(mo.Size(), 10) + "\x00"))
	// A MemoryObject reads as a bytes.Reader: WriteTo, no copy. Content
	// shorter than the size (a failed read go-git caches anyway) is left to
	// plumbing's Hash, which gives it the zero id.
	if n, err := io.Copy(h, rd); err != nil || n != mo.Size() {
		return o, true
	}
	k := hashedObject{EncodedObject: mo}
	cs, ok := h.(collisionSum)
	if !ok {
		return o, false // not a detecting hash: cache nothing rather than risk it
	}
	sum, collided := cs.CollisionResistantSum(k.id[:0])
	if collided || len(sum) != len(k.id) {
		return o, false
	}
	return k, true
}

// hashedObject is an object with its id known.
type hashedObject struct {
	plumbing.EncodedObject
	id plumbing.Hash
}

func (o hashedObject) Hash() plumbing.Hash { return o.id }

// putAs stores o, read from a pack for id, under id, without hashing it: the
// content the pack index gives id, which is what an uncached read of id
// returns. o is stored as Put would when it is not a memory object holding
// all of its content (a failed read go-git caches anyway).
func (c *objectCache) putAs(o plumbing.EncodedObject, id plumbing.Hash) {
	mo, ok := o.(*plumbing.MemoryObject)
	if !ok {
		c.Put(o)
		return
	}
	if _, whole := viewObject(mo); !whole {
		c.Put(o)
		return
	}
	c.lru.Load().Put(hashedObject{EncodedObject: mo, id: id})
}

// withID is o, read by id h, carrying h: a memory object computes its id
// from its content when asked and keeps it, a write that two goroutines
// sharing the object (through the object cache) would race on.
func withID(o plumbing.EncodedObject, h plumbing.Hash) plumbing.EncodedObject {
	if mo, ok := o.(*plumbing.MemoryObject); ok {
		return hashedObject{EncodedObject: mo, id: h}
	}
	return o
}

func (c *objectCache) Get(k plumbing.Hash) (plumbing.EncodedObject, bool) {
	return c.lru.Load().Get(k)
}

func (c *objectCache) Clear() { c.lru.Load().Clear() }

// setObjectCacheSize bounds the Repo's object cache to size bytes (at least
// 1 MiB), dropping what it holds. A single walk over history reads each
// object about once and needs little; audit checking signatures, which reads
// the history again, gains from a larger cache. Measured memory and time per size: see
// docs/benchmarks.md.
// Safe to call concurrently with reads.
func (r *Repo) setObjectCacheSize(size int64) {
	r.cache.lru.Store(cache.NewObjectLRU(cache.FileSize(max(size, 1<<20))))
}

// errClosed is returned by a Repo used after Close.
var errClosed = errors.New("gitref: repository is closed")

// Open opens the repository containing dir: dir may be anywhere inside a work
// tree, a linked worktree (`git worktree add`), a bare repository or a .git
// directory. It returns an error wrapping ErrNotRepository when there is none,
// and ErrUnsupportedRepository for SHA-256 or reftable repositories, which
// go-git v5 cannot read. An Access, when given, tunes how the Repo reads
// objects; the zero Access suits most commands.
func Open(dir string, access ...Access) (*Repo, error) {
	gitDir, workTree, err := discover(dir)
	if err != nil {
		return nil, err
	}
	commonDir, err := commonDirOf(gitDir)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(commonDir); err != nil {
		return nil, err
	}
	r := &Repo{
		gitDir: gitDir, commonDir: commonDir, workTree: workTree,
		cache: newObjectCache(defaultObjectCacheSize),
		max:   max(2, runtime.GOMAXPROCS(0)),
	}
	r.mapPacks.Store(true)
	shared := &sharedPacks{}
	r.packFS = listFS{osfs.New(commonDir), &r.mapPacks, shared}
	r.dotFS = r.packFS
	if commonDir != gitDir {
		r.dotFS = dotgit.NewRepositoryFilesystem(listFS{osfs.New(gitDir), &r.mapPacks, shared}, r.packFS)
	}
	r.packs = &packSet{dir: filepath.Join(commonDir, "objects", "pack")}
	if workTree != "" {
		r.wtFS = osfs.New(workTree)
	}
	r.cond = sync.NewCond(&r.mu)
	r.objects = &poolStorer{r: r}
	r.storage = reindexer{r: r}
	h, err := r.newHandle()
	if err != nil {
		return nil, fmt.Errorf("opening repository at %s: %w", gitDir, err)
	}
	r.opened = 1
	r.free = append(r.free, h)
	for _, a := range access {
		r.apply(a)
	}
	return r, nil
}

// newHandle opens one more go-git storage over the repository.
func (r *Repo) newHandle() (*handle, error) {
	stamp := r.packStamp() // before go-git lists the packs (lazily, on the first read)
	st := filesystem.NewStorageWithOptions(r.dotFS, r.cache, filesystem.Options{KeepDescriptors: true})
	h := &handle{st: st, packs: stamp, readers: packReaders{cache: &readCache{objectCache: r.cache}}}
	repo, err := git.Open(handleStorer{Storage: st, r: r, hd: h}, r.wtFS)
	if err != nil {
		st.Close()
		if errors.Is(err, git.ErrUnknownExtension) || errors.Is(err, git.ErrUnsupportedExtensionRepositoryFormatVersion) || errors.Is(err, git.ErrUnsupportedRepositoryFormatVersion) {
			err = fmt.Errorf("%w: %v", ErrUnsupportedRepository, err)
		}
		return nil, err
	}
	h.repo = repo
	return h, nil
}

// acquire borrows a handle, opening one when none is free and fewer than r.max
// are open, waiting otherwise. Callers release it before acquiring another:
// nested acquires could deadlock.
func (r *Repo) acquire() (*handle, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if r.closed {
			return nil, errClosed
		}
		if n := len(r.free); n > 0 {
			h := r.free[n-1]
			r.free = r.free[:n-1]
			if h.gen != r.gen {
				h.gen = r.gen
				h.st.Reindex()
			}
			return h, nil
		}
		if r.opened < r.max {
			break
		}
		r.cond.Wait()
	}
	r.opened++
	gen := r.gen
	r.mu.Unlock()
	h, err := r.newHandle()
	r.mu.Lock()
	if err != nil {
		r.opened--
		r.cond.Signal()
		return nil, fmt.Errorf("opening repository at %s: %w", r.gitDir, err)
	}
	h.gen = gen
	return h, nil
}

// release returns a handle to the pool (closing it when the Repo was closed
// meanwhile).
func (r *Repo) release(h *handle) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.opened--
		h.close()
		return
	}
	r.free = append(r.free, h)
	r.cond.Signal()
}

// Close releases the repository's open files. The Repo must not be used after;
// methods called after Close return an error.
func (r *Repo) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	r.done.Store(true)
	var errs []error
	for _, h := range r.free {
		errs = append(errs, h.close())
		r.opened--
	}
	r.free = nil
	r.cond.Broadcast()
	return errors.Join(errs...)
}

// WorkTree is the work tree's root, "" for a bare repository.
func (r *Repo) WorkTree() string { return r.workTree }

// discover finds the git dir for dir the way git does: walking up from dir, a
// ".git" directory or "gitdir:" file, or a directory that is itself a git dir.
func discover(dir string) (gitDir, workTree string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", ErrNotRepository, dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return "", "", fmt.Errorf("%w: %s: %v", ErrNotRepository, dir, err)
	}
	for d := abs; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() && isGitDir(dotgit) {
				return dotgit, d, nil
			}
			if fi.Mode().IsRegular() {
				g, err := readGitFile(dotgit)
				if err != nil {
					return "", "", err
				}
				return g, d, nil
			}
		}
		if isGitDir(d) {
			return d, "", nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", fmt.Errorf("%w: %s (or any of its parents)", ErrNotRepository, abs)
		}
		d = parent
	}
}

// isGitDir reports whether d looks like a git directory: HEAD, objects/, refs/.
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true // a linked worktree's git dir: objects and refs are in the common dir
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// readGitFile reads a ".git" file ("gitdir: <path>") of a linked worktree or
// submodule.
func readGitFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("%w: reading %s: %v", ErrNotRepository, p, err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	g, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%w: %s does not start with \"gitdir:\"", ErrNotRepository, p)
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(filepath.Dir(p), g)
	}
	if !isGitDir(g) {
		return "", fmt.Errorf("%w: %s points to %s, which is not a git directory", ErrNotRepository, p, g)
	}
	return filepath.Clean(g), nil
}

// commonDirOf reads gitDir/commondir (linked worktrees); gitDir itself otherwise.
func commonDirOf(gitDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: reading %s/commondir: %v", ErrNotRepository, gitDir, err)
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c), nil
}

// checkFormat refuses repositories go-git v5 cannot read correctly: SHA-256
// object ids (extensions.objectFormat) and reftable refs (extensions.refStorage).
func checkFormat(commonDir string) error {
	f, err := os.Open(filepath.Join(commonDir, "config"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("reading repository config: %w", err)
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			line = strings.TrimSpace(line[end+1:])
		}
		if (section != "extensions" && section != "core") || line == "" {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`))
		if section == "core" {
			if k == "repositoryformatversion" && v != "" && v != "0" && v != "1" {
				return fmt.Errorf("%w: %s has core.repositoryFormatVersion %s; git and taskproof read versions 0 and 1", ErrUnsupportedRepository, commonDir, v)
			}
			continue
		}
		switch {
		case k == "objectformat" && v != "" && v != "sha1":
			return fmt.Errorf("%w: %s uses %s object ids (extensions.objectFormat); taskproof's git layer (go-git v5) reads SHA-1 repositories only",
				ErrUnsupportedRepository, commonDir, v)
		case k == "refstorage" && v != "" && v != "files":
			return fmt.Errorf("%w: %s uses the %s ref backend (extensions.refStorage); only the files backend is supported",
				ErrUnsupportedRepository, commonDir, v)
		}
	}
	return sc.Err()
}

// hasNUL reports whether b holds a NUL byte.
func hasNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

// listFS is the git directory's filesystem as go-git sees it, with a directory
// listing that tolerates concurrent writers.
//
// go-git finds pack files by listing objects/pack with billy's ReadDir, which
// lstat()s every entry and fails as a whole when one entry vanishes between
// the listing and its lstat — and go-git's own loose-object writer keeps
// creating and renaming tmp_obj_* files in objects/pack. go-git reads that
// failure (ENOENT) as "no pack directory" and caches an empty pack index, after
// which every packed object is "not found": the flake of a notes writer running
// while another process writes notes. listFS.ReadDir skips entries that vanish
// instead, and, as git does, lists a pack-*.pack only once its pack-*.idx is in
// place (git renames the .idx last when it writes a pack).
//
// listFS also opens pack files for reading through preadFile, mapped into
// memory when *mapPacks is true (nil: never), each pack once for all its
// readers (sharedPacks).
type listFS struct {
	billy.Filesystem
	mapPacks *atomic.Bool
	shared   *sharedPacks // the pack files open (nil: each Open opens its own)
}

// ReadDir lists dir (relative to the filesystem's root), sorted by name.
func (l listFS) ReadDir(dir string) ([]os.FileInfo, error) {
	full := filepath.Join(l.Root(), filepath.FromSlash(dir))
	ents, err := os.ReadDir(full)
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		names[e.Name()] = true
	}
	out := make([]os.FileInfo, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if stem, ok := strings.CutSuffix(n, ".pack"); ok && strings.HasPrefix(n, "pack-") && !names[stem+".idx"] {
			continue // a pack still being written (or removed)
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed or renamed since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fi)
	}
	return out, nil
}

// Open opens a file; pack files are read with pread or from a mapping (see
// preadFile), each pack opened once while any reader of it is open (see
// sharedPacks).
func (l listFS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".pack") {
		return l.Filesystem.Open(name)
	}
	if l.shared == nil {
		l.shared = &sharedPacks{}
	}
	return l.shared.open(filepath.Join(l.Root(), filepath.FromSlash(name)), name, l.mapPacks, func() (billy.File, error) {
		return l.Filesystem.Open(name)
	})
}

// sharedPacks holds the pack files open through a listFS (and its Chroots):
// each is opened (and mapped) once and read by every reader opened on it at
// its own offset, through pread or the mapping, which are safe for concurrent
// use: every handle keeps readers of every pack, and go-git's own storage
// (packs of alternate object stores) opens a pack again for every object over
// 16 KiB it reads (packfile.FSObject): without sharing, that is an open(2), a
// close(2) and a 64 KiB window (or a mapping of the whole pack) per object. A
// pack is closed when its last reader is. Safe for concurrent use.
type sharedPacks struct {
	mu    sync.Mutex
	files map[string]*sharedPack // by absolute path
}

// sharedPack is one open pack file of a sharedPacks.
type sharedPack struct {
	f      billy.File // read with ReadAt only
	size   int64
	mapped []byte // the whole file, mapped; nil when reading through windows
	refs   int    // readers open
}

// open returns a new reader of the pack at abs (named name in the opening
// filesystem), opening it with openFile when no reader of it is open.
func (s *sharedPacks) open(abs, name string, mapPacks *atomic.Bool, openFile func() (billy.File, error)) (*preadFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.files[abs]
	if sp == nil {
		f, err := openFile()
		if err != nil {
			return nil, err
		}
		size, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			f.Close()
			return nil, err
		}
		sp = &sharedPack{f: f, size: size}
		if mapPacks != nil && mapPacks.Load() {
			sp.mapped = packidx.MapFile(abs)
		}
		if s.files == nil {
			s.files = map[string]*sharedPack{}
		}
		s.files[abs] = sp
	}
	sp.refs++
	return &preadFile{File: sp.f, name: name, size: sp.size, mapped: sp.mapped, release: func() error { return s.release(abs, sp) }}, nil
}

// release ends one reader of sp, closing the file when it was the last.
func (s *sharedPacks) release(abs string, sp *sharedPack) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp.refs--; sp.refs > 0 {
		return nil
	}
	if s.files[abs] == sp {
		delete(s.files, abs)
	}
	if sp.mapped != nil {
		packidx.UnmapFile(sp.mapped)
		sp.mapped = nil
	}
	return sp.f.Close()
}

// setPackMapping chooses how pack files opened from now on are read: mapped
// read-only into memory (the default where the system allows it: no system
// call per object) or through a 64 KiB pread window. Mapped pages a read
// touched count in the process's resident set until the Repo is closed
// (about the size of the packs read), so a command with a memory target reads
// through the window: call this before the first object read.
func (r *Repo) setPackMapping(on bool) { r.mapPacks.Store(on) }

// preadFile reads a pack file at an offset it keeps itself, through a 64 KiB
// window: go-git's pack scanner seeks before every object it reads and then
// fills a 4 KiB buffer, which costs an lseek(2) and a read(2) per object on a
// plain file. Objects read together (a commit, its trees, their blobs) are
// mostly near each other in a pack, so most reads are served from the window
// without a system call. Pack files never change once written (their name is
// their checksum), so the window cannot go stale. A read just before the
// window places the next one mostly before the read (preadTail): go-git reads
// a history's objects in either direction through a pack (commits newest
// first, trees and blobs oldest first), and a window placed only forwards
// costs a system call per object read backwards. Windows are pooled
// (preadWindows): readers opened for one object each do not allocate one.
//
// Where the system allows it (mapFile), the whole pack is mapped read-only
// into memory instead, as git does, and reads are copies from the mapping:
// no system call at all. The file and its mapping are shared by the readers
// of the pack (sharedPacks) and released when the last one is closed.
type preadFile struct {
	billy.File        // shared: only ReadAt, Name-less methods
	name       string // as opened
	size       int64
	off        int64
	win        *[preadWindow]byte // the window's buffer, from preadWindows
	winLen     int                // bytes of win holding the file at winOff
	winOff     int64
	mapped     []byte // the whole file, mapped; nil when reading through win
	release    func() error
}

const preadWindow = 64 << 10

// preadTail is how much of a window placed for reading backwards lies from
// the read offset on: the scanner's 4 KiB buffer fill and a small object's
// content, which the scanner reads next.
const preadTail = 16 << 10

// preadWindows pools the windows of closed preadFiles.
var preadWindows = sync.Pool{New: func() any { return new([preadWindow]byte) }}

// Name is the name the file was opened by.
func (f *preadFile) Name() string { return f.name }

func (f *preadFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.mapped != nil {
		if f.off >= int64(len(f.mapped)) {
			return 0, io.EOF
		}
		n := copy(p, f.mapped[f.off:])
		f.off += int64(n)
		return n, nil
	}
	if f.win == nil || f.off < f.winOff || f.off >= f.winOff+int64(f.winLen) {
		if len(p) >= preadWindow {
			n, err := f.File.ReadAt(p, f.off)
			f.off += int64(n)
			if err == io.EOF && n > 0 {
				err = nil // io.Reader may report EOF with the next call
			}
			return n, err
		}
		start := f.off
		if f.win == nil {
			f.win = preadWindows.Get().(*[preadWindow]byte)
		} else if f.off < f.winOff && f.winOff-f.off < preadWindow {
			// Reading backwards through the pack (a history listed newest
			// first, or walked oldest first, where the pack holds objects
			// the other way round): the window holds preadTail bytes from
			// f.off on, for this object, and the objects before it.
			start = max(0, f.off-(preadWindow-preadTail))
		}
		n, err := f.File.ReadAt(f.win[:], start)
		f.winLen, f.winOff = n, start
		if f.off >= start+int64(n) {
			// Short of f.off (the file ends before the window's end):
			// read at f.off itself, as a forward window.
			n, err = f.File.ReadAt(f.win[:], f.off)
			f.winLen, f.winOff = n, f.off
		}
		if n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return 0, err
		}
	}
	n := copy(p, f.win[f.off-f.winOff:f.winLen])
	f.off += int64(n)
	return n, nil
}

func (f *preadFile) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = f.off + offset
	case io.SeekEnd:
		abs = f.size + offset
	default:
		return f.off, fmt.Errorf("seek %s: invalid whence %d", f.name, whence)
	}
	if abs < 0 {
		return f.off, fmt.Errorf("seek %s: negative offset %d", f.name, abs)
	}
	f.off = abs
	return abs, nil
}

// ReadAt reads from the mapping when there is one.
func (f *preadFile) ReadAt(p []byte, off int64) (int, error) {
	if f.mapped == nil {
		return f.File.ReadAt(p, off)
	}
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", f.name, off)
	}
	if off >= int64(len(f.mapped)) {
		return 0, io.EOF
	}
	n := copy(p, f.mapped[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close returns the window to the pool and ends this reader of the shared
// file (see sharedPacks); a second Close does nothing.
func (f *preadFile) Close() error {
	if f.win != nil {
		preadWindows.Put(f.win)
		f.win, f.winLen = nil, 0
	}
	f.mapped = nil
	if f.release == nil {
		return nil
	}
	release := f.release
	f.release = nil
	return release()
}

// Chroot keeps the listing behaviour below the new root.
func (l listFS) Chroot(dir string) (billy.Filesystem, error) {
	c, err := l.Filesystem.Chroot(dir)
	if err != nil {
		return nil, err
	}
	return listFS{c, l.mapPacks, l.shared}, nil
}

// Chmod forwards to the wrapped filesystem (go-git makes loose objects
// read-only with it).
func (l listFS) Chmod(name string, mode os.FileMode) error {
	if c, ok := l.Filesystem.(billy.Chmod); ok {
		return c.Chmod(name, mode)
	}
	return errors.ErrUnsupported
}

// Capabilities forwards to the wrapped filesystem.
func (l listFS) Capabilities() billy.Capability { return billy.Capabilities(l.Filesystem) }
