package packstore

import (
	"crypto"
	"hash"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	gogithash "github.com/go-git/go-git/v5/plumbing/hash"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
)

// ObjectCache is the object cache a repository's go-git storages share: an
// LRU that SetSize replaces while the storages keep using the cache. Safe for
// concurrent use.
type ObjectCache struct {
	lru atomic.Pointer[cache.ObjectLRU]
}

// NewObjectCache returns an ObjectCache bounded to size bytes.
func NewObjectCache(size int64) *ObjectCache {
	c := &ObjectCache{}
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
func (c *ObjectCache) Put(o plumbing.EncodedObject) {
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

// PutAs stores o, read from a pack for id, under id, without hashing it: the
// content the pack index gives id, which is what an uncached read of id
// returns. o is stored as Put would when it is not a memory object holding
// all of its content (a failed read go-git caches anyway).
func (c *ObjectCache) PutAs(o plumbing.EncodedObject, id plumbing.Hash) {
	mo, ok := o.(*plumbing.MemoryObject)
	if !ok {
		c.Put(o)
		return
	}
	if _, whole := ViewObject(mo); !whole {
		c.Put(o)
		return
	}
	c.lru.Load().Put(hashedObject{EncodedObject: mo, id: id})
}

// WithID is o, read by id h, carrying h: a memory object computes its id
// from its content when asked and keeps it, a write that two goroutines
// sharing the object (through the object cache) would race on.
func WithID(o plumbing.EncodedObject, h plumbing.Hash) plumbing.EncodedObject {
	if mo, ok := o.(*plumbing.MemoryObject); ok {
		return hashedObject{EncodedObject: mo, id: h}
	}
	return o
}

// Get returns the object cached under k.
func (c *ObjectCache) Get(k plumbing.Hash) (plumbing.EncodedObject, bool) {
	return c.lru.Load().Get(k)
}

// Clear drops every object cached.
func (c *ObjectCache) Clear() { c.lru.Load().Clear() }

// SetSize bounds the cache to size bytes (at least 1 MiB), dropping what it
// holds. Safe to call concurrently with reads.
func (c *ObjectCache) SetSize(size int64) {
	c.lru.Store(cache.NewObjectLRU(cache.FileSize(max(size, 1<<20))))
}

// MaxSize is the cache's bound in bytes.
func (c *ObjectCache) MaxSize() int64 { return int64(c.lru.Load().MaxSize) }

// Hashed is o carrying id h, without computing it (see WithID).
func Hashed(o plumbing.EncodedObject, h plumbing.Hash) plumbing.EncodedObject {
	return hashedObject{EncodedObject: o, id: h}
}

// ViewObject returns the content of an object held in memory without copying
// it: go-git's memory objects read as a bytes.Reader, whose WriteTo hands its
// whole remaining slice to one Write. ok is false for any other object (the
// caller reads it otherwise). The bytes are shared with the object
// cache: read-only, and not to be kept past the caller's use.
func ViewObject(o plumbing.EncodedObject) (b []byte, ok bool) {
	rd, err := o.Reader()
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	wt, isWT := rd.(io.WriterTo)
	if !isWT {
		return nil, false
	}
	var v viewer
	if n, err := wt.WriteTo(&v); err != nil || v.calls != 1 || n != o.Size() || int64(len(v.b)) != n {
		return nil, false
	}
	return v.b, true
}

// viewer keeps the one slice a bytes.Reader's WriteTo writes (ViewObject).
type viewer struct {
	b     []byte
	calls int
}

func (v *viewer) Write(p []byte) (int, error) {
	v.b = p
	v.calls++
	return len(p), nil
}
