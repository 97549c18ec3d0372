package objstore

import (
	"errors"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/packstore"
)

// packReaders are one handle's readers of the Repo's packs: go-git Packfiles,
// by pack checksum, in three sets:
//
//   - sized reads through the object cache (readCache), with a filesystem:
//     go-git reads an object of up to 16 KiB whole (in one pass, a delta's
//     size read from the delta data it inflates anyway) and returns a larger
//     one as a packfile.FSObject holding only its type and size, so that a
//     size limit is judged before a large object is inflated;
//   - whole reads through the object cache, without a filesystem: objects
//     whole, what get returns for one over 16 KiB;
//   - uncached reads past the object cache (noCache), without a filesystem:
//     BlobOnce's reads.
//
// A go-git Packfile is not safe for concurrent use (a file offset, a scanner,
// a map of the types it read), and neither is readCache. They are owned by
// their handle, so by one goroutine at a time, and nothing get returns refers
// to them: only objects read whole into memory leave it. An FSObject of sized
// never does: it reads its content when asked, through the cache of the
// reader that made it, which would then be reached by whichever goroutine
// read the object, after the handle went back to the pool and while another
// goroutine reads through the cache. openReader is the only place a Packfile
// is made.
type packReaders struct {
	sized    map[plumbing.Hash]*packfile.Packfile
	whole    map[plumbing.Hash]*packfile.Packfile
	uncached map[plumbing.Hash]*packfile.Packfile
	cache    *readCache
	reads    int // objects read since the readers were opened
}

// packfileReads is how many objects a handle reads through its pack readers
// before it opens them again: a go-git Packfile remembers the type of every
// object it read, by offset, for as long as it lives, which over a long
// history grows by megabytes per handle. (A variable for the tests.)
var packfileReads = 1 << 16

// get reads object h from pack p through the object cache (readCache),
// whole. With limit > 0, an object over limit bytes is refused
// (TooLargeError) before its content is inflated.
func (pr *packReaders) get(s *Store, p *pack, h plumbing.Hash, limit int64) (plumbing.EncodedObject, error) {
	sized, err := pr.reader(&pr.sized, s, p, pr.cache, true)
	if err != nil {
		return nil, err
	}
	return pr.cache.get(h, func() (plumbing.EncodedObject, error) {
		o, err := sized.Get(h)
		lazy, isLazy := o.(*packfile.FSObject)
		if err != nil || !isLazy {
			return o, err
		}
		if limit > 0 && lazy.Size() > limit {
			return nil, &gitobj.TooLargeError{Object: gitobj.FromPlumbing(h), Size: lazy.Size(), Limit: limit}
		}
		whole, err := pr.reader(&pr.whole, s, p, pr.cache, false)
		if err != nil {
			return nil, err
		}
		return whole.Get(h)
	})
}

// getUncached reads object h from pack p, whole, without putting it, or the
// delta bases it is rebuilt from, into the object cache.
func (pr *packReaders) getUncached(s *Store, p *pack, h plumbing.Hash) (plumbing.EncodedObject, error) {
	pf, err := pr.reader(&pr.uncached, s, p, noCache{}, false)
	if err != nil {
		return nil, err
	}
	return pf.Get(h)
}

// size reads the size of the object at offset off of pack p from its entry,
// without inflating a whole object (a delta's size is read from the delta
// data, which is inflated).
func (pr *packReaders) size(s *Store, p *pack, off int64) (int64, error) {
	pf, err := pr.reader(&pr.sized, s, p, pr.cache, true)
	if err != nil {
		return 0, err
	}
	return pf.GetSizeByOffset(off)
}

// reader returns the reader of pack p in *readers, reading through c (with a
// filesystem: lazy), opening it on first use; every packfileReads reads, all
// readers are closed and opened again.
func (pr *packReaders) reader(readers *map[plumbing.Hash]*packfile.Packfile, s *Store, p *pack, c cache.Object, lazy bool) (*packfile.Packfile, error) {
	if pr.reads++; pr.reads > packfileReads {
		pr.reads = 0
		if err := pr.close(); err != nil {
			return nil, err
		}
	}
	if pf := (*readers)[p.sum]; pf != nil {
		return pf, nil
	}
	pf, err := openReader(s, p, c, lazy)
	if err != nil {
		return nil, err
	}
	if *readers == nil {
		*readers = map[plumbing.Hash]*packfile.Packfile{}
	}
	(*readers)[p.sum] = pf
	return pf, nil
}

// openReader opens a go-git reader of pack p reading through cache c; lazy,
// with the Repo's filesystem, it returns objects over 16 KiB as FSObjects
// (see packReaders).
func openReader(s *Store, p *pack, c cache.Object, lazy bool) (*packfile.Packfile, error) {
	f, err := s.packFS.Open(p.name)
	if err != nil {
		return nil, err
	}
	var fsys billy.Filesystem
	if lazy {
		fsys = s.packFS
	}
	return packfile.NewPackfileWithCache(p.idx, fsys, f, c, 0), nil
}

// close closes the readers.
func (pr *packReaders) close() error {
	var errs []error
	for _, readers := range []map[plumbing.Hash]*packfile.Packfile{pr.sized, pr.whole, pr.uncached} {
		for _, pf := range readers {
			errs = append(errs, pf.Close())
		}
	}
	pr.sized, pr.whole, pr.uncached = nil, nil, nil
	return errors.Join(errs...)
}

// readCache is a handle's view of the object cache, the one its pack readers
// read through. While the handle reads an object by id (get), the objects
// go-git puts are held back; then the object returned for the id is cached
// under that id (packstore.ObjectCache.PutAs) and the delta bases resolved on the way under the
// SHA-1 of their content (Put): only bases are hashed. Owned by its handle's
// packReaders, so used by one goroutine at a time.
type readCache struct {
	*packstore.ObjectCache
	holding bool
	held    []plumbing.EncodedObject
}

// errCacheEscaped is the panic of a readCache put to outside its get: a pack
// reader (or an object it made) reached from outside the handle that owns it.
var errCacheEscaped = errors.New("gitref: a pack reader's cache was reached outside its handle's read")

// Put holds o back during get. go-git puts objects only while get reads
// through the pack readers (their lazy objects do not leave get): a Put at
// any other time means a reader, its cache or a lazy object escaped its
// handle, a bug that panics here rather than let two goroutines share the
// cache.
func (c *readCache) Put(o plumbing.EncodedObject) {
	if !c.holding {
		panic(errCacheEscaped)
	}
	c.held = append(c.held, o)
}

// get reads id with read (through pack readers reading through c), caching
// what the read put as readCache says.
func (c *readCache) get(id plumbing.Hash, read func() (plumbing.EncodedObject, error)) (plumbing.EncodedObject, error) {
	c.holding = true
	o, err := read()
	c.holding = false
	for i, p := range c.held {
		if err == nil && p == o {
			c.PutAs(p, id)
		} else {
			c.ObjectCache.Put(p)
		}
		c.held[i] = nil
	}
	c.held = c.held[:0]
	return o, err
}

// noCache is an object cache that holds nothing: the cache of the pack
// readers BlobOnce reads with.
type noCache struct{}

func (noCache) Put(plumbing.EncodedObject)                       {}
func (noCache) Get(plumbing.Hash) (plumbing.EncodedObject, bool) { return nil, false }
func (noCache) Clear()                                           {}

// packObject reads object h from the Repo's packs with hd's pack readers:
// ErrObjectNotFound when no pack holds it. With limit > 0, an object over
// limit bytes is refused (TooLargeError) before its content is inflated
// (packReaders.get).
func (s *Store) packObject(hd *handle, h plumbing.Hash, limit int64) (plumbing.EncodedObject, error) {
	packs, err := s.packs.list(s.packStamp)
	if err != nil {
		return nil, err
	}
	for _, p := range packs {
		if _, ok := p.idx.Find(h); ok {
			return hd.readers.get(s, p, h, limit)
		}
	}
	return nil, plumbing.ErrObjectNotFound
}

// InPack reports whether one of the Repo's packs, as last listed, holds h;
// false also when the packs cannot be listed (the read that follows reports
// why).
func (s *Store) InPack(h plumbing.Hash) bool {
	packs, err := s.packs.list(s.packStamp)
	if err != nil {
		return false
	}
	for _, p := range packs {
		if _, ok := p.idx.Find(h); ok {
			return true
		}
	}
	return false
}

// packObjectSize is packObject's size of h, read from its pack entry.
func (s *Store) packObjectSize(hd *handle, h plumbing.Hash) (int64, error) {
	packs, err := s.packs.list(s.packStamp)
	if err != nil {
		return 0, err
	}
	for _, p := range packs {
		off, err := p.idx.FindOffset(h)
		if err != nil {
			continue
		}
		return hd.readers.size(s, p, off)
	}
	return 0, plumbing.ErrObjectNotFound
}

// BlobOnce reads blob h, whole, from a pack without putting it, or the delta
// bases it is rebuilt from, into the object cache, when the cache does not
// hold it (gitref's Repo.BlobOnce says why); false for any other blob, or on
// any error (the caller's read reports it).
func (s *Store) BlobOnce(h plumbing.Hash) ([]byte, bool) {
	o := s.ObjectOnce(plumbing.BlobObject, h)
	if o == nil {
		return nil, false
	}
	b, err := ReadAll(o, make([]byte, 0, o.Size()))
	if err != nil {
		return nil, false
	}
	return b, true
}

// ObjectOnce reads object h of type t from a pack without putting it, or
// the delta bases it is rebuilt from, into the object cache, when the cache
// does not hold it; nil for any other object, or on any error (the caller's
// read reports it).
func (s *Store) ObjectOnce(t plumbing.ObjectType, h plumbing.Hash) plumbing.EncodedObject {
	if s.done.Load() {
		return nil
	}
	if _, cached := s.cache.Get(h); cached {
		return nil
	}
	hd, err := s.acquire()
	if err != nil {
		return nil
	}
	defer s.release(hd)
	packs, err := s.packs.list(s.packStamp)
	if err != nil {
		return nil
	}
	for _, p := range packs {
		if _, ok := p.idx.Find(h); !ok {
			continue
		}
		o, err := hd.readers.getUncached(s, p, h)
		if err != nil || o.Type() != t {
			return nil
		}
		return packstore.WithID(o, h)
	}
	return nil
}
