// Package gitref is taskproof's git layer: it opens repositories, resolves
// revisions, reads commits, trees and files, keeps the notes store that holds
// attestations (docs/format.md#storage) and finds the ticks of tasks files in a commit range
// (docs/format.md#units-and-task-lines, docs/format.md#gate-rules).
//
// gitref is the only taskproof package that imports go-git. It exposes a small
// porcelain built on go-git's plumbing: object ids are lowercase hex strings
// ([Hash]), and files are read through [Repo.File] or the io/fs view [Repo.FS].
// How objects are read is tuned by one [Open] option, [Access]. The machinery
// is in internal packages: packidx (pack index files read in place), packstore
// (pack files read through a pread window or a mapping, the object cache),
// refs (loose and packed refs under git's lock protocol) and gitconfig (git's
// configuration, read through the git program or in-process).
//
// A Repo is safe for concurrent use by several goroutines (see [Repo]); the
// notes store's compare-and-swap makes concurrent writers — goroutines sharing a
// Repo, several Repos, or several processes — safe.
package gitref

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/packstore"
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
	// ErrBadRefName: a ref name is not a valid name under refs/.
	ErrBadRefName = errors.New("bad ref name")
)

// Hash is a git object id as lowercase hex (40 characters for SHA-1). The empty
// Hash means "none" (no parent, ref absent). h.IsZero() reports the empty
// Hash; h.String() is its hex form.
type Hash = gitobj.Hash

// ParseHash validates s as a full lowercase hex SHA-1 object id.
func ParseHash(s string) (Hash, error) { return gitobj.ParseHash(s) }

func isLowerHex(s string) bool { return gitobj.IsLowerHex(s) }

func fromPlumbing(h plumbing.Hash) Hash { return gitobj.FromPlumbing(h) }

func toPlumbing(h Hash) plumbing.Hash { return gitobj.ToPlumbing(h) }

// Repo is an open repository. Close it when done: it keeps its pack files open
// for speed.
//
// A Repo is safe for concurrent use by several goroutines: every method may be
// called concurrently with any other, except Close. go-git's storage and pack
// readers are not (a pack reader keeps a file offset and lazily built maps),
// so a Repo keeps a pool of handles — at most max(2, runtime.GOMAXPROCS(0)),
// opened as needed, each a go-git storage with its own pack readers — sharing
// one object cache (packstore.ObjectCache, defaultObjectCacheSize), one index
// per pack, read in place (packidx.Index), and one open file per pack
// (packstore.Shared); every object read borrows a handle for the duration of the
// read. Readers beyond that many wait for a handle to come free. What a read
// returns is shared only through types safe for concurrent use: objects held
// whole in memory, carrying their id (packstore.WithID), never a go-git pack reader or
// anything that reads through one (see packReaders).
type Repo struct {
	gitDir    string // the repository's (or linked worktree's) git dir
	commonDir string // $GIT_COMMON_DIR: objects, shared refs, packed-refs
	workTree  string // "" for a bare repository

	dotFS    billy.Filesystem       // the git dir as go-git sees it (see packstore.FS)
	wtFS     billy.Filesystem       // nil for a bare repository
	cache    *packstore.ObjectCache // shared by the pool's storages
	mapPacks atomic.Bool            // listFS maps pack files (setPackMapping)
	commits  commitCache            // decoded commits (see commit)
	objects  *poolStorer            // object access through the pool, for go-git decoders
	packs    *packSet               // objects/pack, indexes shared by the pool (see packObject)
	packFS   billy.Filesystem       // the common dir, for the pool's pack readers

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

// setObjectCacheSize bounds the Repo's object cache to size bytes (at least
// 1 MiB), dropping what it holds. A single walk over history reads each
// object about once and needs little; audit checking signatures, which reads
// the history again, gains from a larger cache. Measured memory and time per size: see
// docs/benchmarks.md.
// Safe to call concurrently with reads.
func (r *Repo) setObjectCacheSize(size int64) { r.cache.SetSize(size) }

// defaultObjectCacheSize is the bound, in bytes, of the object cache a Repo's
// storages share (decoded commits, trees and blobs, and pack delta bases)
// until setObjectCacheSize: go-git's default, 96 MiB. Commands that read a
// long history's objects more than once (audit checking signatures) need it.
const defaultObjectCacheSize = int64(cache.DefaultMaxSize)

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
		cache: packstore.NewObjectCache(defaultObjectCacheSize),
		max:   max(2, runtime.GOMAXPROCS(0)),
	}
	r.mapPacks.Store(true)
	shared := &packstore.Shared{}
	r.packFS = packstore.FS{Filesystem: osfs.New(commonDir), MapPacks: &r.mapPacks, Shared: shared}
	r.dotFS = r.packFS
	if commonDir != gitDir {
		r.dotFS = dotgit.NewRepositoryFilesystem(packstore.FS{Filesystem: osfs.New(gitDir), MapPacks: &r.mapPacks, Shared: shared}, r.packFS)
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
	h := &handle{st: st, packs: stamp, readers: packReaders{cache: &readCache{ObjectCache: r.cache}}}
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

// setPackMapping chooses how pack files opened from now on are read: mapped
// read-only into memory (the default where the system allows it: no system
// call per object) or through a 64 KiB pread window. Mapped pages a read
// touched count in the process's resident set until the Repo is closed
// (about the size of the packs read), so a command with a memory target reads
// through the window: call this before the first object read.
func (r *Repo) setPackMapping(on bool) { r.mapPacks.Store(on) }
