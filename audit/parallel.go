package audit

import (
	"runtime"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/fanout"
)

// readParallel runs read(i, rd) for i in [0, n) on all cores and returns the
// readers' results merged as if one reader had read 0, 1, …, n-1 in order:
// the indexes are cut into contiguous runs, several per worker, each read
// into its own reader (fanout.Each), and the runs are joined in order. The
// error of the lowest index that failed is returned (the work after it in
// that run is skipped).
func readParallel(n int, read func(i int, rd *reader) error) (*reader, error) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/readsPerWorkerMin))
	runs := min(workers*runsPerWorker, max(1, n/readsPerWorkerMin))
	rds := make([]reader, runs)
	err := fanout.Each(runs, workers, func(k int) error {
		lo, hi := k*n/runs, (k+1)*n/runs
		rds[k].rows = make([]Row, 0, hi-lo) // most notes hold one statement
		for i := lo; i < hi; i++ {
			if err := read(i, &rds[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if runs == 1 {
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
		*rd = reader{} // copied: the run's lists can go
	}
	return out, nil
}

// readsPerWorkerMin is the fewest notes worth a worker (and a run) of their
// own; runsPerWorker is how many runs each worker takes in a long list, so
// that a worker slowed by other work does not hold up the rest.
const (
	readsPerWorkerMin = 64
	runsPerWorker     = 4
)
