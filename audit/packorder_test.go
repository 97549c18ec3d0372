package audit_test

import (
	"bytes"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/gitref"
)

// TestRunPackOrder: reading the notes of --all in pack order gives the report
// that reading them in commit-id order gives: the same rows, problems (in
// commit-id order), ticks without evidence, and the same JSON, text and CSV,
// with one worker and with four, with notes of one statement each (the rows
// read in place) and with a note of two (a run outgrows its part). The notes
// are written by fast-import in history order, so pack order is not id order.
func TestRunPackOrder(t *testing.T) {
	h, signed := signedHistory(t, 3, 100)
	for _, double := range []bool{false, true} {
		notes := map[string][]byte{}
		for k, v := range signed {
			notes[k] = v
		}
		for _, i := range []int{3, 70, 141, 222} {
			notes[h.Ticks[i].Commit] = []byte("not an envelope\n")
		}
		notes[h.Ticks[180].Commit] = append([]byte("{}\n"), notes[h.Ticks[180].Commit]...)
		delete(notes, h.Ticks[99].Commit)
		if double {
			notes[h.Ticks[5].Commit] = append(slices.Clone(notes[h.Ticks[5].Commit]), notes[h.Ticks[6].Commit]...)
		}
		h.WriteNotes(t, notes)
		repo, err := gitref.Open(h.Dir)
		if err != nil {
			t.Fatal(err)
		}
		ns, err := repo.Notes("")
		if err != nil {
			t.Fatal(err)
		}
		entries, err := ns.All()
		if err != nil {
			t.Fatal(err)
		}
		blobs := make([]gitref.Hash, len(entries))
		for i, e := range entries {
			blobs[i] = e.Blobs[0]
		}
		if order, err := repo.PackOrder(blobs); err != nil || slices.IsSorted(order) {
			t.Fatalf("pack order %v, %v: want one that is not commit-id order", order, err)
		}
		opts := audit.Options{All: true, Head: gitref.Hash(h.Head)}
		for _, procs := range []int{1, 4} {
			var reps []*audit.Report
			for _, packOrder := range []bool{false, true} {
				prevOrder := audit.ReadNotesInPackOrder(packOrder)
				prevProcs := runtime.GOMAXPROCS(procs)
				rep, err := audit.Run(repo, ns, opts)
				runtime.GOMAXPROCS(prevProcs)
				audit.ReadNotesInPackOrder(prevOrder)
				if err != nil {
					t.Fatal(err)
				}
				reps = append(reps, rep)
			}
			if len(reps[0].Problems) != 5 || reps[0].Totals.Statements == 0 {
				t.Fatalf("double=%v: %d problems, %d statements; want 5 problems", double, len(reps[0].Problems), reps[0].Totals.Statements)
			}
			if !reflect.DeepEqual(reps[0], reps[1]) {
				t.Errorf("double=%v GOMAXPROCS %d: reports differ between commit-id and pack order", double, procs)
			}
			for _, w := range []func(*bytes.Buffer, *audit.Report) error{
				func(b *bytes.Buffer, r *audit.Report) error { return audit.WriteJSON(b, r) },
				func(b *bytes.Buffer, r *audit.Report) error { return audit.WriteText(b, r) },
				func(b *bytes.Buffer, r *audit.Report) error { return audit.WriteCSV(b, r) },
			} {
				var a, b bytes.Buffer
				if err := w(&a, reps[0]); err != nil {
					t.Fatal(err)
				}
				if err := w(&b, reps[1]); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("double=%v GOMAXPROCS %d: written reports differ:\n%s\n%s", double, procs, a.Bytes(), b.Bytes())
				}
			}
		}
		repo.Close()
	}
}
