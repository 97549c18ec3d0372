package verify

import (
	"strings"

	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// Warning codes: what a check reports without failing (docs/format.md).
const (
	// CodePolicySHA256Unverified: another writer's policy_sha256 differs from
	// the recomputed value, which cannot decide it
	// (docs/format.md#policy_sha256-of-other-writers).
	CodePolicySHA256Unverified = "policy_sha256_unverified"
	// CodeSpecAbsent: an attested or skipped decision without a spec member on
	// a task that cites a section (docs/format.md#decisions-without-spec).
	CodeSpecAbsent = "spec_absent"
)

// writtenByTaskproof reports whether the task-verification statement tv was
// written by taskproof: a VSA of its tick names verifier.id
// https://github.com/taskproof/taskproof and lists tv's payload among its
// inputAttestations. Only then can taskproof recompute policy_sha256 as its
// writer did (docs/format.md#policy_sha256-of-other-writers).
func writtenByTaskproof(tv *entry, group []*entry) bool {
	want := statement.SHA256Hex(tv.env.Payload)
	for _, e := range group {
		if e.statement.PredicateType != statement.VSAType {
			continue
		}
		pred, _ := e.statement.Predicate.(map[string]any)
		verifier, _ := pred["verifier"].(map[string]any)
		if id, _ := verifier["id"].(string); id != statement.VerifierID {
			continue
		}
		inputs, _ := pred["inputAttestations"].([]any)
		for _, in := range inputs {
			m, _ := in.(map[string]any)
			d, _ := m["digest"].(map[string]any)
			if h, _ := d["sha256"].(string); h == want {
				return true
			}
		}
	}
	return false
}

// CountWarnings adds each warning of the report's ticks (branch mode) or
// objects to its summary, by code.
func CountWarnings(rep *Report) {
	if rep.Mode == "branch" {
		rep.EachTick(func(t *TickResult) {
			for _, w := range t.Warnings {
				rep.Summary[w.Code]++
			}
		})
		return
	}
	for _, o := range rep.Objects {
		for _, w := range o.Warnings {
			rep.Summary[w.Code]++
		}
	}
}

// decisionWithoutSpec reports whether p is an attested or skipped decision
// whose predicate has no spec member at all (null is not absent): spec belongs
// to ticks, so such a decision is not stale (docs/format.md#decisions-without-spec).
func decisionWithoutSpec(p *predicate.Predicate) bool {
	return (p.Verdict == predicate.Attested || p.Verdict == predicate.Skipped) && !p.Spec.Set
}

// BugTaskPrefix starts the task ID of a bug task: speccoder attests a bug fix
// under the subject <unit>/bug:<slug>, which names no line of a tasks file
// (docs/format.md#bug-tasks).
const BugTaskPrefix = "bug:"

// isBugTask reports whether p is about a bug task: its task ID is
// "bug:<slug>" with a non-empty slug.
func isBugTask(p *predicate.Predicate) bool {
	slug, ok := strings.CutPrefix(p.Task.ID, BugTaskPrefix)
	return ok && slug != ""
}
