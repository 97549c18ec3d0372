package verify

import (
	"reflect"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/trust"
)

// TestTickIndexRoundTrip checks that a spooled tick's index gives back every
// field it holds as it was added, for values that pack into bytes and for
// those that do not (upper-case or short hashes, a task that is no subject
// name of its unit, evidence on another commit), and that what a pass
// changes is kept and patched onto the tick read back whole.
func TestTickIndexRoundTrip(t *testing.T) {
	unit := specfmt.Unit{Format: specfmt.Speckit, Feature: "001-x", Dir: "specs/001-x"}
	ticks := []TickResult{
		{Commit: "0123456789abcdef0123456789abcdef01234567", Path: "specs/001-x/tasks.md", Unit: unit, TaskID: "T001", Task: "001-x/T001",
			LineHash: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", Status: StatusEvidenced,
			Evidence: "0123456789abcdef0123456789abcdef01234567", Verdict: "verified"},
		{Commit: "0123456789ABCDEF0123456789abcdef01234567", Path: "a/tasks.md", TaskID: "T002", Task: "bug:x",
			LineHash: "abc", Status: StatusUnverifiable, Reason: ReasonTickedWithoutEvidence, Failing: true,
			Evidence: "fedcba9876543210fedcba9876543210fedcba98", Warnings: []Reason{{Code: "w"}},
			Policy: []policy.Result{{Rule: "r"}}, Via: []string{"v"}},
		{Commit: "abcd", Status: StatusUnverifiable, Reason: ReasonNotRegular, Failing: true, Message: "m"},
	}
	ix := newTickIndex(0)
	for i := range ticks {
		ix.add(&ticks[i])
	}
	for i, want := range ticks {
		var got TickResult
		ix.tick(i, &got)
		want.Message = "" // the spool's, unless a pass sets it
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tick %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	var got TickResult
	ix.tick(0, &got)
	got.Status, got.Reason, got.Failing, got.Message = StatusRejected, ReasonPolicy, true, "policy: r"
	got.Policy = append(got.Policy, policy.Result{Rule: "r"})
	ix.update(0, &got)
	whole := ticks[0]
	whole.Message, whole.Line = "spooled", 7
	ix.patch(0, &whole)
	if whole.Status != StatusRejected || whole.Reason != ReasonPolicy || !whole.Failing || whole.Message != "policy: r" ||
		len(whole.Policy) != 1 || whole.Line != 7 {
		t.Errorf("patched tick 0: %+v", whole)
	}
	whole = ticks[2]
	ix.patch(2, &whole)
	if whole.Message != "m" || whole.Status != StatusUnverifiable || !whole.Failing {
		t.Errorf("tick 2 read back: %+v", whole)
	}
}

// TestTickSpoolRoundTrip checks that a tick reads back from the tick spool
// as it was added, its unexported hint key and nil lists
// told apart from empty included.
func TestTickSpoolRoundTrip(t *testing.T) {
	s, err := newTickSpool(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	ticks := []TickResult{
		{Commit: "abcd", Reason: ReasonCommitUnreachable, EvidenceOn: []gitref.Hash{"ef01"}, HintKey: ReasonTickedWithoutEvidence, Reasons: []Reason{}, Line: 3},
		{Commit: "abce", Signers: []trust.Signer{{KeyID: "k"}}, Message: "m"},
	}
	for i := range ticks {
		if err := s.add(&ticks[i]); err != nil {
			t.Fatal(err)
		}
	}
	next, err := s.reader()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range ticks {
		got, err := next()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tick %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
}
