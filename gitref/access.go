package gitref

import "github.com/taskproof/taskproof/internal/repocache"

// Access tunes how a Repo reads objects: given to Open. The zero Access keeps
// go-git's 96 MiB object cache, a 48 MiB cache of decoded commits (about
// 100,000 commits) and maps pack files read-only into memory where the
// system allows it (no system call per object): right for commands that read
// objects more than once (audit checking signatures, attest).
type Access struct {
	// OnePass is for a command that reads each object about once (a range
	// walk, the merge gate): a 16 MiB object cache, a 4 MiB commit cache (some
	// 10,000 commits) and pack files read through a 64 KiB pread window
	// rather than mapped, whose touched pages would count in the process's
	// resident set until Close. A larger cache gains such a walk nothing and
	// stays resident; the gate's two passes over a range's commits decode
	// them again at about 5 % of its CPU at 50,000 ticks
	// (docs/benchmarks.md#memory). No
	// process-wide setting (memory limit, GC) is touched.
	OnePass bool
	// ObjectCache, when above zero, bounds the object cache (decoded
	// commits, trees and blobs, and pack delta bases) to that many bytes, at
	// least 1 MiB.
	ObjectCache int64
	// CommitCache, when above zero, bounds the cache of decoded commits to
	// that many bytes of estimated heap, dropping the least recently used
	// commits beyond it. A command that walks a long history once and keeps
	// what it needs of each commit does not need more than a few MiB: the
	// cache would grow with the history.
	CommitCache int
}

// The caches an Access with OnePass sets, in bytes.
const (
	onePassObjectCache = 16 << 20
	onePassCommitCache = 4 << 20
)

// apply sets r up for a, before its first object read.
func (r *Repo) apply(a Access) {
	if a.OnePass {
		r.store.SetCacheSize(onePassObjectCache)
		r.setCommitCacheSize(onePassCommitCache)
		r.store.SetPackMapping(false)
	}
	if a.ObjectCache > 0 {
		r.store.SetCacheSize(a.ObjectCache)
	}
	if a.CommitCache > 0 {
		r.setCommitCacheSize(a.CommitCache)
	}
}

// setCommitCacheSize bounds the Repo's cache of decoded commits to size bytes
// of estimated heap (0: the default, 48 MiB), dropping the least recently
// used commits beyond it. Safe to call concurrently with reads.
func (r *Repo) setCommitCacheSize(size int) { r.commits.SetMax(size) }

// dropCaches empties the Repo's object and decoded-commit caches, keeping
// their bounds: a command done with the objects it read (a range's walk and
// checks) frees their memory before its next stage. Reads after it are
// correct, only read again. Safe to call concurrently with reads.
func (r *Repo) dropCaches() {
	r.store.ClearCache()
	r.commits.Clear()
}

func init() {
	repocache.Register(func(repo any) { repo.(*Repo).dropCaches() })
}
