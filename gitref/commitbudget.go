package gitref

// SetCommitCacheSize bounds the Repo's cache of decoded commits to size bytes
// of estimated heap (0: the default, 48 MiB, which holds about 100,000
// commits), dropping the least recently used commits beyond it. A command
// that walks a long history once and keeps what it needs of each commit
// (audit) does not need the default: the cache would grow with the history.
// Safe to call concurrently with reads.
func (r *Repo) SetCommitCacheSize(size int) {
	c := &r.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = max(size, 0)
	c.evict()
}

// DropCaches empties the Repo's object and decoded-commit caches, keeping
// their bounds: a command done with the objects it read (a range's walk and
// checks) frees their memory before its next stage. Reads after it are
// correct, only read again. Safe to call concurrently with reads.
func (r *Repo) DropCaches() {
	r.cache.Clear()
	c := &r.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	c.lru.Init()
	c.bytes = 0
}
