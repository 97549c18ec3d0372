package attest

import (
	"fmt"

	"github.com/taskproof/taskproof/evidence"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// judgePolicyURI is the VSA's policy.uri (docs/format.md#statements).
const judgePolicyURI = "https://speccoder.dev/policy/judge-config/v0"

// testPhase is one test phase that ran for a tick (e.g. "red", "green"), as
// recorded in the evidence's trace rows: the tests that passed, failed and
// were skipped (Warned). URL names the phase's test report ("" without one).
type testPhase struct {
	Name   string
	Passed []string
	Failed []string
	Warned []string
	URL    string
}

type result int

const (
	resultFailed result = iota
	resultPassed
	resultWarned
)

// phaseResult reads a trace row's result as the test reports' trace rows are
// read ([evidence.ResultClass]): passed, warned (skipped) or failed.
func phaseResult(res string) result {
	switch evidence.ResultClass(res) {
	case "pass":
		return resultPassed
	case "skip":
		return resultWarned
	}
	return resultFailed
}

// phasesFromTrace reads the test phases of an evidence trace [ours]: trace is an
// array of row objects; a row with string members "phase" and "test" counts the
// test in that phase, as passed when its "result" is "pass", "passed" or "ok",
// as skipped (warned) when it is "skip" or "skipped" (case-insensitive), and as
// failed otherwise. Phases come in the order of their
// first row; rows without a phase or test are not test rows and are skipped. A
// trace that is absent, null or not an array yields no phases.
func phasesFromTrace(trace any) []testPhase {
	rows, ok := trace.([]any)
	if !ok {
		return nil
	}
	var phases []testPhase
	index := map[string]int{}
	for _, r := range rows {
		row, ok := r.(map[string]any)
		if !ok {
			continue
		}
		phase, _ := row["phase"].(string)
		test, _ := row["test"].(string)
		if phase == "" || test == "" {
			continue
		}
		i, seen := index[phase]
		if !seen {
			i = len(phases)
			index[phase] = i
			phases = append(phases, testPhase{Name: phase})
		}
		res, _ := row["result"].(string)
		switch phaseResult(res) {
		case resultPassed:
			phases[i].Passed = append(phases[i].Passed, test)
		case resultWarned:
			phases[i].Warned = append(phases[i].Warned, test)
		default:
			phases[i].Failed = append(phases[i].Failed, test)
		}
	}
	return phases
}

// testResultPredicate is the test-result v0.1 predicate of one phase [ours]:
// result FAILED when a test failed, else WARNED when one was skipped, else
// PASSED; configuration names the judge's configuration by its policy_sha256;
// passedTests, failedTests and warnedTests list the tests; url is the phase's
// report as given to `attest tick --test-report` (phase.URL), else
// "phase:<name>" so the phase is recorded (docs/format.md#test-reports).
func testResultPredicate(phase testPhase, policySHA256 string) map[string]any {
	result := "PASSED"
	switch {
	case len(phase.Failed) > 0:
		result = "FAILED"
	case len(phase.Warned) > 0:
		result = "WARNED"
	}
	url := phase.URL
	if url == "" {
		url = "phase:" + phase.Name
	}
	strs := func(s []string) []any {
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = v
		}
		return out
	}
	return map[string]any{
		"result": result,
		"configuration": []any{map[string]any{
			"name":   "judge-config",
			"uri":    judgePolicyURI,
			"digest": map[string]any{"sha256": policySHA256},
		}},
		"url":         url,
		"passedTests": strs(phase.Passed),
		"failedTests": strs(phase.Failed),
		"warnedTests": strs(phase.Warned),
	}
}

// VSAPredicate is the verification summary of a tick (docs/format.md#statements "VSA fields"),
// naming every other statement of the tick by predicateType, where it is
// ([InputAttestationURI]) and the SHA-256 of its canonical payload. verdict decides verifiedLevels: TASK_VERIFIED for verified,
// TASK_REGRESSION_ONLY for regression_only; other verdicts get no VSA (docs/format.md#statements:
// decisions write the task-verification statement alone).
func VSAPredicate(commit string, verdict predicate.Verdict, policySHA256, timeVerified string, others [][]byte, otherTypes []string) (map[string]any, error) {
	var level string
	switch verdict {
	case predicate.Verified:
		level = "TASK_VERIFIED"
	case predicate.RegressionOnly:
		level = "TASK_REGRESSION_ONLY"
	default:
		return nil, fmt.Errorf("vsa: verdict %q has no verification summary", verdict)
	}
	if len(others) != len(otherTypes) {
		return nil, fmt.Errorf("vsa: %d statements but %d types", len(others), len(otherTypes))
	}
	inputs := make([]any, len(others))
	for i, b := range others {
		sum := statement.SHA256Hex(b)
		inputs[i] = map[string]any{
			"name":   otherTypes[i],
			"uri":    InputAttestationURI(commit, sum),
			"digest": map[string]any{"sha256": sum},
		}
	}
	return map[string]any{
		"verifier": map[string]any{
			"id":      statement.VerifierID,
			"version": map[string]any{"taskproof": Version},
		},
		"timeVerified":       timeVerified,
		"resourceUri":        "git:" + commit,
		"policy":             map[string]any{"uri": judgePolicyURI, "digest": map[string]any{"sha256": policySHA256}},
		"inputAttestations":  inputs,
		"verificationResult": "PASSED",
		"verifiedLevels":     []any{level},
	}, nil
}

// InputAttestationURI is the uri of a VSA's input attestation
// (docs/format.md#statements): the note of commit, and in it the line whose
// payload has SHA-256 payloadSHA256. A line number would not stay true: attesting
// another task of the commit, or merging two clones' notes, moves the lines.
func InputAttestationURI(commit, payloadSHA256 string) string {
	return "git-note:" + commit + "#sha256=" + payloadSHA256
}

// TickStatements returns, in the order of docs/format.md#statements, the
// canonical Statements one tick or decision writes for subject: for verified
// and regression_only, one test-result statement per phase of the predicate's
// trace, the task-verification statement, then the VSA naming the others; for
// attested and skipped, the task-verification statement alone.
func TickStatements(subject statement.Subject, p *predicate.Predicate) ([][]byte, error) {
	return tickStatementsWithReports(subject, p, nil)
}

// tickStatementsWithReports is [TickStatements] with each phase's test-result
// url naming its test report: urls maps a phase name to the report's name (a
// phase without one: "phase:<name>").
func tickStatementsWithReports(subject statement.Subject, p *predicate.Predicate, urls map[string]string) ([][]byte, error) {
	tv, err := statement.Encode(subject, predicate.PredicateType, p)
	if err != nil {
		return nil, err
	}
	if p.Verdict != predicate.Verified && p.Verdict != predicate.RegressionOnly {
		return [][]byte{tv}, nil
	}
	var out [][]byte
	var types []string
	trace, _ := p.Trace.Get()
	for _, ph := range phasesFromTrace(trace) {
		ph.URL = urls[ph.Name]
		b, err := statement.Encode(subject, statement.TestResultType, testResultPredicate(ph, p.PolicySHA256))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
		types = append(types, statement.TestResultType)
	}
	out = append(out, tv)
	types = append(types, predicate.PredicateType)
	vsa, err := VSAPredicate(subject.GitCommit, p.Verdict, p.PolicySHA256, p.Time, out, types)
	if err != nil {
		return nil, err
	}
	vb, err := statement.Encode(subject, statement.VSAType, vsa)
	if err != nil {
		return nil, err
	}
	return append(out, vb), nil
}
