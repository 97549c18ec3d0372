package testreport

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// ErrUnreadable is the kind of every error [Parse] returns: the report is not
// JUnit XML, `go test -json` or `cargo test` output, or is not well formed. A
// [*ParseError] names the file and line.
var ErrUnreadable = errors.New("unreadable test report")

// ParseError says where a report could not be read: File as given to [Parse],
// the 1-based Line (0 when unknown), and why. It matches [ErrUnreadable].
type ParseError struct {
	File   string
	Line   int
	Reason string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("test report %s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("test report %s: %s", e.File, e.Reason)
}

// Is reports whether target is [ErrUnreadable].
func (e *ParseError) Is(target error) bool { return target == ErrUnreadable }

// Format is the kind of report a [Report] was read from.
type Format string

// The formats.
const (
	FormatJUnit  Format = "junit"
	FormatGoJSON Format = "go-test-json"
	FormatCargo  Format = "cargo-test"
)

// Status is how one test case ended.
type Status string

// The statuses. StatusError is JUnit's <error> (an exception outside an
// assertion, a collection or setup error); `go test -json` has no such case.
const (
	StatusPassed  Status = "passed"
	StatusFailed  Status = "failed"
	StatusError   Status = "error"
	StatusSkipped Status = "skipped"
)

// Case is one test case of a report.
type Case struct {
	// Suite is the JUnit <testsuite> name, or the Go package's import path.
	Suite string
	// Class is the JUnit classname, or the Go package's import path.
	Class string
	// Name is the test's name (a Go test's full name, subtests included).
	Name string
	// File is the case's (or its suite's) file attribute, "" when the report
	// gives none (go test -json never does).
	File   string
	Status Status
	// Message and Type are the <failure>/<error> element's attributes.
	Message, Type string
	// Output is the failure's text and the case's captured output (a Go
	// test's output lines).
	Output string
	// Line is the report's 1-based line the case is recorded at (its
	// <testcase>, its last `go test -json` event, cargo's result line); 0
	// when unknown.
	Line int
	// suite is the case's JUnit <testsuite> (shared by its cases), for
	// telling which file a suite is; nil for other reports.
	suite *junitSuite
}

// junitSuite is what a JUnit <testsuite> tells of its cases: their names.
type junitSuite struct {
	names []string
}

// ID is the test's id in trace rows and collection.test_ids: "Class::Name",
// or Name when the case has no class (docs/format.md#test-reports).
func (c Case) ID() string {
	if c.Class == "" {
		return c.Name
	}
	return c.Class + "::" + c.Name
}

// Ran reports whether the case ran (passed, failed or errored; not skipped).
func (c Case) Ran() bool { return c.Status != StatusSkipped }

// Failing reports whether the case failed or errored.
func (c Case) Failing() bool { return c.Status == StatusFailed || c.Status == StatusError }

// PackageFailure is a failure outside any test case: a Go package whose tests
// did not build (Build true, Output the compiler's), or that failed without a
// failing test (a TestMain exit, a timeout, a setup failure).
type PackageFailure struct {
	Package string
	Build   bool
	Output  string
	// Line is the report's 1-based line of the failure's first output (0
	// when unknown).
	Line int
	// lineNos are the report lines of Output's lines, where the report
	// gives them (one `go test -json` event per line of output).
	lineNos []int
}

// Report is one test run as a report gives it.
type Report struct {
	Format   Format
	Cases    []Case
	Packages []PackageFailure
	// rootName is a JUnit report's root <testsuites> name.
	rootName string
}

// JestJUnit reports whether the report is jest-junit's: JUnit whose root
// <testsuites> has jest-junit's default name, "jest tests".
func (r *Report) JestJUnit() bool { return r.Format == FormatJUnit && r.rootName == "jest tests" }

// HasFiles reports whether a case names its file (a file attribute, cargo's
// source file).
func (r *Report) HasFiles() bool {
	for _, c := range r.Cases {
		if c.File != "" {
			return true
		}
	}
	return false
}

// What to do about a jest-junit report that names no file or leaves out the
// suites that failed to run (jest-junit's defaults).
const (
	JestJUnitFileHint  = "jest-junit names no file by default: set JEST_JUNIT_ADD_FILE_ATTRIBUTE=true (addFileAttribute: \"true\") so that each case names its test file"
	JestJUnitSuiteHint = "jest-junit leaves out a test file that failed to run (a missing module) unless JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true (reportTestSuiteErrors: \"true\")"
)

// Passed, Failed and Skipped are the ids of the cases of each kind, in report
// order (Failed includes errored cases).
func (r *Report) Passed() []string {
	return r.ids(func(c Case) bool { return c.Status == StatusPassed })
}
func (r *Report) Failed() []string { return r.ids(Case.Failing) }
func (r *Report) Skipped() []string {
	return r.ids(func(c Case) bool { return c.Status == StatusSkipped })
}

func (r *Report) ids(keep func(Case) bool) []string {
	var out []string
	for _, c := range r.Cases {
		if keep(c) {
			out = append(out, c.ID())
		}
	}
	return out
}

// Succeeded reports whether the run passed: at least one case ran, none failed,
// and no package failed.
func (r *Report) Succeeded() bool {
	return len(r.Packages) == 0 && len(r.Failed()) == 0 && len(r.Passed()) > 0
}

// Parse reads a report, detecting its format by content: a first line that
// is cargo's (a JSON message with a "reason", or a line cargo or libtest
// prints) is `cargo test`'s output, else a first non-blank byte '{' is `go
// test -json`, '<' is JUnit XML. name is the file's name as the
// user gave it, for errors. Errors are a [*ParseError] ([ErrUnreadable]).
func Parse(name string, data []byte) (*Report, error) {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
	switch {
	case len(t) == 0:
		return nil, &ParseError{File: name, Reason: "empty file (want JUnit XML, `go test -json` or `cargo test` output)"}
	case isCargo(firstLineOf(t)):
		return parseCargo(name, data)
	case t[0] == '{':
		return parseGoJSON(name, data)
	case t[0] == '<':
		return parseJUnit(name, data)
	}
	line := 1 + bytes.Count(data[:len(data)-len(t)], []byte("\n"))
	return nil, &ParseError{File: name, Line: line, Reason: fmt.Sprintf("neither JUnit XML, `go test -json` nor `cargo test` output (starts with %q)", firstBytes(t))}
}

func firstBytes(b []byte) string {
	if len(b) > 16 {
		b = b[:16]
	}
	return strings.ToValidUTF8(string(b), "?")
}

// firstLineOf is b up to its first line end, trimmed.
func firstLineOf(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSpace(b)
}
