package gitref

import (
	"bytes"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// packReaders are one handle's readers of the Repo's packs: go-git Packfiles,
// by pack checksum, one set reading through the object cache (readCache) and
// one past it (noCache, for BlobOnce).
//
// A go-git Packfile is not safe for concurrent use (a file offset, a scanner,
// a map of the types it read), and neither is readCache. They are owned by
// their handle, so by one goroutine at a time, and nothing they return refers
// to them: every reader is opened without a filesystem, so that go-git hands
// out objects read whole into memory (plumbing.MemoryObject), never a
// packfile.FSObject. An FSObject (go-git's choice, with a filesystem, for an
// object over 16 KiB) reads its content when asked, through the cache of the
// reader that made it: a reader's cache would then be reached by whichever
// goroutine reads the object, after the handle went back to the pool and
// while another goroutine reads through it. openReader is the only place a
// Packfile is made.
type packReaders struct {
	cached   map[plumbing.Hash]*packfile.Packfile // through cache
	uncached map[plumbing.Hash]*packfile.Packfile // through noCache
	cache    *readCache
	reads    int // objects read since the readers were opened
}

// packfileReads is how many objects a handle reads through its pack readers
// before it opens them again: a go-git Packfile remembers the type of every
// object it read, by offset, for as long as it lives, which over a long
// history grows by megabytes per handle. (A variable for the tests.)
var packfileReads = 1 << 16

// get reads object h from pack p through the object cache (readCache).
func (pr *packReaders) get(r *Repo, p *pack, h plumbing.Hash) (plumbing.EncodedObject, error) {
	pf, err := pr.reader(&pr.cached, r, p, pr.cache)
	if err != nil {
		return nil, err
	}
	return pr.cache.get(pf, h)
}

// getUncached reads object h from pack p without putting it, or the delta
// bases it is rebuilt from, into the object cache.
func (pr *packReaders) getUncached(r *Repo, p *pack, h plumbing.Hash) (plumbing.EncodedObject, error) {
	pf, err := pr.reader(&pr.uncached, r, p, noCache{})
	if err != nil {
		return nil, err
	}
	return pf.Get(h)
}

// size reads the size of the object at offset off of pack p from its entry
// (a delta's target size from the delta's header), without inflating it.
func (pr *packReaders) size(r *Repo, p *pack, off int64) (int64, error) {
	pf, err := pr.reader(&pr.cached, r, p, pr.cache)
	if err != nil {
		return 0, err
	}
	return pf.GetSizeByOffset(off)
}

// reader returns the reader of pack p in *readers, reading through c,
// opening it on first use; every packfileReads reads, all readers are closed
// and opened again.
func (pr *packReaders) reader(readers *map[plumbing.Hash]*packfile.Packfile, r *Repo, p *pack, c cache.Object) (*packfile.Packfile, error) {
	if pr.reads++; pr.reads > packfileReads {
		pr.reads = 0
		if err := pr.close(); err != nil {
			return nil, err
		}
	}
	if pf := (*readers)[p.sum]; pf != nil {
		return pf, nil
	}
	pf, err := openReader(r, p, c)
	if err != nil {
		return nil, err
	}
	if *readers == nil {
		*readers = map[plumbing.Hash]*packfile.Packfile{}
	}
	(*readers)[p.sum] = pf
	return pf, nil
}

// openReader opens a go-git reader of pack p reading through cache c, with no
// filesystem: it returns memory objects only (see packReaders).
func openReader(r *Repo, p *pack, c cache.Object) (*packfile.Packfile, error) {
	f, err := r.packFS.Open(p.name)
	if err != nil {
		return nil, err
	}
	return packfile.NewPackfileWithCache(p.idx, nil, f, c, 0), nil
}

// close closes the readers.
func (pr *packReaders) close() error {
	var errs []error
	for _, pf := range pr.cached {
		errs = append(errs, pf.Close())
	}
	for _, pf := range pr.uncached {
		errs = append(errs, pf.Close())
	}
	pr.cached, pr.uncached = nil, nil
	return errors.Join(errs...)
}

// readCache is a handle's view of the object cache, the one its pack readers
// read through. While the handle reads an object by id (get), the objects
// go-git puts are held back; then the object returned for the id is cached
// under that id (putAs) and the delta bases resolved on the way under the
// SHA-1 of their content (Put): only bases are hashed. Owned by its handle's
// packReaders, so used by one goroutine at a time.
type readCache struct {
	*objectCache
	holding bool
	held    []plumbing.EncodedObject
}

// errCacheEscaped is the panic of a readCache put to outside its get: a pack
// reader (or an object it made) reached from outside the handle that owns it.
var errCacheEscaped = errors.New("gitref: a pack reader's cache was reached outside its handle's read")

// Put holds o back during get. go-git puts objects only while get reads
// through the pack reader (packReaders opens readers without a filesystem):
// a Put at any other time means the reader or its cache escaped its handle,
// a bug that panics here rather than let two goroutines share the cache.
func (c *readCache) Put(o plumbing.EncodedObject) {
	if !c.holding {
		panic(errCacheEscaped)
	}
	c.held = append(c.held, o)
}

// get reads id through pf, caching what the read put as readCache says.
func (c *readCache) get(pf *packfile.Packfile, id plumbing.Hash) (plumbing.EncodedObject, error) {
	c.holding = true
	o, err := pf.Get(id)
	c.holding = false
	for i, p := range c.held {
		if err == nil && p == o {
			c.putAs(p, id)
		} else {
			c.objectCache.Put(p)
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
// limit bytes is refused (TooLargeError) from its pack entry, before its
// content is inflated.
func (r *Repo) packObject(hd *handle, h plumbing.Hash, limit int64) (plumbing.EncodedObject, error) {
	packs, err := r.packs.list(r.packStamp)
	if err != nil {
		return nil, err
	}
	for _, p := range packs {
		pos, ok := p.idx.find(h)
		if !ok {
			continue
		}
		if limit > 0 {
			off, err := p.idx.offset(pos)
			if err != nil {
				return nil, err
			}
			size, err := hd.readers.size(r, p, off)
			if err != nil {
				return nil, err
			}
			if size > limit {
				return nil, &TooLargeError{Object: fromPlumbing(h), Size: size, Limit: limit}
			}
		}
		return hd.readers.get(r, p, h)
	}
	return nil, plumbing.ErrObjectNotFound
}

// inPack reports whether one of the Repo's packs, as last listed, holds h;
// false also when the packs cannot be listed (the read that follows reports
// why).
func (r *Repo) inPack(h plumbing.Hash) bool {
	packs, err := r.packs.list(r.packStamp)
	if err != nil {
		return false
	}
	for _, p := range packs {
		if _, ok := p.idx.find(h); ok {
			return true
		}
	}
	return false
}

// packObjectSize is packObject's size of h, read from its pack entry.
func (r *Repo) packObjectSize(hd *handle, h plumbing.Hash) (int64, error) {
	packs, err := r.packs.list(r.packStamp)
	if err != nil {
		return 0, err
	}
	for _, p := range packs {
		off, err := p.idx.FindOffset(h)
		if err != nil {
			continue
		}
		return hd.readers.size(r, p, off)
	}
	return 0, plumbing.ErrObjectNotFound
}

// BlobOnce returns a copy of blob id's content, as [Repo.BlobView] reads it
// (with its errors), for a blob read once: one in a pack is read without
// putting it, or the delta bases it is rebuilt from, into the object cache.
// Caching an object keys it by the collision-detecting SHA-1 of its content
// (objectCache.Put), which for a blob at the end of a long delta chain costs
// more than the read; the chain of one tasks file's blob shares nothing with
// another's. A blob the cache holds is read from there.
func (r *Repo) BlobOnce(id Hash) ([]byte, error) {
	if b, ok := r.packBlobOnce(id.plumbing()); ok {
		return b, nil
	}
	b, err := r.viewOf(plumbing.BlobObject, id.plumbing())
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// packBlobOnce is BlobOnce's read of a blob in a pack the cache does not
// hold; false for any other, or on any error (the caller's read reports it).
func (r *Repo) packBlobOnce(h plumbing.Hash) ([]byte, bool) {
	o := r.packObjectOnce(plumbing.BlobObject, h)
	if o == nil {
		return nil, false
	}
	b, err := readObject(o, make([]byte, 0, o.Size()))
	if err != nil {
		return nil, false
	}
	return b, true
}

// packObjectOnce reads object h of type t from a pack without putting it, or
// the delta bases it is rebuilt from, into the object cache, when the cache
// does not hold it; nil for any other object, or on any error (the caller's
// read reports it).
func (r *Repo) packObjectOnce(t plumbing.ObjectType, h plumbing.Hash) plumbing.EncodedObject {
	if r.done.Load() {
		return nil
	}
	if _, cached := r.cache.Get(h); cached {
		return nil
	}
	hd, err := r.acquire()
	if err != nil {
		return nil
	}
	defer r.release(hd)
	packs, err := r.packs.list(r.packStamp)
	if err != nil {
		return nil
	}
	for _, p := range packs {
		if _, ok := p.idx.find(h); !ok {
			continue
		}
		o, err := hd.readers.getUncached(r, p, h)
		if err != nil || o.Type() != t {
			return nil
		}
		return withID(o, h)
	}
	return nil
}
