package evidence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/testreport"
	"github.com/taskproof/taskproof/tick"
)

// The test phases a report can be given for (`attest tick --test-report
// PHASE=FILE`), as trace rows name them.
const (
	PhaseRed   = "red"
	PhaseGreen = "green"
)

// PhaseReport is one phase's test report: Phase is red or green, Name the file
// as the user named it (the test-result statement's url; see [ReportName]),
// Report what it says.
type PhaseReport struct {
	Phase  string
	Name   string
	Report *testreport.Report
}

// ReportName is the name a test report file path is signed under (a
// test-result statement's url, docs/format.md#test-reports): the path as
// given, '/'-separated and cleaned; an absolute path is made relative to the
// working directory when under it, else reduced to its base name, so that no
// local path is signed.
func ReportName(path string) string {
	if filepath.IsAbs(path) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.Base(path)
	}
	return filepath.ToSlash(filepath.Clean(path))
}

// reportFacts is what a tick's test reports show (docs/format.md#test-reports):
// whether the green run failed and how many of its tests ran, the judged
// test files and their collection, how many of their tests passed green
// (the tick's own tests), and the red run classified on those.
type reportFacts struct {
	HasRed   bool
	RedClass predicate.RedClass
	// Red is the red report's classification on the tick's own tests (what
	// decided RedClass) and RedName its name; GreenName the green report's.
	Red                testreport.Classification
	RedName, GreenName string
	HasGreen           bool
	GreenRan           int  // green cases that ran
	GreenFail          bool // a green case or package failed
	Collection         []predicate.FileCollection
	// Judged is how many test files the tick judges, FilesGiven whether
	// --test-files named them; Own how many of their tests passed green
	// (the tick's own tests), Files each judged file's own tests and red run.
	Judged     int
	FilesGiven bool
	Own        int
	Files      []fileFacts
	// Ticks is how many ticks share the judged files (the commit's ticks of
	// the unit, or the tasks one run attests with --test-files).
	Ticks int
	// GreenJestNoFile: the green report is jest-junit's without file
	// attributes (its default); RedJest: the red report is jest-junit's.
	GreenJestNoFile, RedJest bool
}

// fileFacts are one judged file's own tests (those that passed green) and
// the red run classified on them.
type fileFacts struct {
	Path string
	Own  int
	Red  testreport.Classification
}

// judgedTests are the test files a tick judges and what the reports make
// of them, for [facts].
type judgedTests struct {
	paths  []string
	files  *testreport.Files
	given  bool // named by --test-files
	ticks  int  // how many ticks share them
	change *testreport.Change
}

// facts summarises reports, the collection judged from the green one and
// the red run classified on the tick's own tests (the judged files' tests
// that passed green) against the tick's change (nil: by its messages alone).
func facts(reports []PhaseReport, collection []predicate.FileCollection, jt judgedTests) reportFacts {
	f := reportFacts{Collection: collection, Judged: len(jt.paths), FilesGiven: jt.given, Ticks: jt.ticks}
	var red, green *testreport.Report
	for _, r := range reports {
		switch r.Phase {
		case PhaseRed:
			f.HasRed, f.RedName, red = true, r.Name, r.Report
			f.RedJest = r.Report.JestJUnit()
		case PhaseGreen:
			f.HasGreen, f.GreenName, green = true, r.Name, r.Report
			f.GreenFail = len(r.Report.Failed()) > 0 || len(r.Report.Packages) > 0
			for _, c := range r.Report.Cases {
				if c.Ran() {
					f.GreenRan++
				}
			}
			f.GreenJestNoFile = r.Report.JestJUnit() && !r.Report.HasFiles()
		}
	}
	files := jt.files
	if files == nil {
		files = testreport.NewFiles(jt.paths, nil)
	}
	own := files.OwnTests(green)
	f.Own = own.Len()
	if red != nil {
		f.Red = red.ClassifyOwn(jt.change, own)
		f.RedClass = f.Red.Class
	}
	for _, p := range jt.paths {
		ff := fileFacts{Path: p, Own: own.Tests(p)}
		if red != nil && ff.Own > 0 {
			ff.Red = red.ClassifyOwn(jt.change, own, p)
		}
		f.Files = append(f.Files, ff)
	}
	return f
}

// judgement is the verdict the reports give and why
// (docs/format.md#verdict-from-evidence): the regression reason of a
// regression_only one, the red run's classification that decided it, the
// judged file that decided it when one of several did, and which of the
// reasons for tests_not_collected applies.
type judgement struct {
	verdict predicate.Verdict
	reason  map[string]any
	red     testreport.Classification
	file    string
	missing missingTests
}

// missingTests is why a tick's tests were not collected.
type missingTests int

const (
	testsCollected    missingTests = iota
	greenRanNothing                // the green run ran no test
	noTestFiles                    // the tick judges no test file
	filesNotCollected              // no test of the judged files passed green
)

// verdictFromEvidence is the verdict the reports' facts give, with the
// regression reason of a regression_only one (docs/format.md#verdict-from-evidence):
//   - no green report, or a green run that failed: an error (ErrRequest) —
//     nothing supports a tick;
//   - the green run ran no test, the tick judges no test file, or none of
//     the judged files' tests passed green: regression_only
//     tests_not_collected — the tick has no tests of its own;
//   - no red report: an error (ErrRequest) — a red run is what shows the tests
//     check the task;
//   - the tick's own tests passed red: regression_only already_passing
//     (implemented_by null: the reports cannot say which tick made them pass);
//   - they failed red on an assertion or a missing symbol: verified, when
//     each judged file with own tests failed red on its own (a file whose
//     tests passed red, or did not run red, is the reason: already_passing,
//     not_red);
//   - otherwise: regression_only not_red with the run's red_class.
func verdictFromEvidence(f reportFacts) (judgement, error) {
	notCollected := func(m missingTests, file string) (judgement, error) {
		return judgement{verdict: predicate.RegressionOnly, reason: map[string]any{"reason": string(predicate.ReasonTestsNotCollected)}, missing: m, file: file}, nil
	}
	switch {
	case !f.HasGreen:
		return judgement{}, fmt.Errorf("%w: the verdict follows from the reports only with a green test report; or give a verdict", ErrRequest)
	case f.GreenFail:
		return judgement{}, fmt.Errorf("%w: the green report shows failing tests: a tick needs its tests to pass", ErrRequest)
	case f.GreenRan == 0:
		return notCollected(greenRanNothing, "")
	case f.Judged == 0:
		return notCollected(noTestFiles, "")
	case f.Own == 0:
		return notCollected(filesNotCollected, "")
	case !f.HasRed:
		return judgement{}, fmt.Errorf("%w: the verdict follows from the reports only with a red test report (the tests run before the change); or give a verdict", ErrRequest)
	}
	j := redJudgement(f.Red)
	if j.verdict != predicate.Verified {
		return j, nil
	}
	for _, ff := range f.Files {
		if ff.Own == 0 {
			// Not collected: a warning (a helper without tests of its own).
			continue
		}
		if fj := redJudgement(ff.Red); fj.verdict != predicate.Verified {
			fj.file = ff.Path
			return fj, nil
		}
	}
	return j, nil
}

// redJudgement is the verdict a red run's classification on the tick's own
// tests gives.
func redJudgement(red testreport.Classification) judgement {
	switch red.Class {
	case predicate.ClassPassed:
		return judgement{verdict: predicate.RegressionOnly, red: red, reason: map[string]any{"reason": string(predicate.ReasonAlreadyPassing), "implemented_by": nil}}
	case predicate.ClassAssertion, predicate.ClassAbsent:
		return judgement{verdict: predicate.Verified, red: red}
	}
	return judgement{verdict: predicate.RegressionOnly, red: red, reason: map[string]any{"reason": string(predicate.ReasonNotRed), "red_class": string(red.Class)}}
}

// citeStory and citeScenario find a user story ("US2") and an acceptance
// scenario number ("scenario 3", "Scenario_3") in a test's name.
var (
	citeStory    = regexp.MustCompile(`(?:^|[^A-Z])(US\d+)(?:$|[^0-9])`)
	citeScenario = regexp.MustCompile(`(?i)scenario[ _-]?(\d+)`)
)

// traceRows are the trace rows of reports [ours]: for each case of each report,
// {test, phase, result (pass, fail or skip), file?, requirement?, scenario?};
// file is the judged test file the case is from (or the report's file
// attribute); requirement and scenario come from a row of the evidence's own
// trace for the same test, else from the test's name. A Go package of the red
// run that did not build gives a failing red row for each green test of the
// package (it could not run); a cargo red run that did not compile, one for
// each green test. Rows the evidence already has for a test and
// phase are kept and not repeated; one whose result contradicts the report is
// an error.
func traceRows(existing []any, reports []PhaseReport, files *testreport.Files) ([]any, error) {
	tb := newTraceBuilder(existing, files)
	var green *testreport.Report
	for _, r := range reports {
		if r.Phase == PhaseGreen {
			green = r.Report
		}
	}
	for _, r := range reports {
		for _, c := range r.Report.Cases {
			res := "pass"
			switch c.Status {
			case testreport.StatusFailed, testreport.StatusError:
				res = "fail"
			case testreport.StatusSkipped:
				res = "skip"
			}
			if err := tb.add(r.Phase, c, res); err != nil {
				return nil, err
			}
		}
		if r.Phase != PhaseRed || green == nil {
			continue
		}
		for _, p := range r.Report.Packages {
			if !p.Build {
				continue
			}
			for _, c := range green.Cases {
				// cargo test stops at the first crate that does not
				// compile: none of the green run's tests ran red.
				if (r.Report.Format == testreport.FormatGoJSON && c.Class == p.Package) || r.Report.Format == testreport.FormatCargo {
					if err := tb.add(PhaseRed, c, "fail"); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return tb.out, nil
}

// traceKey is a trace row's test and phase.
type traceKey struct{ test, phase string }

// traceBuilder appends report rows to an evidence's trace rows.
type traceBuilder struct {
	files *testreport.Files
	// have is the result class of each (test, phase) row so far.
	have map[traceKey]string
	// cites are the requirement and scenario the evidence's own rows give a test.
	cites map[string]map[string]any
	out   []any
}

// newTraceBuilder starts from the evidence's trace rows existing, noting each
// row's result and each test's first requirement and scenario.
func newTraceBuilder(existing []any, files *testreport.Files) *traceBuilder {
	tb := &traceBuilder{files: files, have: map[traceKey]string{}, cites: map[string]map[string]any{}, out: append([]any{}, existing...)}
	for _, r := range existing {
		row, ok := r.(map[string]any)
		if !ok {
			continue
		}
		test, _ := row["test"].(string)
		phase, _ := row["phase"].(string)
		if test == "" {
			continue
		}
		if phase != "" {
			res, _ := row["result"].(string)
			tb.have[traceKey{test, phase}] = ResultClass(res)
		}
		if _, ok := tb.cites[test]; !ok {
			c := map[string]any{}
			for _, k := range []string{"requirement", "scenario"} {
				if v, ok := row[k]; ok {
					c[k] = v
				}
			}
			if len(c) > 0 {
				tb.cites[test] = c
			}
		}
	}
	return tb
}

// add appends case c's row for phase with result, unless a row for its test
// and phase is there already (an error when its result differs).
func (tb *traceBuilder) add(phase string, c testreport.Case, result string) error {
	id := c.ID()
	if old, ok := tb.have[traceKey{id, phase}]; ok {
		if old != result {
			return fmt.Errorf("%w: the evidence's trace says %s %s %s, the %s report says %s", ErrRequest, id, phase, old, phase, result)
		}
		return nil
	}
	tb.have[traceKey{id, phase}] = result
	row := map[string]any{"test": id, "phase": phase, "result": result}
	file := c.File
	if tb.files != nil {
		if f := tb.files.Of(c); f != "" {
			file = f
		}
	}
	if file != "" {
		row["file"] = file
	}
	if cite, ok := tb.cites[id]; ok {
		for k, v := range cite {
			row[k] = v
		}
	} else {
		if m := citeStory.FindStringSubmatch(c.Name); m != nil {
			row["requirement"] = m[1]
		}
		if m := citeScenario.FindStringSubmatch(c.Name); m != nil {
			n, _ := strconv.Atoi(m[1])
			row["scenario"] = n
		}
	}
	tb.out = append(tb.out, row)
	return nil
}

// ResultClass reads a trace row's result (case-insensitive): pass, passed or
// ok is "pass"; skip or skipped is "skip"; anything else "fail". The
// test-result statements read the trace by it too.
func ResultClass(res string) string {
	switch strings.ToLower(res) {
	case "pass", "passed", "ok":
		return "pass"
	case "skip", "skipped":
		return "skip"
	}
	return "fail"
}

// reportOutcome is what [applyReports] gives [FromReports].
type reportOutcome struct {
	evidence   []byte
	red        *predicate.RedRun
	verdict    predicate.Verdict
	regression map[string]any
	urls       map[string]string
	warnings   []string
	why        *Why
	// judged is the reports' judgement, when they give one.
	judged *judgement
}

// Why is why the test reports give a tick's verdict
// (docs/format.md#verdict-from-evidence): the verdict, the regression reason
// and red class of a regression_only one, the report and its line that
// decided it with that line's failure text, and Text, all of it in one line
// ("not_red (build_error: red.json:12: ./t.go:5:2: cannot use …)").
type Why struct {
	Verdict  predicate.Verdict `json:"verdict"`
	Reason   string            `json:"reason,omitempty"`
	RedClass string            `json:"red_class,omitempty"`
	Report   string            `json:"report,omitempty"`
	Line     int               `json:"line,omitempty"`
	Detail   string            `json:"detail,omitempty"`
	Text     string            `json:"text"`
}

// at is where the deciding failure is: "red.json:12: ./t.go:5:2: cannot use …".
func (w *Why) at() string {
	where := w.Report
	if w.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, w.Line)
	}
	if w.Detail != "" {
		where += ": " + w.Detail
	}
	return where
}

// whyOf says why the reports' facts give judgement j.
func whyOf(f reportFacts, j judgement) *Why {
	w := &Why{Verdict: j.verdict}
	if j.reason != nil {
		w.Reason, _ = j.reason["reason"].(string)
	}
	// of names whose tests: the tick's own, or one judged file's.
	of, shared := "the tick's own tests", ""
	if j.file != "" {
		of = j.file + "'s tests"
		shared = "; each test file the tick judges must fail red: name the task's own with --test-files"
		if f.Ticks > 1 {
			shared += fmt.Sprintf(" (the commit ticks %d tasks: attest each with --task)", f.Ticks)
		}
	}
	switch {
	case j.verdict == predicate.Verified:
		w.RedClass, w.Report, w.Line, w.Detail = string(j.red.Class), f.RedName, j.red.Line, j.red.Detail
		w.Text = fmt.Sprintf("red %s (%s)", j.red.Class, w.at())
	case w.Reason == string(predicate.ReasonNotRed):
		w.RedClass, w.Report, w.Line, w.Detail = string(j.red.Class), f.RedName, j.red.Line, j.red.Detail
		switch {
		case j.red.Class == predicate.ClassNoTests:
			w.Text = fmt.Sprintf("%s (%s: the red report %s ran none of %s%s%s)", w.Reason, j.red.Class, f.RedName, of, jestSuiteHint(f), shared)
		case w.Detail == "" && w.Line == 0:
			w.Text = fmt.Sprintf("%s (%s: %s in the red report %s%s)", w.Reason, j.red.Class, of, f.RedName, shared)
		case j.file != "":
			w.Text = fmt.Sprintf("%s (%s: %s: %s%s)", w.Reason, j.red.Class, j.file, w.at(), shared)
		default:
			w.Text = fmt.Sprintf("%s (%s: %s)", w.Reason, j.red.Class, w.at())
		}
	case w.Reason == string(predicate.ReasonAlreadyPassing):
		w.Report = f.RedName
		w.Text = fmt.Sprintf("%s (%s passed in the red report %s%s)", w.Reason, of, f.RedName, shared)
	case w.Reason == string(predicate.ReasonTestsNotCollected):
		w.Report = f.GreenName
		switch j.missing {
		case greenRanNothing:
			w.Text = fmt.Sprintf("%s (the green report %s ran no test)", w.Reason, f.GreenName)
		case noTestFiles:
			w.Report = ""
			if f.FilesGiven {
				w.Text = fmt.Sprintf("%s (no test file is judged, --test-files none: the tick has no tests of its own)", w.Reason)
			} else {
				w.Text = fmt.Sprintf("%s (the tick changed no test file since the unit's previous tick: name the task's test files with --test-files)", w.Reason)
			}
		default:
			var paths []string
			for i, c := range f.Collection {
				if i == 3 {
					paths = append(paths, fmt.Sprintf("%d more", len(f.Collection)-i))
					break
				}
				paths = append(paths, c.Path)
			}
			w.Text = fmt.Sprintf("%s (the green report %s runs no test from %s%s)", w.Reason, f.GreenName, strings.Join(paths, ", "), jestFileHint(f))
		}
	default:
		w.Text = w.Reason
	}
	return w
}

// jestFileHint is what to do when a green report of jest-junit's default
// naming names no judged file.
func jestFileHint(f reportFacts) string {
	if !f.GreenJestNoFile {
		return ""
	}
	return "; " + testreport.JestJUnitFileHint
}

// jestSuiteHint is what to do when a red report of jest-junit ran none of the
// tick's tests: a suite that failed to run is left out by default.
func jestSuiteHint(f reportFacts) string {
	if !f.RedJest {
		return ""
	}
	return "; " + testreport.JestJUnitSuiteHint
}

// applyReports turns req's test reports into the tick's evidence
// (docs/format.md#test-reports): trace rows merged into the evidence's,
// collection.files judged from the green report, red from the red report, the
// verdict from the evidence when req.Verdict is empty — or req's verdict,
// regression reason and red kind checked against the reports (refused when
// they contradict them, unless req.Force).
func applyReports(repo *gitref.Repo, commit *gitref.Commit, ticks []tick.Tick, sharing int, req Request) (*reportOutcome, error) {
	out := &reportOutcome{verdict: req.Verdict, regression: req.Regression, red: req.Red, urls: map[string]string{}}
	red, green, err := out.phases(req.Reports)
	if err != nil {
		return nil, err
	}
	obj, err := Object(req.Evidence)
	if err != nil {
		return nil, err
	}
	base, err := tickBase(repo, commit, ticks, req.Layouts)
	if err != nil {
		return nil, err
	}
	jt := judgedTests{paths: req.TestFiles, given: req.TestFiles != nil, ticks: sharing}
	if !jt.given {
		if jt.paths, err = changedTestFiles(repo, base, commit.ID); err != nil {
			return nil, err
		}
	} else {
		// Files named with --test-files are the chosen ticks'.
		jt.ticks = len(ticks)
	}
	collection, judged, err := out.collect(repo, commit, jt.paths, green, obj)
	if err != nil {
		return nil, err
	}
	jt.files = judged
	if err := mergeTrace(obj, req.Reports, judged); err != nil {
		return nil, err
	}
	if red != nil {
		if jt.change, err = tickChange(repo, base, commit); err != nil {
			return nil, err
		}
	}
	facts := facts(req.Reports, collection, jt)
	if err := out.reconcileVerdict(req, facts, green, obj); err != nil {
		return nil, err
	}
	if red != nil {
		if err := out.reconcileRed(req, facts, red, judged, green); err != nil {
			return nil, err
		}
	}
	if out.evidence, err = strictjson.Canonical(obj); err != nil {
		return nil, err
	}
	return out, nil
}

// phases checks each report's phase (red or green, one each at most), records
// its name as the phase's url and returns the red and green reports (nil when
// not given).
func (out *reportOutcome) phases(reports []PhaseReport) (red, green *PhaseReport, err error) {
	for i := range reports {
		r := &reports[i]
		switch r.Phase {
		case PhaseRed, PhaseGreen:
		default:
			return nil, nil, fmt.Errorf("%w: test report phase %q: want red or green", ErrRequest, r.Phase)
		}
		if _, dup := out.urls[r.Phase]; dup {
			return nil, nil, fmt.Errorf("%w: two %s test reports (%s and %s); give one per phase", ErrRequest, r.Phase, out.urls[r.Phase], r.Name)
		}
		out.urls[r.Phase] = r.Name
		if r.Phase == PhaseRed {
			red = r
		} else {
			green = r
		}
	}
	return red, green, nil
}

// collect judges the test files against the green report into obj's
// collection.files, and returns the collection and the judged files.
func (out *reportOutcome) collect(repo *gitref.Repo, commit *gitref.Commit, files []string, green *PhaseReport, obj map[string]any) ([]predicate.FileCollection, *testreport.Files, error) {
	fsys, err := repo.FS(commit.ID)
	if err != nil {
		return nil, nil, err
	}
	judged := testreport.NewFiles(files, fsys)
	var collection []predicate.FileCollection
	if green != nil && len(files) > 0 {
		if old, ok := obj["collection"]; ok && old != nil {
			return nil, nil, fmt.Errorf("%w: the evidence file has a collection and the green test report gives one; give one (or take no test files from the reports)", ErrRequest)
		}
		collection = judged.Collect(green.Report)
		var fv []any
		for _, f := range collection {
			if f.State == predicate.StateNotCollected {
				hint := ""
				if green.Report.JestJUnit() && !green.Report.HasFiles() {
					hint = "; " + testreport.JestJUnitFileHint
				}
				out.warnings = append(out.warnings, fmt.Sprintf("%s: the green report %s runs no test from this changed test file (not_collected)%s", f.Path, green.Name, hint))
			}
			d, _ := f.DecidedBy.Get()
			ids := make([]any, len(f.TestIDs))
			for i, id := range f.TestIDs {
				ids[i] = id
			}
			fv = append(fv, map[string]any{"path": f.Path, "state": string(f.State), "decided_by": string(d), "tests": f.Tests, "test_ids": ids})
		}
		obj["collection"] = map[string]any{"files": fv}
	}
	return collection, judged, nil
}

// mergeTrace appends the reports' trace rows to obj's trace.
func mergeTrace(obj map[string]any, reports []PhaseReport, judged *testreport.Files) error {
	var existing []any
	switch t := obj["trace"].(type) {
	case nil:
	case []any:
		existing = t
	default:
		return fmt.Errorf("%w: the evidence's trace is not an array, so the test reports' rows cannot join it", ErrRequest)
	}
	rows, err := traceRows(existing, reports, judged)
	if err != nil {
		return err
	}
	obj["trace"] = rows
	return nil
}

// contradiction is the error for what contradicts the reports, or, forced, a
// warning and no error.
func (out *reportOutcome) contradiction(force bool, what string) error {
	if force {
		out.warnings = append(out.warnings, what+" (written anyway: forced)")
		return nil
	}
	return &ContradictionError{What: what}
}

// reconcileVerdict sets the verdict and regression reason from the reports'
// facts when req gives none, else checks req's against them.
func (out *reportOutcome) reconcileVerdict(req Request, facts reportFacts, green *PhaseReport, obj map[string]any) error {
	j, derr := verdictFromEvidence(facts)
	derived, reason := j.verdict, j.reason
	var why *Why
	decided := ""
	if derr == nil {
		out.judged = &j
		why = whyOf(facts, j)
		decided = "; " + why.Text
		if req.Verdict == "" || req.Verdict == derived {
			out.why = why
		}
	}
	switch {
	case req.Verdict == "":
		if derr != nil {
			return derr
		}
		out.verdict = derived
		switch {
		case req.Regression == nil:
			out.regression = reason
		case reason == nil:
			if err := out.contradiction(req.Force, fmt.Sprintf("the regression reason %s contradicts the test reports, which give %s%s", canon(req.Regression), derived, decided)); err != nil {
				return err
			}
			out.verdict = predicate.RegressionOnly
		case !sameJSON(req.Regression, reason):
			if err := out.contradiction(req.Force, fmt.Sprintf("the regression reason %s contradicts the test reports, which give %s%s", canon(req.Regression), canon(reason), decided)); err != nil {
				return err
			}
		}
	case facts.GreenFail:
		if err := out.contradiction(req.Force, fmt.Sprintf("the verdict %s contradicts the green report %s, which shows failing tests", req.Verdict, green.Name)); err != nil {
			return err
		}
	case derr != nil:
		// The reports are too few to give a verdict (no red report): the
		// explicit one stands.
	case derived != req.Verdict:
		if err := out.contradiction(req.Force, fmt.Sprintf("the verdict %s contradicts the test reports, which give %s%s%s", req.Verdict, derived, reasonSuffix(reason), decided)); err != nil {
			return err
		}
	case reason != nil && req.Regression != nil && !sameJSON(req.Regression, reason):
		if err := out.contradiction(req.Force, fmt.Sprintf("the regression reason %s contradicts the test reports, which give %s%s", canon(req.Regression), canon(reason), decided)); err != nil {
			return err
		}
	case reason != nil && req.Regression == nil:
		if _, has := obj["regression"]; !has {
			out.regression = reason
		}
	}
	return nil
}

// reconcileRed sets the red run from the red report — its kind from the
// classification that decided the verdict (the tick's own tests, or the
// judged file that decided it), its output the own tests' failures — or
// checks the red kind and output req gives against it.
func (out *reportOutcome) reconcileRed(req Request, facts reportFacts, red *PhaseReport, judged *testreport.Files, green *PhaseReport) error {
	class := facts.RedClass
	if out.judged != nil && out.judged.red.Class != "" {
		class = out.judged.red.Class
	}
	if kind, isRed := testreport.RedKind(class); isRed {
		switch {
		case out.red == nil:
			var g *testreport.Report
			if green != nil {
				g = green.Report
			}
			out.red = &predicate.RedRun{Kind: kind, Output: red.Report.OwnFailureOutput(judged.OwnTests(g))}
		case req.RedKindSet && out.red.Kind != kind:
			if err := out.contradiction(req.Force, fmt.Sprintf("the red kind %s contradicts the red report %s, which fails on %s", out.red.Kind, red.Name, kind)); err != nil {
				return err
			}
		default:
			r := *out.red
			r.Kind = kind
			out.red = &r
		}
	} else if out.red != nil {
		if err := out.contradiction(req.Force, fmt.Sprintf("the red output claims a red run, but the red report %s shows %s for the tick's own tests", red.Name, class)); err != nil {
			return err
		}
	}
	return nil
}

func canon(v any) string {
	b, _ := strictjson.Canonical(v)
	return string(b)
}

func sameJSON(a, b any) bool { return canon(a) == canon(b) }

func reasonSuffix(reason map[string]any) string {
	if reason == nil {
		return ""
	}
	return " " + canon(reason)
}

// defaultBranches are the refs tried, in order, for the branch a tick commit
// leaves (its merge base with the first that resolves and is not the commit's
// own history).
var defaultBranches = []string{"refs/remotes/origin/HEAD", "refs/heads/main", "refs/heads/master", "refs/remotes/origin/main", "refs/remotes/origin/master"}

// tickBase is where the tick's own range starts (docs/format.md#test-reports):
// the unit's previous tick on the branch — the nearest commit of the tick
// commit's first-parent line, after its merge base with the default branch
// (origin/HEAD, main, master, origin/main, origin/master: the first whose
// merge base with the commit is not the commit itself), that ticks a task of
// one of the units of ticks — else that merge base. On the default branch
// itself, or when none exists, it is the commit's first parent: the range is
// the tick commit alone.
func tickBase(repo *gitref.Repo, commit *gitref.Commit, ticks []tick.Tick, layouts *specfmt.Layouts) (gitref.Hash, error) {
	var branch, mb gitref.Hash
	for _, ref := range defaultBranches {
		h, err := repo.Resolve(ref)
		if err != nil {
			continue
		}
		m, err := repo.MergeBase(h, commit.ID)
		if err != nil {
			return "", err
		}
		if m != "" && m != commit.ID {
			branch, mb = h, m
			break
		}
	}
	if mb == "" {
		return commit.FirstParent(), nil
	}
	type unitKey struct{ root, dir string }
	units := map[unitKey]bool{}
	for _, t := range ticks {
		units[unitKey{t.Root, t.Unit.Dir}] = true
	}
	line, err := repo.List(branch, commit.ID, true)
	if err != nil {
		return "", err
	}
	// Newest first, the tick commit itself left out.
	for i := line.Len() - 1; i >= 0; i-- {
		id := line.ID(i)
		if id == commit.ID {
			continue
		}
		earlier, err := tick.OfCommit(repo, id, layouts)
		if err != nil {
			return "", err
		}
		for _, t := range earlier {
			if (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked) && units[unitKey{t.Root, t.Unit.Dir}] {
				return id, nil
			}
		}
	}
	return mb, nil
}

// changedTestFiles are the test files (by [testreport.IsTestFile]) that
// differ between base and head: added and modified, not deleted.
func changedTestFiles(repo *gitref.Repo, base, head gitref.Hash) ([]string, error) {
	paths, err := repo.ChangedPaths(base, head, false)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		if testreport.IsTestFile(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// maxChangeFile bounds the files a tick's change is read from: a larger
// file (generated code, a data file) is left out of the change, so a
// missing symbol only it would introduce does not count as introduced.
const maxChangeFile = 1 << 20

// tickChange is what the tick's range changed, for classifying the red run
// (docs/format.md#how-a-red-run-is-classified): each regular file that
// differs between base and the tick commit, with its content on both sides.
func tickChange(repo *gitref.Repo, base gitref.Hash, commit *gitref.Commit) (*testreport.Change, error) {
	var baseTree gitref.Hash
	if base != "" {
		bc, err := repo.Commit(base)
		if err != nil {
			return nil, err
		}
		baseTree = bc.Tree
	}
	ch := testreport.NewChange()
	err := repo.DiffTrees(baseTree, commit.Tree, func(p string, ea, eb *gitref.TreeEntry) error {
		if eb == nil || !eb.Mode.IsRegular() {
			return nil
		}
		newb, err := repo.Blob(eb.ID(), gitref.BlobRead{Limit: maxChangeFile})
		if err != nil {
			if errors.Is(err, gitref.ErrTooLarge) {
				return nil
			}
			return err
		}
		var old []byte
		if ea != nil && ea.Mode.IsRegular() {
			if old, err = repo.Blob(ea.ID(), gitref.BlobRead{Limit: maxChangeFile}); err != nil {
				if errors.Is(err, gitref.ErrTooLarge) {
					return nil
				}
				return err
			}
			if old == nil {
				old = []byte{}
			}
		}
		ch.AddFile(p, old, newb)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// ContradictionError: the request's verdict, regression reason or red run
// contradicts the test reports; a forced request writes it anyway, with What
// as a warning. It matches [ErrRequest].
type ContradictionError struct {
	What string
}

func (e *ContradictionError) Error() string {
	return fmt.Sprintf("%v: %s; writing it anyway must be forced", ErrRequest, e.What)
}

// Unwrap returns ErrRequest.
func (e *ContradictionError) Unwrap() error { return ErrRequest }
