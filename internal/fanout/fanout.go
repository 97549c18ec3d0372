// Package fanout runs independent work items on several goroutines with one
// deterministic error rule: the error returned is the one a sequential loop
// over the items would have stopped at, whichever failed first in time.
package fanout

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/taskproof/taskproof/internal/panics"
)

// Each calls do(i) for every i in [0, n) on min(workers, n) goroutines
// (workers ≤ 0: runtime.GOMAXPROCS(0)) and returns when all calls are done.
// Items are handed out in index order. When calls fail, Each returns the
// error of the lowest index that failed: every item below it has run, and
// the items above it that had not started are skipped. do must be safe for
// concurrent use; results are best written to a slice slot per index. A panic
// in do(i) is recovered in its worker and is item i's error, a
// *panics.Error: it neither crashes the process nor leaves Each waiting.
func Each(n, workers int, do func(i int) error) error {
	if n <= 0 {
		return nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	var (
		next     atomic.Int64 // the next index to hand out
		mu       sync.Mutex
		failedAt = n // the lowest failed index; n: none
		firstErr error
		wg       sync.WaitGroup
	)
	lowestFailed := func() int {
		mu.Lock()
		defer mu.Unlock()
		return failedAt
	}
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				// Indexes are handed out in order: once one is past the
				// lowest failure, so are all that follow.
				if i >= n || i > lowestFailed() {
					return
				}
				if err := call(do, i); err != nil {
					mu.Lock()
					if i < failedAt {
						failedAt, firstErr = i, err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// call is do(i), a panic recovered as its error.
func call(do func(i int) error, i int) error {
	return panics.Call(func() error {
		panics.Inject("fanout")
		return do(i)
	})
}
