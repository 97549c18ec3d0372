package verify

import (
	"iter"

	"github.com/taskproof/taskproof/policy"
)

// The writers (package report) read a report through these: its ticks in
// order whether held in memory or spooled (BranchSpooled), and the rules of
// the gate that a report names.

// AllTicks yields rep's ticks in order, TickCount of them: a spooled tick
// read back whole, with what the passes after the judging changed and its
// hint, then those of Ticks. The *TickResult yielded may be reused by the
// next; a non-nil error (reading the spool) ends the sequence.
func (rep *Report) AllTicks() iter.Seq2[*TickResult, error] {
	return func(yield func(*TickResult, error) bool) {
		at, err := rep.tickReader()
		if err != nil {
			yield(nil, err)
			return
		}
		for i := range rep.TickCount() {
			t, err := at(i)
			if !yield(t, err) || err != nil {
				return
			}
		}
	}
}

// TickSummaries yields rep's ticks in order as cheaply as they can be read: a
// spooled tick as its index holds it (status, reason, failing, message,
// policy results, warnings, Via; no reasons or signers), the ticks of Ticks
// whole. For counting; a writer changes nothing of what it is given.
func (rep *Report) TickSummaries() iter.Seq[*TickResult] {
	return func(yield func(*TickResult) bool) {
		more := true
		rep.EachTick(func(t *TickResult) {
			if more {
				more = yield(t)
			}
		})
	}
}

// ObjectFails reports whether the gate fails on o under opts: its outcome is
// not ok (unsigned only without AllowUnsigned), a policy rule fails on it, or
// RequireVerified and its verdict is not verified.
func ObjectFails(o *ObjectResult, opts GateOptions) bool { return objectFails(o, opts) }

// FailingPolicyRules names the failing rules of rs, comma-separated.
func FailingPolicyRules(rs []policy.Result) string { return policyRuleList(rs) }
