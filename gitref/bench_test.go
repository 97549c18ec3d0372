package gitref

import (
	"fmt"
	"sync/atomic"
	"testing"
)

// BenchmarkCommitTreeAndFile resolves each of 10,000 commits' trees and reads
// one file per commit (a repository generated with git fast-import). One op is
// one commit.
func BenchmarkCommitTreeAndFile(b *testing.B) {
	dir, ids := manyCommits(b, 10000, func(i int) (string, string) {
		return fmt.Sprintf("specs/%03d-f/tasks.md", i%50), fmt.Sprintf("- [ ] T%03d task %d\n", i, i)
	})
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		c, err := r.Commit(id)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.fileInTree(toPlumbing(c.Tree), fmt.Sprintf("specs/%03d-f/tasks.md", (i%len(ids))%50), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommitTreeAndFileParallel is BenchmarkCommitTreeAndFile with one Repo
// shared by GOMAXPROCS goroutines (b.RunParallel), as a verifier using every
// core reads commits. One op is one commit.
func BenchmarkCommitTreeAndFileParallel(b *testing.B) {
	dir, ids := manyCommits(b, 10000, func(i int) (string, string) {
		return fmt.Sprintf("specs/%03d-f/tasks.md", i%50), fmt.Sprintf("- [ ] T%03d task %d\n", i, i)
	})
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(next.Add(1)-1) % len(ids)
			c, err := r.Commit(ids[i])
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := r.fileInTree(toPlumbing(c.Tree), fmt.Sprintf("specs/%03d-f/tasks.md", i%50), "bench"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
