package notemerge

import (
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// FuzzMergeNotes: merging two notes loses no line (each is in the merged note
// or displaced), the winner of a conflict does not depend on which side is
// local, and merging the result with the remote again keeps the winners.
func FuzzMergeNotes(f *testing.F) {
	mk := func(marker, at string) []byte {
		st, err := statement.Encode(statement.Subject{Name: "f/T1", GitCommit: testCommit}, predicate.PredicateType, map[string]any{"m": marker, "time": at})
		if err != nil {
			f.Fatal(err)
		}
		b, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: st}).MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	a, b := mk("a", "2026-01-01T00:00:00Z"), mk("b", "2026-01-02T00:00:00Z")
	f.Add(append(a, '\n'), append(b, '\n'))
	f.Add([]byte("x\n"), append(append([]byte("x\ny\n"), a...), '\n'))
	f.Add([]byte(""), []byte("\n\n"))
	f.Fuzz(func(t *testing.T, local, remote []byte) {
		m, err := MergeNotes(local, remote)
		if err != nil {
			return
		}
		have := map[string]bool{}
		for _, l := range noteline.Split(m.Merged) {
			have[string(l)] = true
		}
		for _, l := range m.Displaced {
			have[string(l)] = true
		}
		for _, side := range [][]byte{local, remote} {
			for _, l := range noteline.Split(side) {
				if !have[string(l)] {
					t.Fatalf("line %q lost merging %q and %q", l, local, remote)
				}
			}
		}
		r, err := MergeNotes(remote, local)
		if err != nil {
			t.Fatalf("merge one way works, the other fails: %v", err)
		}
		if len(r.Conflicts) != len(m.Conflicts) {
			t.Fatalf("%d conflicts one way, %d the other", len(m.Conflicts), len(r.Conflicts))
		}
		for i := range m.Conflicts {
			if m.Conflicts[i].Kept.PayloadSHA256 != r.Conflicts[i].Kept.PayloadSHA256 {
				t.Fatalf("conflict on %s: the winner depends on which side is local", m.Conflicts[i].Subject)
			}
		}
		// The merged note already holds the winner: merging the remote again
		// keeps it and displaces nothing new.
		again, err := MergeNotes(m.Merged, remote)
		if err != nil {
			t.Fatalf("merging the result again: %v", err)
		}
		kept := map[string]bool{}
		for _, c := range m.Conflicts {
			kept[c.Kept.PayloadSHA256] = true
		}
		for _, c := range again.Conflicts {
			if !kept[c.Kept.PayloadSHA256] {
				t.Fatalf("merging again changes the winner of %s", c.Subject)
			}
		}
	})
}
