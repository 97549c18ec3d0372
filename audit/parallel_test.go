package audit_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/gitref"
)

// TestRunWorkers: audit reads notes on all cores; with one worker and with
// four, --all and a range give the same report (rows in note order, problems,
// ticks without evidence). 150 ticks, one note undecodable, one missing. Run
// with -race.
func TestRunWorkers(t *testing.T) {
	h, notes := signedHistory(t, 3, 50)
	notes[h.Ticks[7].Commit] = []byte("not an envelope\n")
	delete(notes, h.Ticks[99].Commit)
	h.WriteNotes(t, notes)
	repo, err := gitref.Open(h.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	ns, err := repo.Notes("")
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []audit.Options{
		{All: true, Head: gitref.Hash(h.Head)},
		{Base: gitref.Hash(h.Root), Head: gitref.Hash(h.Head)},
	} {
		var reports [][]byte
		for _, procs := range []int{1, 4} {
			prev := runtime.GOMAXPROCS(procs)
			rep, err := audit.Run(repo, ns, opts)
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Statements != len(h.Ticks)-2 || len(rep.Problems) != 1 {
				t.Errorf("all=%v GOMAXPROCS %d: totals %+v, problems %v; want %d statements, 1 problem", opts.All, procs, rep.Totals, rep.Problems, len(h.Ticks)-2)
			}
			var buf bytes.Buffer
			if err := audit.WriteJSON(&buf, rep); err != nil {
				t.Fatal(err)
			}
			reports = append(reports, buf.Bytes())
		}
		if !bytes.Equal(reports[0], reports[1]) {
			t.Errorf("all=%v: reports differ between 1 and 4 workers:\n%s\n%s", opts.All, reports[0], reports[1])
		}
	}
}
