package main

import (
	"strings"
	"testing"
)

// TestGateKiroParentOnlyThroughJudgedSubTasks: a Kiro parent task without a
// statement of its own is credited through its sub-tasks only when each is a
// judged tick — open before, ticked in the range, evidenced — and none it had
// open is dropped as it is ticked (docs/format.md#kiro-parent-tasks). A
// sub-task born ticked in the parent's tick commit, or an open sub-task
// deleted there, leaves the parent ticked_without_evidence; ticking the open
// sub-tasks and attesting them credits the parent.
func TestGateKiroParentOnlyThroughJudgedSubTasks(t *testing.T) {
	const path = ".kiro/specs/feat/tasks.md"
	const req = ".kiro/specs/feat/requirements.md"
	const reqs = "# Requirements\n\n### Requirement 1: Payments\n\n1. WHEN pay THEN charge\n"
	noSubs := "# Tasks\n\n- [ ] 1. Build the whole payment system\n  - _Requirements: 1_\n- [ ] 2. Other\n  - _Requirements: 1_\n"
	subs := "# Tasks\n\n- [ ] 1. Build the payment system\n  - [ ] 1.1 Add a log line\n  - [ ] 1.2 Charge the card and handle refunds\n  - _Requirements: 1_\n- [ ] 2. Other\n  - _Requirements: 1_\n"
	for _, tt := range []struct {
		name, base, ticked string
	}{
		{"sub-task born ticked with the parent", noSubs,
			strings.Replace(strings.Replace(noSubs, "- [ ] 1. ", "- [x] 1. ", 1), "  - _Requirements: 1_\n- [ ] 2.", "  - _Requirements: 1_\n  - [x] 1.1 Add a code comment\n- [ ] 2.", 1)},
		{"open sub-task deleted with the parent's tick", subs,
			strings.Replace(strings.Replace(strings.Replace(subs, "- [ ] 1. ", "- [x] 1. ", 1), "- [ ] 1.1 ", "- [x] 1.1 ", 1), "  - [ ] 1.2 Charge the card and handle refunds\n", "", 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{path: tt.base, req: reqs})
			c := r.commit(t, "tick 1", map[string]string{path: tt.ticked, "src/pay.go": "package pay\n"})
			r.attest(t, c, "--task", "1.1")
			rep := r.gate(t, 1)
			checkRows(t, rep, "failure", path+":1 unverifiable/ticked_without_evidence", path+":1.1 evidenced/")
		})
	}
	// Honest: both open sub-tasks ticked (and attested) with the parent.
	t.Run("every sub-task ticked", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{path: subs, req: reqs})
		done := strings.NewReplacer("- [ ] 1. ", "- [x] 1. ", "- [ ] 1.1 ", "- [x] 1.1 ", "- [ ] 1.2 ", "- [x] 1.2 ").Replace(subs)
		c := r.commit(t, "tick 1", map[string]string{path: done, "src/pay.go": "package pay\n"})
		r.attest(t, c, "--task", "1.1,1.2")
		checkRows(t, r.gate(t, 0), "success", path+":1 evidenced/", path+":1.1 evidenced/", path+":1.2 evidenced/")
	})
}
