package verify

import (
	"fmt"
	"sort"
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

// countWarnings adds each warning of the report's ticks (branch mode) or
// objects to its summary, by code.
func countWarnings(rep *Report) {
	if rep.Mode == "branch" {
		rep.eachTick(func(t *TickResult) {
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

// warningSummary is the summary line's part for warnings: "N warning(s) (n
// code, …)", "" when there are none.
func warningSummary(rep *Report) string {
	counts := map[string]int{}
	n := 0
	add := func(ws []Reason) {
		for _, w := range ws {
			counts[w.Code]++
			n++
		}
	}
	if rep.Mode == "branch" {
		rep.eachTick(func(t *TickResult) { add(t.Warnings) })
	} else {
		for _, o := range rep.Objects {
			add(o.Warnings)
		}
	}
	if n == 0 {
		return ""
	}
	codes := make([]string, 0, len(counts))
	for c := range counts {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for i, c := range codes {
		codes[i] = fmt.Sprintf("%d %s", counts[c], c)
	}
	return fmt.Sprintf("%d warning(s) (%s)", n, strings.Join(codes, ", "))
}

// warningText is one warning as CI formats write it: "code field: expected X,
// found Y — message".
func warningText(w Reason) string {
	var b strings.Builder
	writeReasons(&b, []Reason{w})
	return strings.TrimSpace(b.String())
}

// warningCodes are the codes SARIF describes as rules of level warning.
var warningCodes = map[string]bool{CodePolicySHA256Unverified: true, CodeSpecAbsent: true, CodeVSAMissing: true}

// writeGitHubWarnings writes one `::warning file=…,line=…,title=…::…` per
// warning of each item.
func writeGitHubWarnings(b *strings.Builder, items []ciItem) {
	for _, it := range items {
		for _, w := range it.warnings {
			fmt.Fprintf(b, "::warning %s::%s\n", githubProperties(it, w.Code), escapeData(warningText(w)))
		}
	}
}

// sarifWarnings are the results of level warning: one per warning of each
// item, ruleId the warning's code (index maps rule ids to ruleIndex).
func sarifWarnings(rep *Report, items []ciItem, index map[string]int) []sarifResult {
	var out []sarifResult
	for _, it := range items {
		for _, w := range it.warnings {
			uri := it.path
			if uri == "" {
				uri = rep.NotesRef
			}
			loc, props := sarifPlace(it, uri)
			wi := it
			wi.rule = w.Code
			out = append(out, sarifResult{
				RuleID: w.Code, RuleIndex: index[w.Code], Level: "warning",
				Message:             sarifMessage{it.headline() + ": " + warningText(w)},
				Locations:           []sarifLocation{loc},
				PartialFingerprints: map[string]string{SARIFFingerprintKey: wi.fingerprint()},
				Properties:          props,
			})
		}
	}
	return out
}

// junitWarnings adds warning.N.code and warning.N.message properties (N from
// 1) to a testcase's properties.
func junitWarnings(p *junitProperties, ws []Reason) *junitProperties {
	if len(ws) == 0 {
		return p
	}
	if p == nil {
		p = &junitProperties{}
	}
	for i, w := range ws {
		p.Property = append(p.Property, junitProperty{fmt.Sprintf("warning.%d.code", i+1), w.Code},
			junitProperty{fmt.Sprintf("warning.%d.message", i+1), warningText(w)})
	}
	return p
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
