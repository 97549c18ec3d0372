package main

import (
	"strings"
	"testing"
)

// kiroPlan writes a Kiro implementation plan from its task lines.
func kiroPlan(lines ...string) string {
	return "# Implementation Plan\n\n" + strings.Join(lines, "\n") + "\n"
}

const kiroMoveReqs = "# Requirements\n\n### Requirement 1: Accounts\n\n#### Acceptance Criteria\n\n1. WHEN x THEN y\n"

// TestGateKiroParentSubTaskMoved: a sub-task vouches only for the parent
// it was ticked under, and every sub-task a parent had open must still be
// beneath it at its tick (docs/format.md#kiro-parent-tasks). Without a
// trusted key, a branch closes parent task 1 by moving sub-task 2.1,
// ticked and attested under task 2, under it (in the tick commit, in an
// earlier commit, through a merge, or under several parents in turn), or by
// dropping task 1's open sub-task in a commit before its tick: task 1 fails
// ticked_without_evidence each time. Kiro's own flow — sub-tasks ticked and
// attested one by one beneath their parent, the parent ticked with the
// last, over a merge — still credits the parent, in Kiro and cc-sdd specs.
func TestGateKiroParentSubTaskMoved(t *testing.T) {
	const path = ".kiro/specs/feat/tasks.md"
	const reqs = ".kiro/specs/feat/requirements.md"
	leaf := kiroPlan("- [ ] 1. Encrypt stored passwords", "- [ ] 2. Polish the UI", "  - [ ] 2.1 Fix typo in footer", "  - [ ] 2.2 Align buttons")
	// tick21 ticks 2.1 under task 2 and attests it with the trusted key.
	tick21 := func(t *testing.T, r *gateRepo) {
		t.Helper()
		c := r.tick(t, []string{path}, "2.1")
		r.attest(t, c, "--task", "2.1")
	}
	stolen := kiroPlan("- [x] 1. Encrypt stored passwords", "  - [x] 2.1 Fix typo in footer", "- [ ] 2. Polish the UI", "  - [ ] 2.2 Align buttons")
	for _, spec := range []struct {
		name  string
		files map[string]string
	}{
		{"Kiro", map[string]string{reqs: kiroMoveReqs}},
		{"cc-sdd", map[string]string{reqs: kiroMoveReqs, ".kiro/specs/feat/spec.json": "{}\n"}},
	} {
		base := func(plan string) map[string]string {
			fs := map[string]string{path: plan}
			for p, c := range spec.files {
				fs[p] = c
			}
			return fs
		}
		t.Run(spec.name+"/moved under a leaf as it is ticked", func(t *testing.T) {
			r := newGateRepo(t, base(leaf))
			tick21(t, r)
			r.commit(t, "tick 1", map[string]string{path: stolen})
			checkRows(t, r.gate(t, 1), "failure", path+":1 unverifiable/ticked_without_evidence", path+":2.1 evidenced/")
		})
		t.Run(spec.name+"/moved under a leaf by a merged branch", func(t *testing.T) {
			r := newGateRepo(t, base(leaf))
			tick21(t, r)
			r.git(t, "switch", "-q", "-c", "side")
			r.commit(t, "reorder", map[string]string{path: strings.Replace(stolen, "- [x] 1. ", "- [ ] 1. ", 1)})
			r.git(t, "switch", "-q", "feature")
			r.commit(t, "docs", map[string]string{"README.md": "docs\n"})
			r.git(t, "merge", "-q", "--no-edit", "side")
			r.commit(t, "tick 1", map[string]string{path: stolen})
			checkRows(t, r.gate(t, 1), "failure", path+":1 unverifiable/ticked_without_evidence", path+":2.1 evidenced/")
		})
		t.Run(spec.name+"/normal flow", func(t *testing.T) {
			plan := kiroPlan("- [ ] 1. Encrypt stored passwords", "  - [ ] 1.1 Hash on write", "  - [ ] 1.2 Migrate old rows", "- [ ] 2. Polish the UI")
			r := newGateRepo(t, base(plan))
			c := r.tick(t, []string{path}, "1.1")
			r.attest(t, c, "--task", "1.1")
			r.git(t, "switch", "-q", "-c", "side")
			r.commit(t, "docs", map[string]string{"README.md": "docs\n"})
			r.git(t, "switch", "-q", "feature")
			r.git(t, "merge", "-q", "--no-edit", "--no-ff", "side")
			c = r.tick(t, []string{path}, "1.2", "1.")
			r.attest(t, c, "--task", "1.2")
			checkRows(t, r.gate(t, 0), "success", path+":1 evidenced/", path+":1.1 evidenced/", path+":1.2 evidenced/")
		})
	}

	t.Run("one sub-task moved under three parents in turn", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{reqs: kiroMoveReqs, path: kiroPlan(
			"- [ ] 1. Encrypt stored passwords", "- [ ] 2. Polish the UI", "  - [ ] 2.1 Fix typo in footer", "- [ ] 3. Add rate limiting", "- [ ] 4. Audit logging")})
		tick21(t, r)
		r.commit(t, "tick 1", map[string]string{path: kiroPlan(
			"- [x] 1. Encrypt stored passwords", "  - [x] 2.1 Fix typo in footer", "- [ ] 2. Polish the UI", "- [ ] 3. Add rate limiting", "- [ ] 4. Audit logging")})
		r.commit(t, "tick 3", map[string]string{path: kiroPlan(
			"- [x] 1. Encrypt stored passwords", "- [ ] 2. Polish the UI", "- [x] 3. Add rate limiting", "  - [x] 2.1 Fix typo in footer", "- [ ] 4. Audit logging")})
		r.commit(t, "tick 4", map[string]string{path: kiroPlan(
			"- [x] 1. Encrypt stored passwords", "- [ ] 2. Polish the UI", "- [x] 3. Add rate limiting", "- [x] 4. Audit logging", "  - [x] 2.1 Fix typo in footer")})
		checkRows(t, r.gate(t, 1), "failure", path+":1 unverifiable/ticked_without_evidence", path+":2.1 evidenced/",
			path+":3 unverifiable/ticked_without_evidence", path+":4 unverifiable/ticked_without_evidence")
	})

	t.Run("open sub-task deleted before the parent's tick", func(t *testing.T) {
		plan := kiroPlan("- [ ] 1. Build the login flow", "  - [ ] 1.1 Add the form", "  - [ ] 1.2 Check the password against the hash")
		r := newGateRepo(t, map[string]string{reqs: kiroMoveReqs, path: plan})
		c := r.tick(t, []string{path}, "1.1")
		r.attest(t, c, "--task", "1.1")
		r.commit(t, "drop 1.2", map[string]string{path: kiroPlan("- [ ] 1. Build the login flow", "  - [x] 1.1 Add the form")})
		r.tick(t, []string{path}, "1.")
		checkRows(t, r.gate(t, 1), "failure", path+":1 unverifiable/ticked_without_evidence", path+":1.1 evidenced/")
	})

	t.Run("sub-tasks swapped before the parent's tick", func(t *testing.T) {
		r := newGateRepo(t, map[string]string{reqs: kiroMoveReqs, path: kiroPlan(
			"- [ ] 1. Parent one", "  - [ ] 1.1 Sub one of one", "- [ ] 2. Parent two", "  - [ ] 2.1 Sub one of two")})
		tick21(t, r)
		r.commit(t, "swap", map[string]string{path: kiroPlan(
			"- [ ] 1. Parent one", "  - [x] 2.1 Sub one of two", "- [ ] 2. Parent two", "  - [ ] 1.1 Sub one of one")})
		r.tick(t, []string{path}, "1.")
		checkRows(t, r.gate(t, 1), "failure", path+":1 unverifiable/ticked_without_evidence", path+":2.1 evidenced/")
	})
}
