package objstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
	"github.com/taskproof/taskproof/gitref/internal/packstore"
)

// Store is a repository's object store, for gitref's Repo. Close it when done:
// it keeps its pack files open for speed.
//
// A Store is safe for concurrent use by several goroutines: every method may
// be called concurrently with any other, except Close. go-git's storage and
// pack readers are not (a pack reader keeps a file offset and lazily built
// maps), so a Store keeps a pool of handles — at most max(2,
// runtime.GOMAXPROCS(0)), opened as needed, each a go-git storage with its
// own pack readers — sharing one object cache (packstore.ObjectCache,
// DefaultCacheSize), one index per pack, read in place (packidx.Index), and
// one open file per pack (packstore.Shared); every object read borrows a
// handle for the duration of the read. Readers beyond that many wait for a
// handle to come free. What a read returns is shared only through types safe
// for concurrent use: objects held whole in memory, carrying their id
// (packstore.WithID), never a go-git pack reader or anything that reads
// through one (see packReaders).
type Store struct {
	gitDir    string // the repository's (or linked worktree's) git dir
	commonDir string // $GIT_COMMON_DIR: objects, shared refs, packed-refs

	dotFS    billy.Filesystem       // the git dir as go-git sees it (see packstore.FS)
	wtFS     billy.Filesystem       // nil for a bare repository
	cache    *packstore.ObjectCache // shared by the pool's storages
	mapPacks atomic.Bool            // listFS maps pack files (SetPackMapping)
	objects  *poolStorer            // object access through the pool, for go-git decoders
	packs    *packSet               // objects/pack, indexes shared by the pool (see packObject)
	packFS   billy.Filesystem       // the common dir, for the pool's pack readers

	mu     sync.Mutex
	cond   *sync.Cond // signalled when a handle is released or the Store closes
	free   []*handle
	opened int    // handles opened and not yet closed
	max    int    // most handles open at once
	gen    uint64 // bumped by Reindex
	closed bool
	done   atomic.Bool // closed, for reads that need no lock
}

// ErrClosed is returned by a Store used after Close.
var ErrClosed = errors.New("gitref: repository is closed")

// DefaultCacheSize is the bound, in bytes, of the object cache a Store's
// storages share (decoded commits, trees and blobs, and pack delta bases)
// until SetCacheSize: go-git's default, 96 MiB. Commands that read a long
// history's objects more than once (audit checking signatures) need it.
const DefaultCacheSize = int64(cache.DefaultMaxSize)

// Open opens the object store of the repository whose git dir is gitDir,
// common dir commonDir and work tree workTree ("" for a bare repository).
// The error wraps gitobj.gitobj.ErrUnsupportedRepository for a repository go-git
// refuses (an extension it does not know).
func Open(gitDir, commonDir, workTree string) (*Store, error) {
	s := &Store{
		gitDir: gitDir, commonDir: commonDir,
		cache: packstore.NewObjectCache(DefaultCacheSize),
		max:   max(2, runtime.GOMAXPROCS(0)),
	}
	s.mapPacks.Store(true)
	shared := &packstore.Shared{}
	s.packFS = packstore.FS{Filesystem: osfs.New(commonDir), MapPacks: &s.mapPacks, Shared: shared}
	s.dotFS = s.packFS
	if commonDir != gitDir {
		s.dotFS = dotgit.NewRepositoryFilesystem(packstore.FS{Filesystem: osfs.New(gitDir), MapPacks: &s.mapPacks, Shared: shared}, s.packFS)
	}
	s.packs = &packSet{dir: filepath.Join(commonDir, "objects", "pack")}
	if workTree != "" {
		s.wtFS = osfs.New(workTree)
	}
	s.cond = sync.NewCond(&s.mu)
	s.objects = &poolStorer{s: s}
	h, err := s.newHandle()
	if err != nil {
		return nil, fmt.Errorf("opening repository at %s: %w", gitDir, err)
	}
	s.opened = 1
	s.free = append(s.free, h)
	return s, nil
}

// Reindex makes every storage of the pool re-read the pack indexes before its
// next read (after running a git command that may add a pack).
func (s *Store) Reindex() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
	s.packs.invalidate()
}

// SetCacheSize bounds the object cache to size bytes (at least 1 MiB),
// dropping what it holds. Safe to call concurrently with reads.
func (s *Store) SetCacheSize(size int64) { s.cache.SetSize(size) }

// CacheSize is the object cache's bound in bytes.
func (s *Store) CacheSize() int64 { return s.cache.MaxSize() }

// PacksMapped reports whether pack files opened from now on are mapped
// (SetPackMapping).
func (s *Store) PacksMapped() bool { return s.mapPacks.Load() }

// ClearCache drops what the object cache holds.
func (s *Store) ClearCache() { s.cache.Clear() }

// Cached reports whether the object cache holds h.
func (s *Store) Cached(h plumbing.Hash) bool {
	_, ok := s.cache.Get(h)
	return ok
}

// Closed reports whether Close was called.
func (s *Store) Closed() bool { return s.done.Load() }

// Storer is the store as go-git's decoders and encoders use it
// (object.DecodeCommit and the like keep it for their lazy methods): reads
// and writes go through the pool, so what they return is as safe for
// concurrent use as the Store.
func (s *Store) Storer() storer.EncodedObjectStorer { return s.objects }

// WithRepo calls fn with the go-git repository of a handle borrowed for the
// call (revision parsing, refs as go-git reads them). fn must not keep the
// repository, nor anything it returns that reads through it, past the call.
func (s *Store) WithRepo(fn func(*git.Repository) error) error {
	hd, err := s.acquire()
	if err != nil {
		return err
	}
	defer s.release(hd)
	return fn(hd.repo)
}

// newHandle opens one more go-git storage over the repository.
func (s *Store) newHandle() (*handle, error) {
	stamp := s.packStamp() // before go-git lists the packs (lazily, on the first read)
	st := filesystem.NewStorageWithOptions(s.dotFS, s.cache, filesystem.Options{KeepDescriptors: true})
	h := &handle{st: st, packs: stamp, readers: packReaders{cache: &readCache{ObjectCache: s.cache}}}
	repo, err := git.Open(handleStorer{Storage: st, s: s, hd: h}, s.wtFS)
	if err != nil {
		st.Close()
		if errors.Is(err, git.ErrUnknownExtension) || errors.Is(err, git.ErrUnsupportedExtensionRepositoryFormatVersion) || errors.Is(err, git.ErrUnsupportedRepositoryFormatVersion) {
			err = fmt.Errorf("%w: %v", gitobj.ErrUnsupportedRepository, err)
		}
		return nil, err
	}
	h.repo = repo
	return h, nil
}

// acquire borrows a handle, opening one when none is free and fewer than s.max
// are open, waiting otherwise. Callers release it before acquiring another:
// nested acquires could deadlock.
func (s *Store) acquire() (*handle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.closed {
			return nil, ErrClosed
		}
		if n := len(s.free); n > 0 {
			h := s.free[n-1]
			s.free = s.free[:n-1]
			if h.gen != s.gen {
				h.gen = s.gen
				h.st.Reindex()
			}
			return h, nil
		}
		if s.opened < s.max {
			break
		}
		s.cond.Wait()
	}
	s.opened++
	gen := s.gen
	s.mu.Unlock()
	h, err := s.newHandle()
	s.mu.Lock()
	if err != nil {
		s.opened--
		s.cond.Signal()
		return nil, fmt.Errorf("opening repository at %s: %w", s.gitDir, err)
	}
	h.gen = gen
	return h, nil
}

// release returns a handle to the pool (closing it when the Repo was closed
// meanwhile).
func (s *Store) release(h *handle) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.opened--
		h.close()
		return
	}
	s.free = append(s.free, h)
	s.cond.Signal()
}

// Close releases the repository's open files. The Store must not be used
// after; methods called after Close return ErrClosed.
func (s *Store) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.done.Store(true)
	var errs []error
	for _, h := range s.free {
		errs = append(errs, h.close())
		s.opened--
	}
	s.free = nil
	s.cond.Broadcast()
	return errors.Join(errs...)
}

// SetPackMapping chooses how pack files opened from now on are read: mapped
// read-only into memory (the default where the system allows it: no system
// call per object) or through a 64 KiB pread window. Mapped pages a read
// touched count in the process's resident set until the Store is closed
// (about the size of the packs read), so a command with a memory target reads
// through the window: call this before the first object read.
func (s *Store) SetPackMapping(on bool) { s.mapPacks.Store(on) }

// object reads an object with a storage borrowed from the pool (objectWith).
func (s *Store) object(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return s.Object(t, h, 0)
}

// Object reads object h of type t (plumbing.AnyObject: any type) with a
// storage borrowed from the pool, refusing, with limit > 0, an object over
// limit bytes (gitobj.TooLargeError) from the size its pack entry or loose
// header gives, before its content is inflated; an object the cache holds is
// returned whatever its size (the caller checks it).
func (s *Store) Object(t plumbing.ObjectType, h plumbing.Hash, limit int64) (plumbing.EncodedObject, error) {
	// go-git looks objects up in the pack index before its cache; objects are
	// content-addressed, so a cached one is the one the index would find.
	if s.done.Load() {
		return nil, ErrClosed
	}
	if o, ok := s.cache.Get(h); ok && (t == plumbing.AnyObject || o.Type() == t) {
		return o, nil
	}
	hd, err := s.acquire()
	if err != nil {
		return nil, err
	}
	defer s.release(hd)
	return s.objectWith(hd, t, h, limit)
}

// objectWith reads an object with handle hd: from the cache, the Repo's packs
// (packObject), else through hd's go-git storage (loose objects, alternates);
// limit as Object's.
//
// Pack indexes are loaded once and kept, so when another process adds a pack
// (git gc, fetch, repack) or removes one after we indexed it, the object is
// reported missing (ErrObjectNotFound, or a pack file that no longer exists).
// Such a miss lists the packs again and tries again, twice at most, unless
// objects/pack has not changed since they were listed (then the object really
// is absent, and large indexes are not re-read for nothing). Any other error
// but an object over the limit also drops go-git's indexes, so that a storage
// never keeps a partial index after a failed load.
func (s *Store) objectWith(hd *handle, t plumbing.ObjectType, h plumbing.Hash, limit int64) (plumbing.EncodedObject, error) {
	o, err := s.readObject(hd, t, h, limit)
	for try := 0; err != nil && try < 2; try++ {
		if errors.Is(err, gitobj.ErrTooLarge) {
			break
		}
		if !errors.Is(err, plumbing.ErrObjectNotFound) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, dotgit.ErrPackfileNotFound) {
			s.reindex(hd)
			break
		}
		if !s.reindex(hd) {
			break
		}
		o, err = s.readObject(hd, t, h, limit)
	}
	return o, err
}

// readObject is one try of objectWith. The object returned carries h as its
// id (packstore.WithID).
func (s *Store) readObject(hd *handle, t plumbing.ObjectType, h plumbing.Hash, limit int64) (plumbing.EncodedObject, error) {
	o, ok := s.cache.Get(h)
	if !ok {
		var err error
		o, err = s.packObject(hd, h, limit)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return s.storageObject(hd, t, h, limit)
		}
		if err != nil {
			return nil, err
		}
	}
	if t != plumbing.AnyObject && o.Type() != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return packstore.WithID(o, h), nil
}

// storageObject reads an object no pack of the Repo holds through hd's
// go-git storage (loose objects, alternates); limit as Object's.
func (s *Store) storageObject(hd *handle, t plumbing.ObjectType, h plumbing.Hash, limit int64) (plumbing.EncodedObject, error) {
	if limit > 0 {
		if size, err := hd.st.EncodedObjectSize(h); err == nil && size > limit {
			return nil, &gitobj.TooLargeError{Object: gitobj.FromPlumbing(h), Size: size, Limit: limit}
		}
	}
	o, err := hd.st.EncodedObject(t, h)
	if err != nil {
		return nil, err
	}
	return packstore.WithID(o, h), nil
}

// objectSizeWith is objectWith's object's size, read from its pack entry or
// loose object header without inflating the content.
func (s *Store) objectSizeWith(hd *handle, h plumbing.Hash) (int64, error) {
	if o, ok := s.cache.Get(h); ok {
		return o.Size(), nil
	}
	size, err := s.packObjectSize(hd, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return hd.st.EncodedObjectSize(h)
	}
	return size, err
}

// packStamp identifies a state of objects/pack: git adds and removes packs by
// renaming and unlinking, which changes the directory's modification time.
type packStamp struct {
	mod    time.Time
	size   int64
	stable bool // mod was over 2 s old when observed: no later change in the same clock tick
}

func (s *Store) packStamp() packStamp {
	fi, err := os.Stat(filepath.Join(s.commonDir, "objects", "pack"))
	if err != nil {
		return packStamp{}
	}
	return packStamp{mod: fi.ModTime(), size: fi.Size(), stable: time.Since(fi.ModTime()) > 2*time.Second}
}

// reindex makes the Repo's packs be listed again, and hd's storage re-read its
// pack indexes, on their next read, and reports whether that can change
// anything: false when objects/pack is, for sure, as it was when both last
// listed it.
func (s *Store) reindex(hd *handle) bool {
	now := s.packStamp()
	ours := s.packs.relist(now)
	if now.stable && hd.packs.stable && now.mod.Equal(hd.packs.mod) && now.size == hd.packs.size {
		return ours
	}
	hd.packs = now
	hd.st.Reindex()
	return true
}

// poolStorer gives go-git's decoders (object.DecodeCommit and the like keep a
// storer for their lazy methods) access to the Repo's objects through the pool,
// so that what they return is as safe for concurrent use as the Repo.
type poolStorer struct{ s *Store }

var _ storer.EncodedObjectStorer = (*poolStorer)(nil)

func (p *poolStorer) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (p *poolStorer) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	hd, err := p.s.acquire()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer p.s.release(hd)
	return hd.st.SetEncodedObject(o)
}

func (p *poolStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return p.s.object(t, h)
}

func (p *poolStorer) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errors.New("gitref: iterating all objects is not supported")
}

func (p *poolStorer) HasEncodedObject(h plumbing.Hash) error {
	_, err := p.s.object(plumbing.AnyObject, h)
	return err
}

func (p *poolStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	hd, err := p.s.acquire()
	if err != nil {
		return 0, err
	}
	defer p.s.release(hd)
	return p.s.objectSizeWith(hd, h)
}

func (p *poolStorer) AddAlternate(string) error {
	return errors.New("gitref: adding alternates is not supported")
}

// ReadAll appends o's content to buf, checking that it is exactly o.Size()
// bytes long.
func ReadAll(o plumbing.EncodedObject, buf []byte) ([]byte, error) {
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	size := o.Size()
	if size < 0 {
		return nil, fmt.Errorf("object size %d", size)
	}
	n := len(buf)
	if int64(cap(buf)-n) < size {
		buf = append(buf, make([]byte, size)...)[:n]
	}
	buf = buf[:n+int(size)]
	if _, err := io.ReadFull(rd, buf[n:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("object shorter than its size %d", size)
		}
		return nil, err
	}
	var one [1]byte
	if k, _ := rd.Read(one[:]); k > 0 {
		return nil, fmt.Errorf("object longer than its size %d", size)
	}
	return buf, nil
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
