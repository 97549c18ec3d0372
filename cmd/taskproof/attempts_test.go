package main

import (
	"strings"
	"testing"
)

// TestAttemptsCarryNoEvidence: a commit only speccoder's attempt refs
// (refs/speccoder/attempts/*) hold carries no evidence, whatever its note
// says and even with the tick commit's tree: the gate neither credits nor
// names it, `attest carry` refuses it, and `audit --all` does not list its
// statements (docs/format.md#reading-what-other-writers-write).
func TestAttemptsCarryNoEvidence(t *testing.T) {
	const path = "specs/001-x/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	c := r.tick(t, []string{path}, "T001")
	// speccoder's attempt at the task: the same tree, attested.
	attempt := r.git(t, "commit-tree", r.git(t, "rev-parse", c+"^{tree}"), "-p", "main", "-m", "attempt at T001")
	r.git(t, "update-ref", "refs/speccoder/attempts/001-x/T001", attempt)
	r.attest(t, attempt)

	rep := r.gate(t, 1)
	checkRows(t, rep, "failure", path+":T001 unverifiable/ticked_without_evidence")
	for _, tk := range rep.Ticks {
		if tk.Evidence == attempt {
			t.Errorf("the gate names the attempt %s as the tick's evidence", attempt)
		}
	}
	_, stderr := r.run(t, 2, "attest", "carry", attempt, c, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "attempt") {
		t.Errorf("carry from an attempt: %s", stderr)
	}
	out, _ := r.run(t, 0, "audit", "--all", "--format", "json")
	if strings.Contains(out, attempt) {
		t.Errorf("audit --all lists the attempt's statements:\n%s", out)
	}
	// The same commit under a branch is an ordinary commit: its statement is
	// named (a rewrite to carry from).
	r.git(t, "branch", "kept", attempt)
	rep = r.gate(t, 1)
	checkRows(t, rep, "failure", path+":T001 unverifiable/commit_unreachable")
}
