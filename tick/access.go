package tick

import "github.com/taskproof/taskproof/gitref"

// walkOnceCommitCache is the budget of decoded commits, in bytes (about
// 2,000 commits), of a walk over a history that reads it once: the walk
// compares each commit with the parent it read just before, so what it reads
// again is recent; a larger budget grows with the history and saves no
// measurable CPU (docs/benchmarks.md).
const walkOnceCommitCache = 2 << 20

// WalkOnce is the access to open a repository with for one [Stream] or
// [Range] over a history and nothing else (`taskproof ticks`): objects read
// once, a commit cache that does not grow with the history.
func WalkOnce() gitref.Access {
	return gitref.Access{OnePass: true, CommitCache: walkOnceCommitCache}
}
