package testreport

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/taskproof/taskproof/predicate"
)

// Outcome is what a test runner's captured output says of its run.
type Outcome string

// The outcomes: the run passed, it failed, or no runner's words were
// recognised.
const (
	OutcomeUnknown Outcome = ""
	OutcomePassed  Outcome = "passed"
	OutcomeFailed  Outcome = "failed"
)

// RunOutput is what a runner's captured output (`attest tick --red-output`)
// shows: the outcome and the line that says so (1-based, its text), and
// what the failures were — a test failing, a build or collection failing,
// a missing symbol named (docs/format.md#verdict-from-evidence).
type RunOutput struct {
	Outcome Outcome
	Line    int
	Text    string
	// TestFailed: a test failed (an assertion's kind of failure);
	// BuildFailed: the tests did not build or could not be collected;
	// MissingSymbol: a missing-symbol message of a toolchain is in it.
	TestFailed, BuildFailed, MissingSymbol bool
}

// outputLine is one line form of a runner's output and what it says.
type outputLine struct {
	re      *regexp.Regexp
	outcome Outcome
	test    bool // a test failed
	build   bool // a build or collection failed
	// counts: the line's counts ("1 failed, 2 passed") decide (sayCounts).
	counts bool
}

// outputLines are the summary and result lines of go test, pytest, jest,
// vitest, cargo test (libtest) and Maven Surefire.
var outputLines = []outputLine{
	// go test (-v or not).
	{re: regexp.MustCompile(`^ok\s+\S+`), outcome: OutcomePassed},
	{re: regexp.MustCompile(`^(PASS|--- PASS: .*)$`), outcome: OutcomePassed},
	{re: regexp.MustCompile(`^\s*--- FAIL: `), outcome: OutcomeFailed, test: true},
	{re: regexp.MustCompile(`^FAIL\s+\S+\s+\[(build|setup) failed\]`), outcome: OutcomeFailed, build: true},
	{re: regexp.MustCompile(`^FAIL\b`), outcome: OutcomeFailed},
	{re: regexp.MustCompile(`^\S+\.go:\d+:\d+: `), outcome: OutcomeFailed, build: true},
	{re: regexp.MustCompile(`^panic: `), outcome: OutcomeFailed},
	// cargo test (libtest, rustc).
	{re: regexp.MustCompile(`^test result: ok\.`), outcome: OutcomePassed},
	{re: regexp.MustCompile(`^test result: FAILED\.`), outcome: OutcomeFailed, test: true},
	{re: regexp.MustCompile(`^error(\[E\d+\])?: `), outcome: OutcomeFailed, build: true},
	// jest ("Tests:       1 failed, 2 passed, 3 total").
	{re: regexp.MustCompile(`^Tests:\s+.*\btotal$`), counts: true},
	{re: regexp.MustCompile(`^Test Suites:\s+.*\bfailed\b`), outcome: OutcomeFailed},
	{re: regexp.MustCompile(`Test suite failed to run`), outcome: OutcomeFailed, build: true},
	// vitest (" Tests  1 failed | 2 passed (3)", " Test Files  1 failed (1)").
	{re: regexp.MustCompile(`^\s*Tests\s+\d+ .*\(\d+\)$`), counts: true},
	{re: regexp.MustCompile(`^\s*Test Files\s+\d+ failed`), outcome: OutcomeFailed},
	// pytest ("==== 1 failed, 2 passed in 0.12s ====", "-q": "3 passed in 0.01s").
	{re: regexp.MustCompile(`^=*\s*(\d+ \w+(, )?)+ in [\d.]+s\b.*$`), counts: true},
	{re: regexp.MustCompile(`^=+ ERRORS =+$|error during collection|errors during collection`), outcome: OutcomeFailed, build: true},
	{re: regexp.MustCompile(`^=+ no tests ran`), outcome: OutcomeUnknown},
	// Maven Surefire.
	{re: regexp.MustCompile(`^\[INFO\] BUILD SUCCESS$`), outcome: OutcomePassed},
	{re: regexp.MustCompile(`^\[ERROR\] Tests run: .*Failures: [1-9]|^\[ERROR\] Tests run: .*Errors: [1-9]`), outcome: OutcomeFailed, test: true},
	{re: regexp.MustCompile(`^\[ERROR\] COMPILATION ERROR`), outcome: OutcomeFailed, build: true},
}

// countWord is one "N word" of a summary line ("1 failed", "2 passed").
var countWord = regexp.MustCompile(`(\d+) (failed|passed|errors?|error)\b`)

// maxOutputLines bounds the lines of an output that are read.
const maxOutputLines = 1 << 20

// ReadRunOutput reads a runner's captured output. A report of a format
// [Parse] reads (go test -json, JUnit XML, cargo test) is read as one: it
// passed when it [Report.Succeeded]. Other output is read line by line for
// go test's, pytest's, jest's, vitest's, cargo test's and Maven's words: any
// failure makes the outcome failed (the first failure line), else any pass
// makes it passed (the last pass line); otherwise it is unknown.
func ReadRunOutput(out []byte) RunOutput {
	if r, err := Parse("", out); err == nil {
		ro := RunOutput{MissingSymbol: namesMissingSymbol(string(out))}
		switch {
		case r.Succeeded():
			ro.Outcome, ro.Text = OutcomePassed, "every test passed"
		case len(r.Packages) > 0 || len(r.Failed()) > 0:
			ro.Outcome = OutcomeFailed
			c := r.Classify(nil)
			ro.Line, ro.Text = c.Line, c.Detail
			ro.TestFailed = c.Class == predicate.ClassAssertion
			ro.BuildFailed = c.Class == predicate.ClassBuildError || c.Class == predicate.ClassCollectionError || c.Class == predicate.ClassAbsent
		}
		return ro
	}
	var ro RunOutput
	passLine, passText := 0, ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for n := 1; sc.Scan() && n <= maxOutputLines; n++ {
		l := strings.TrimRight(ansiEscape.ReplaceAllString(sc.Text(), ""), " \r")
		if namesMissingSymbol(l) {
			ro.MissingSymbol = true
		}
		for _, ol := range outputLines {
			if !ol.re.MatchString(l) {
				continue
			}
			outcome, test := ol.outcome, ol.test
			if ol.counts {
				outcome, test = sayCounts(l)
			}
			switch outcome {
			case OutcomeFailed:
				ro.TestFailed = ro.TestFailed || test
				ro.BuildFailed = ro.BuildFailed || ol.build
				if ro.Outcome != OutcomeFailed {
					ro.Outcome, ro.Line, ro.Text = OutcomeFailed, n, bound(strings.Join(strings.Fields(l), " "))
				}
			case OutcomePassed:
				passLine, passText = n, bound(strings.Join(strings.Fields(l), " "))
			}
			break
		}
	}
	if ro.Outcome == OutcomeUnknown && passLine > 0 {
		ro.Outcome, ro.Line, ro.Text = OutcomePassed, passLine, passText
	}
	return ro
}

// sayCounts reads a summary line's counts: failed when a test failed or
// errored, passed when some passed and none did, unknown otherwise.
func sayCounts(l string) (Outcome, bool) {
	failed, passed := 0, 0
	for _, m := range countWord.FindAllStringSubmatch(l, -1) {
		n, _ := strconv.Atoi(m[1])
		switch m[2] {
		case "passed":
			passed += n
		default:
			failed += n
		}
	}
	switch {
	case failed > 0:
		return OutcomeFailed, true
	case passed > 0:
		return OutcomePassed, false
	}
	return OutcomeUnknown, false
}

// Confirms reports whether the output shows a red run of kind: a missing
// symbol named for missing_symbol, a test that failed without a build or
// collection failure for assertion.
func (ro RunOutput) Confirms(kind predicate.RedKind) bool {
	switch kind {
	case predicate.RedMissingSymbol:
		return ro.MissingSymbol
	case predicate.RedAssertion:
		return ro.TestFailed && !ro.BuildFailed
	}
	return false
}
