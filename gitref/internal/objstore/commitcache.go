package objstore

import (
	"container/list"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CommitCache holds decoded commits by id, least recently used dropped first
// once the commits held take more than commitCacheBytes (commitSize each).
// A gate reads a range's commits in several passes (the range walk, the tick
// walk, the object check): the budget holds about 100,000 commits of a few
// hundred bytes, so that each pass finds the commits the one before read
// instead of decoding them again. Safe for concurrent use.
type CommitCache struct {
	mu    sync.Mutex
	m     map[plumbing.Hash]*list.Element // of *commitEntry
	lru   list.List                       // front: most recently used
	bytes int
	max   int // 0: commitCacheBytes
}

type commitEntry struct {
	h    plumbing.Hash
	c    *object.Commit
	size int
}

// commitCacheBytes bounds CommitCache (commitSize of the commits it holds).
const commitCacheBytes = 48 << 20

// commitSize estimates the heap a decoded commit takes, in bytes: its
// strings, its parents and the cache's own entry.
func commitSize(c *object.Commit) int {
	return 320 + len(c.Message) + len(c.PGPSignature) + len(c.Encoding) +
		len(c.Author.Name) + len(c.Author.Email) + len(c.Committer.Name) + len(c.Committer.Email) +
		len(c.ParentHashes)*len(plumbing.Hash{}) + len(c.ExtraHeaders)*64
}

// Get returns commit h when the cache holds it.
func (c *CommitCache) Get(h plumbing.Hash) (*object.Commit, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[h]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*commitEntry).c, true
}

// Put caches commit o under id h.
func (c *CommitCache) Put(h plumbing.Hash, o *object.Commit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[plumbing.Hash]*list.Element{}
	}
	if e, ok := c.m[h]; ok {
		c.lru.MoveToFront(e)
		return
	}
	ce := &commitEntry{h: h, c: o, size: commitSize(o)}
	c.m[h] = c.lru.PushFront(ce)
	c.bytes += ce.size
	c.evict()
}

// evict drops the least recently used commits while the cache holds more
// than its budget (max, or commitCacheBytes when max is 0), keeping the
// newest one; c.mu is held.
func (c *CommitCache) evict() {
	limit := c.max
	if limit == 0 {
		limit = commitCacheBytes
	}
	for c.bytes > limit && c.lru.Len() > 1 {
		last := c.lru.Back()
		old := last.Value.(*commitEntry)
		c.lru.Remove(last)
		delete(c.m, old.h)
		c.bytes -= old.size
	}
}

// SetMax bounds the cache to size bytes of estimated heap (0: the default,
// 48 MiB), dropping the least recently used commits beyond it. Safe to call
// concurrently with reads.
func (c *CommitCache) SetMax(size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = max(size, 0)
	c.evict()
}

// Clear empties the cache, keeping its bound.
func (c *CommitCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	c.lru.Init()
	c.bytes = 0
}

// Max is the cache's bound as set (0: the default).
func (c *CommitCache) Max() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.max
}

// Len is the number of commits held.
func (c *CommitCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Bytes is the estimated heap the commits held take.
func (c *CommitCache) Bytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
