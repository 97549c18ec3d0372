package notemerge

import (
	"slices"
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// TestMergeNotesSaysWhy: a conflict names the fields the two sides differ in
// and the rule that kept the winner — a fully signed side, the later time,
// or on equal times the smaller SHA-256 — whichever side is local.
func TestMergeNotesSaysWhy(t *testing.T) {
	mk := func(reason, at, keyid string, verdict string) []byte {
		p := map[string]any{"verdict": verdict, "time": at, "regression": map[string]any{"reason": reason}}
		st, err := statement.Encode(statement.Subject{Name: "f/T1", GitCommit: testCommit}, predicate.PredicateType, p)
		if err != nil {
			t.Fatal(err)
		}
		env := &dsse.Envelope{PayloadType: dsse.PayloadType, Payload: st}
		if keyid != "" {
			env.Signatures = []dsse.Signature{{KeyID: keyid, Sig: []byte("not checked by the merge")}}
		}
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	early := mk("no_story", "2026-01-01T00:00:00Z", "SHA256:a", "regression_only")
	late := mk("planning_work", "2026-06-01T00:00:00Z", "SHA256:b", "regression_only")
	lateUnsigned := mk("no_story", "2026-07-01T00:00:00Z", "", "regression_only")
	sameTimeOther := mk("no_story", "2026-01-01T00:00:00Z", "SHA256:a", "verified")
	for _, c := range []struct {
		name    string
		a, b    []byte
		rule    string
		differs []string
		kept    string // the kept side's reason
	}{
		{"the later time", early, late, RuleTime, []string{"reason", "signer", "time"}, "planning_work"},
		{"signed over unsigned", early, lateUnsigned, RuleSigned, []string{"signer", "time"}, "no_story"},
		{"equal times", early, sameTimeOther, RuleDigest, []string{"verdict"}, ""},
	} {
		for _, order := range [][2][]byte{{c.a, c.b}, {c.b, c.a}} {
			m, err := MergeNotes(order[0], order[1])
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if len(m.Conflicts) != 1 {
				t.Fatalf("%s: %d conflicts", c.name, len(m.Conflicts))
			}
			x := m.Conflicts[0]
			if x.Rule != c.rule || !slices.Equal(x.Differs, c.differs) || (c.kept != "" && x.Kept.Reason != c.kept) {
				t.Errorf("%s: rule %q differs %v kept reason %q; want %q %v %q", c.name, x.Rule, x.Differs, x.Kept.Reason, c.rule, c.differs, c.kept)
			}
		}
	}
}

// TestAcknowledgements: acknowledgement lines are read by payload, other
// lines (envelopes, text) are not acknowledgements.
func TestAcknowledgements(t *testing.T) {
	note := []byte(`{"payloadType":"x","payload":"e30=","signatures":[]}
{"taskproofConflictResolved":{"payload_sha256":"abc","by":"dev@example.invalid","time":"2026-01-01T00:00:00Z"}}
{"taskproofConflictResolved":{"payload_sha256":""}}
not json
{"taskproofConflictResolved":{"payload_sha256":"dup","payload_sha256":"abc2"}}
{"taskproofConflictResolved":{"payload_sha256":"case","Payload_SHA256":"abc3"}}
`)
	acks := acknowledgements(note)
	if len(acks) != 1 || acks["abc"].By != "dev@example.invalid" {
		t.Errorf("acknowledgements = %v, want only abc's (lines strict JSON refuses acknowledge nothing)", acks)
	}
}

// testCommit is the commit the tests' statements name.
const testCommit = "0123456789abcdef0123456789abcdef01234567"
