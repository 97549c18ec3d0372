package notemerge

import (
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// TestMergeNotesSignedWins: when two sides attested one tick differently, a
// signed statement is kept over an unsigned one whatever their times (an
// unsigned statement's time is anyone's to write); between two signed ones
// (or two unsigned) the later time wins, whichever side is local.
func TestMergeNotesSignedWins(t *testing.T) {
	mk := func(marker, at string, signed bool) []byte {
		st, err := statement.Encode(statement.Subject{Name: "f/T1", GitCommit: testCommit}, predicate.PredicateType, map[string]any{"m": marker, "time": at})
		if err != nil {
			t.Fatal(err)
		}
		env := &dsse.Envelope{PayloadType: dsse.PayloadType, Payload: st}
		if signed {
			env.Signatures = []dsse.Signature{{KeyID: "SHA256:x", Sig: []byte("not checked by the merge")}}
		}
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	signedOld := mk("signed", "2026-01-01T00:00:00Z", true)
	unsignedNew := mk("unsigned", "2026-06-01T00:00:00Z", false)
	signedNew := mk("signed-later", "2026-06-01T00:00:00Z", true)
	for _, c := range []struct {
		name       string
		a, b, want []byte
	}{
		{"signed beats a later unsigned", signedOld, unsignedNew, signedOld},
		{"between signed, the later", signedOld, signedNew, signedNew},
	} {
		for _, order := range [][2][]byte{{c.a, c.b}, {c.b, c.a}} {
			m, err := MergeNotes(order[0], order[1])
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if string(m.Merged) != string(c.want) || len(m.Displaced) != 1 {
				t.Errorf("%s: merged %q, displaced %d lines; want %q kept", c.name, m.Merged, len(m.Displaced), c.want)
			}
		}
	}
}
