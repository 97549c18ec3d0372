package attest

import (
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// TestAdoptHeldTime: a run takes the time of the held statement that is its
// own but for the time, never a later time than its own, and never that of a
// statement differing in anything else or about another commit.
func TestAdoptHeldTime(t *testing.T) {
	subject := statement.Subject{Name: "001-x/T001", GitCommit: testCommit}
	line := func(p *predicate.Predicate, s statement.Subject) []byte {
		b, err := statement.Encode(s, predicate.PredicateType, p)
		if err != nil {
			t.Fatal(err)
		}
		l, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: b, Signatures: []dsse.Signature{}}).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return append(l, '\n')
	}
	at := func(p *predicate.Predicate, time string) *predicate.Predicate {
		q := *p
		q.Time = time
		return &q
	}
	base := testPredicate(t, predicate.RegressionOnly, `{"regression":{"reason":"planning_work"}}`)
	earlier, later := "2026-03-04T05:06:06Z", "2026-03-04T05:06:08Z"
	other := testPredicate(t, predicate.Verified, "")
	for _, c := range []struct {
		name string
		note []byte
		want string
	}{
		{"held a second earlier", line(at(base, earlier), subject), earlier},
		{"held in this second", line(base, subject), base.Time},
		{"held a second later", line(at(base, later), subject), base.Time},
		{"another verdict", line(at(other, earlier), subject), base.Time},
		{"another commit", line(at(base, earlier), statement.Subject{Name: subject.Name, GitCommit: testTree}), base.Time},
		{"no note", nil, base.Time},
	} {
		p := at(base, base.Time)
		same, err := adoptHeldTime(c.note, subject, p)
		if err != nil {
			t.Fatal(err)
		}
		if p.Time != c.want || same != (c.want == earlier || c.name == "held in this second") {
			t.Errorf("%s: time %s (held: %v), want %s", c.name, p.Time, same, c.want)
		}
	}
}
