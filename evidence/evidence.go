package evidence

import (
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// ErrRequest: the request's evidence is incomplete or contradicts itself or
// the test reports. It is attest.ErrRequest, the error of every request the
// caller must fix (the CLI maps it to exit 2).
var ErrRequest = errors.New("invalid attest request")

// Request is what a tick's evidence is made of: what `taskproof attest tick`
// is given (docs/format.md#statements, docs/format.md#test-reports).
type Request struct {
	// Verdict is verified or regression_only; empty: the verdict follows from
	// Reports (verdictFromEvidence).
	Verdict predicate.Verdict
	// Evidence is the evidence file's bytes (a JSON object, see docs/guide.md "The evidence file"), or nil.
	Evidence []byte
	// Regression is the regression reason object; nil: the evidence's own
	// "regression" member, if any.
	Regression map[string]any
	// Red is the red run, or nil. RedKindSet says Red.Kind was chosen by the
	// caller (checked against the red report), not defaulted.
	Red        *predicate.RedRun
	RedKindSet bool
	// RedOutputName names the file Red's output was read from, for
	// messages ("" when none); RedShows, when set, is that output as
	// [ReadRedOutput] read it (Red is its Run), else Red's Output is read.
	RedOutputName string
	RedShows      *RedOutput
	// Reports are the tick's test reports, one per phase (`--test-report
	// PHASE=FILE`).
	Reports []PhaseReport
	// TestFiles are the test files the task added or changed, judged against
	// the green report; nil: the test files changed since the unit's previous
	// tick; empty: none.
	TestFiles []string
	// Layouts are the unit layouts of the verifier's policy (nil: the
	// built-in layouts alone), for finding the unit's previous tick.
	Layouts *specfmt.Layouts
	// Force writes a Verdict, regression reason or red kind that contradicts
	// the reports, with a warning, instead of refusing it.
	Force bool
}

// Outcome is the tick's evidence as the test reports make it: what
// [FromReports] gives the writer.
type Outcome struct {
	// Evidence is the evidence object, canonical JSON: the request's with the
	// reports' trace rows and collection merged in.
	Evidence []byte
	// Red, Verdict and Regression are the request's, or what the reports
	// give where the request gives none.
	Red        *predicate.RedRun
	Verdict    predicate.Verdict
	Regression map[string]any
	// URLs name each phase's report (the test-result statements' url).
	URLs map[string]string
	// Warnings are what a caller should know (a forced contradiction, a
	// test file the green report does not run, …).
	Warnings []string
	// Why is why the reports give the verdict, when they give one.
	Why *Why
}

// FromReports turns req's test reports into the evidence of commit's ticks
// (docs/format.md#test-reports): trace rows merged into the evidence's,
// collection.files judged from the green report, red from the red report, the
// verdict from the evidence when req.Verdict is empty — or req's verdict,
// regression reason and red kind checked against the reports (a
// *ContradictionError when they contradict them, unless req.Force). ticks are
// the ticks attested; sharing is how many of the commit's ticks share their
// default test files (the ticks of their units, which have one range).
func FromReports(repo *gitref.Repo, commit *gitref.Commit, ticks []tick.Tick, sharing int, req Request) (*Outcome, error) {
	o, err := applyReports(repo, commit, ticks, sharing, req)
	if err != nil {
		return nil, err
	}
	return &Outcome{Evidence: o.evidence, Red: o.red, Verdict: o.verdict, Regression: o.regression, URLs: o.urls, Warnings: o.warnings, Why: o.why}, nil
}

// Object decodes an evidence file (docs/format.md#statements: members
// copied into the predicate as given), strictly as predicate members are: an
// empty file is an empty object; anything but a JSON object is an ErrRequest.
func Object(evidence []byte) (map[string]any, error) {
	if len(evidence) == 0 {
		return map[string]any{}, nil
	}
	v, err := strictjson.Decode(evidence, predicate.KnownKeys())
	if err != nil {
		return nil, fmt.Errorf("evidence: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: evidence is not a JSON object", ErrRequest)
	}
	return m, nil
}
