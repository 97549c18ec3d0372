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
	// Most notes hold one statement: each run appends its rows in place into
	// its part of one array (one row per index), which the merge then closes
	// up, so that the rows are not held twice at the end (see merge).
	rows := make([]Row, n)
	err := fanout.Each(runs, workers, func(k int) error {
		lo, hi := k*n/runs, (k+1)*n/runs
		rds[k].rows = rows[lo:lo:hi]
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
	inPlace := true
	for k := range rds {
		r := rds[k].rows[:cap(rds[k].rows)]
		if len(r) > 0 && &r[0] != &rows[k*n/runs] {
			inPlace = false // the run outgrew its part
		}
	}
	return merge(rds, rows, inPlace), nil
}

// merge joins the runs' readers in order. With their rows in place in rows
// (each run's in its own part), the rows are moved down within rows: each
// run's to at or below where they are, so nothing is overwritten before it
// moves. Otherwise they are copied into a new array.
func merge(rds []reader, rows []Row, inPlace bool) *reader {
	var nrows, nann int
	for k := range rds {
		nrows += len(rds[k].rows)
		nann += len(rds[k].annotated)
	}
	out := &reader{annotated: make([]gitref.Hash, 0, nann)}
	if inPlace {
		out.rows = rows[:0]
	} else {
		out.rows = make([]Row, 0, nrows)
	}
	for k := range rds {
		rd := &rds[k]
		out.rows = append(out.rows, rd.rows...) // in place: a move down within rows
		out.problems = append(out.problems, rd.problems...)
		out.unreadable = append(out.unreadable, rd.unreadable...)
		out.annotated = append(out.annotated, rd.annotated...)
		*rd = reader{} // copied: the run's lists (and strings table) can go
	}
	if inPlace {
		clear(rows[len(out.rows):]) // moved down: not held twice
	}
	return out
}

// readsPerWorkerMin is the fewest notes worth a worker (and a run) of their
// own; runsPerWorker is how many runs each worker takes in a long list, so
// that a worker slowed by other work does not hold up the rest.
const (
	readsPerWorkerMin = 64
	runsPerWorker     = 4
)
