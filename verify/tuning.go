package verify

import "github.com/taskproof/taskproof/gitref"

// ObjectCacheSize is the object cache, in bytes, that TuneRepo gives a
// verifier's Repo: 16 MiB. The merge gate reads each object about once, so a
// larger cache holds what is not read again: `verify --branch` over 10,000
// ticks keeps about 180 MB more resident with gitref's default of 96 MiB
// (docs/benchmarks.md#verify---branch-bounded-and-linear).
const ObjectCacheSize = 16 << 20

// TuneRepo sets r up for a Verifier's reading, before its first object read:
// an object cache of ObjectCacheSize, and pack files read through gitref's
// pread window rather than mapped (mapped pages count in the resident set,
// about the size of the packs read, for little CPU saved in a single pass).
// Nothing else is changed: no process-wide setting (memory limit, GC) is
// touched.
func TuneRepo(r *gitref.Repo) {
	r.SetObjectCacheSize(ObjectCacheSize)
	r.SetPackMapping(false)
}
