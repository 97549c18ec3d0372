package audit

import (
	"runtime"
	"sync"

	"github.com/taskproof/taskproof/gitref"
)

// readParallel runs read(i, rd) for i in [0, n) on all cores and returns the
// readers' results merged as if one reader had read 0, 1, …, n-1 in order:
// each worker reads a contiguous run of indexes into its own reader, and the
// runs are joined in order. The error of the lowest index that failed is
// returned (the work after it in that run is skipped).
func readParallel(n int, read func(i int, rd *reader) error) (*reader, error) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/readsPerWorkerMin))
	rds := make([]reader, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				if err := read(i, &rds[w]); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	out := &reader{}
	for i := range rds {
		rd := &rds[i]
		out.rows = append(out.rows, rd.rows...)
		out.problems = append(out.problems, rd.problems...)
		out.unreadable = append(out.unreadable, rd.unreadable...)
		for c := range rd.annotated {
			if out.annotated == nil {
				out.annotated = map[gitref.Hash]bool{}
			}
			out.annotated[c] = true
		}
	}
	return out, nil
}

// readsPerWorkerMin is the fewest notes worth a worker of their own.
const readsPerWorkerMin = 64
