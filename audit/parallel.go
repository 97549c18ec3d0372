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
		rds[w].rows = make([]Row, 0, hi-lo) // most notes hold one statement
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
	if workers == 1 {
		return &rds[0], nil
	}
	var nrows, nann int
	for i := range rds {
		nrows += len(rds[i].rows)
		nann += len(rds[i].annotated)
	}
	out := &reader{rows: make([]Row, 0, nrows), annotated: make([]gitref.Hash, 0, nann)}
	for i := range rds {
		rd := &rds[i]
		out.rows = append(out.rows, rd.rows...)
		out.problems = append(out.problems, rd.problems...)
		out.unreadable = append(out.unreadable, rd.unreadable...)
		out.annotated = append(out.annotated, rd.annotated...)
	}
	return out, nil
}

// readsPerWorkerMin is the fewest notes worth a worker of their own.
const readsPerWorkerMin = 64
