package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/verify"
)

// warningSummary is the summary line's part for warnings: "N warning(s) (n
// code, …)", "" when there are none.
func warningSummary(rep *verify.Report) string {
	counts := map[string]int{}
	n := 0
	add := func(ws []verify.Reason) {
		for _, w := range ws {
			counts[w.Code]++
			n++
		}
	}
	if rep.Mode == "branch" {
		for t := range rep.TickSummaries() {
			add(t.Warnings)
		}
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
func warningText(w verify.Reason) string {
	var b strings.Builder
	writeReasons(&b, []verify.Reason{w})
	return strings.TrimSpace(b.String())
}

// warningCodes are the codes SARIF describes as rules of level warning.
var warningCodes = map[string]bool{verify.CodePolicySHA256Unverified: true, verify.CodeSpecAbsent: true, verify.CodeVSAMissing: true}

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
func sarifWarnings(rep *verify.Report, items []ciItem, index map[string]int) []sarifResult {
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
func junitWarnings(p *junitProperties, ws []verify.Reason) *junitProperties {
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
