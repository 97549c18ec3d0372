package testreport

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/taskproof/taskproof/predicate"
)

// compileError matches one Go compiler error line ("file.go:12:5: message").
var compileError = regexp.MustCompile(`^\S+\.go:\d+(:\d+)?: (.*)$`)

// rustError matches rustc's error line ("error[E0425]: message", "error: message").
var rustError = regexp.MustCompile(`^error(\[E\d+\])?: (.*)$`)

// rustSummary are rustc's and cargo's closing lines, which repeat that errors
// happened and are no error of their own.
var rustSummary = regexp.MustCompile(`^error: (could not compile|aborting due to|test failed, to rerun|\d+ targets? failed)`)

// goPanic and goTimeout are a Go test binary's panic and deadline messages.
const (
	goPanic   = "panic: "
	goTimeout = "panic: test timed out after"
)

// exceptionLead is a failure message that starts with an exception's type
// ("TypeError: …", "ZeroDivisionError", "java.lang.IllegalStateException:").
var exceptionLead = regexp.MustCompile(`^\s*(?:E\s+)?(?:[\w$]+\.)*([\w$]*(?:Error|Exception))\b`)

// assertionTypes are the exception types of assertion failures; JavaScript's
// plain "Error" is jest's expect().
var assertionTypes = map[string]bool{"AssertionError": true, "AssertionFailedError": true, "ComparisonFailure": true,
	"AssertionFailure": true, "Error": true, "JestAssertionError": true, "MultipleFailuresError": true}

// rustPanic is a Rust test's panic line; an assertion's message follows it.
var rustPanic = regexp.MustCompile(`panicked at [^\n]*:\n?\s*(.*)`)

// Classification is how a red run failed: its class (the schema's RedClass)
// and what decided it — Line, the report's 1-based line of the deciding
// failure (0 when the report does not say), and Detail, that failure's text
// line (the compiler error, the exception, the assertion), "" for passed and
// no_tests.
type Classification struct {
	Class  predicate.RedClass
	Line   int
	Detail string
}

// failure is one failing case or package failure, classified.
type failure struct {
	class  predicate.RedClass
	line   int
	detail string
}

// classOrder is how bad each class is: the first seen decides.
var classOrder = []predicate.RedClass{predicate.ClassTimeout, predicate.ClassBuildError,
	predicate.ClassCollectionError, predicate.ClassUnclassified, predicate.ClassAbsent, predicate.ClassAssertion}

// Classify says what the report shows of a red run
// (docs/format.md#how-a-red-run-is-classified):
//   - no failure: passed when a case passed, else no_tests;
//   - otherwise every failing case and package failure gets a class, and the
//     worst decides: timeout, then build_error, collection_error,
//     unclassified, absent, assertion.
//
// A failure is absent only when every error it shows names a missing symbol
// and, when change is not nil, the change introduces each of them ([Change]);
// a missing symbol the change does not introduce is the error it would be
// otherwise (build_error for a build, collection_error at collection, else
// unclassified). Only assertion and absent are red.
func (r *Report) Classify(change *Change) Classification { return r.classify(change, nil) }

// classify is Classify over the failures of the tests in s (every failure
// when s is nil).
func (r *Report) classify(change *Change, s *scope) Classification {
	var fs []failure
	for _, p := range r.Packages {
		if s == nil || s.packageCounts(r.Format, p) {
			fs = append(fs, classifyPackage(p, change))
		}
	}
	passed := false
	for _, c := range r.Cases {
		switch {
		case c.Failing() && (s == nil || s.caseCounts(c)):
			fs = append(fs, r.classifyCase(c, change))
		case c.Status == StatusPassed && (s == nil || s.casePassed(c)):
			passed = true
		}
	}
	if len(fs) == 0 {
		if passed {
			return Classification{Class: predicate.ClassPassed}
		}
		return Classification{Class: predicate.ClassNoTests}
	}
	for _, class := range classOrder {
		for _, f := range fs {
			if f.class == class {
				return Classification{Class: f.class, Line: f.line, Detail: f.detail}
			}
		}
	}
	return Classification{Class: fs[0].class, Line: fs[0].line, Detail: fs[0].detail}
}

// RedClass is Classify(nil).Class: the class by the messages alone.
func (r *Report) RedClass() predicate.RedClass { return r.Classify(nil).Class }

// symbolsClass classifies text that names missing symbols: absent when the
// change introduces them all (or is nil), else otherwise, with the
// line naming the first it does not introduce.
func symbolsClass(text string, change *Change, otherwise predicate.RedClass) (predicate.RedClass, string) {
	syms := SymbolsIn(text)
	if change != nil {
		for _, s := range syms {
			if !change.Introduces(s) {
				return otherwise, lineWith(text, s.message) + " (" + s.Name + " is not introduced by the change)"
			}
		}
	}
	if len(syms) > 0 {
		return predicate.ClassAbsent, lineWith(text, syms[0].message)
	}
	return predicate.ClassAbsent, firstLine(text)
}

// classifyCase classifies one failing case.
func (r *Report) classifyCase(c Case, change *Change) failure {
	text := c.Message + "\n" + c.Type + "\n" + c.Output
	f := failure{line: c.Line}
	switch {
	case strings.Contains(text, goTimeout):
		f.class, f.detail = predicate.ClassTimeout, lineWith(text, goTimeout)
	case namesMissingSymbol(text):
		otherwise := predicate.ClassUnclassified
		switch {
		case isCompile(text):
			otherwise = predicate.ClassBuildError
		case c.Status == StatusError || isCollection(text):
			otherwise = predicate.ClassCollectionError
		}
		f.class, f.detail = symbolsClass(text, change, otherwise)
	case r.Format == FormatGoJSON && strings.Contains(c.Output, goPanic):
		// A panic is not an assertion (a test that calls a stub panicking
		// "not implemented" did not fail on what it checks).
		f.class, f.detail = predicate.ClassUnclassified, lineWith(c.Output, goPanic)
	case c.Status == StatusFailed:
		f.class, f.detail = failedClass(c)
	case isCollection(text):
		f.class, f.detail = predicate.ClassCollectionError, firstLine(text)
	default:
		f.class, f.detail = predicate.ClassUnclassified, firstLine(text)
	}
	return f
}

// failedClass is how a case that failed (not errored) failed: an assertion,
// unless its message is an exception other than an assertion's, or a Rust
// panic that is not an assertion's (unimplemented!, todo!, unwrap on None).
func failedClass(c Case) (predicate.RedClass, string) {
	text := c.Message + "\n" + c.Output
	if m := exceptionLead.FindStringSubmatch(c.Message); m != nil && !assertionTypes[m[1]] {
		return predicate.ClassUnclassified, firstLine(c.Message)
	}
	if c.Message == "" && c.Type != "" && c.Type != "test failure" {
		if m := exceptionLead.FindStringSubmatch(c.Type); m != nil && !assertionTypes[m[1]] {
			return predicate.ClassUnclassified, c.Type + ": " + firstLine(c.Output)
		}
	}
	if m := rustPanic.FindStringSubmatch(text); m != nil {
		// rustc ≥ 1.73 puts the message on the line after "panicked at
		// FILE:L:C:", older ones in quotes on the same line.
		if !strings.Contains(m[0], "assert") {
			return predicate.ClassUnclassified, bound(strings.TrimSpace(m[0]))
		}
		if strings.TrimSpace(m[1]) == "" {
			return predicate.ClassAssertion, firstLine(m[0])
		}
		return predicate.ClassAssertion, bound(strings.TrimSpace(m[1]))
	}
	return predicate.ClassAssertion, firstLine(goRunLines.ReplaceAllString(text, ""))
}

// goRunLines are `go test -v`'s own lines around a test's output.
var goRunLines = regexp.MustCompile(`(?m)^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (FAIL|PASS|SKIP):).*$`)

// isCompile reports whether a failure's text is a compiler's diagnostic
// (TypeScript's TS2305, rustc's error[E0425]).
func isCompile(text string) bool {
	return tsDiagnostic.MatchString(text) || strings.Contains(text, "TypeCheckError") || strings.Contains(text, "error[E")
}

var tsDiagnostic = regexp.MustCompile(`\bTS\d{4}\b`)

func isCollection(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "collection failure") || strings.Contains(t, "failed on setup") ||
		strings.Contains(t, "error collecting") || strings.Contains(t, "failed on teardown") ||
		strings.Contains(t, "test suite failed to run") || strings.Contains(t, "failed to load")
}

// classifyPackage classifies a package failure: a build whose every error
// names a missing symbol (introduced by change) is absent, any other build
// error build_error; a deadline is timeout; a setup failure
// collection_error; anything else unclassified.
func classifyPackage(p PackageFailure, change *Change) failure {
	lines := strings.Split(p.Output, "\n")
	at := func(i int) int {
		if i < len(p.lineNos) {
			return p.lineNos[i]
		}
		return p.Line
	}
	switch {
	case strings.Contains(p.Output, goTimeout):
		for i, l := range lines {
			if strings.Contains(l, goTimeout) {
				return failure{class: predicate.ClassTimeout, line: at(i), detail: strings.TrimSpace(l)}
			}
		}
	case p.Build:
		errs := 0
		var first failure
		for i, l := range lines {
			msg, ok := buildErrorLine(strings.TrimSpace(l))
			if !ok {
				continue
			}
			errs++
			f := failure{line: at(i), detail: strings.TrimSpace(l)}
			if !namesMissingSymbol(msg) {
				f.class = predicate.ClassBuildError
				return f
			}
			if f.class, f.detail = symbolsClass(strings.TrimSpace(l), change, predicate.ClassBuildError); f.class != predicate.ClassAbsent {
				return f
			}
			if errs == 1 {
				first = f
			}
		}
		if errs == 0 {
			if namesMissingSymbol(p.Output) {
				class, detail := symbolsClass(p.Output, change, predicate.ClassBuildError)
				return failure{class: class, line: p.Line, detail: detail}
			}
			return failure{class: predicate.ClassBuildError, line: p.Line, detail: firstLine(p.Output)}
		}
		return first
	case strings.Contains(p.Output, "[setup failed]"):
		return failure{class: predicate.ClassCollectionError, line: p.Line, detail: firstLine(p.Output)}
	}
	return failure{class: predicate.ClassUnclassified, line: p.Line, detail: firstLine(p.Output)}
}

// buildErrorLine returns the message of a compiler error line: Go's
// "file.go:L:C: msg", rustc's "error[E…]: msg" (not cargo's closing
// summary).
func buildErrorLine(l string) (string, bool) {
	if m := compileError.FindStringSubmatch(l); m != nil {
		return m[2], true
	}
	if m := rustError.FindStringSubmatch(l); m != nil && !rustSummary.MatchString(l) {
		return m[2], true
	}
	return "", false
}

// maxDetail bounds a classification's detail line.
const maxDetail = 240

// firstLine is the first non-blank line of text, trimmed and bounded.
func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return bound(t)
		}
	}
	return ""
}

// lineWith is the first line of text containing s (the first line when s is
// "" or absent), trimmed and bounded.
func lineWith(text, s string) string {
	if s != "" {
		for _, l := range strings.Split(text, "\n") {
			if strings.Contains(l, s) {
				return bound(strings.TrimSpace(l))
			}
		}
	}
	return firstLine(text)
}

// ansiEscape is a terminal's colour or cursor sequence (ts-jest's
// diagnostics carry them).
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]")

// bound makes a detail line printable and short: valid UTF-8, no escape
// sequence or control character, at most maxDetail bytes.
func bound(s string) string {
	s = strings.ToValidUTF8(s, "?")
	s = ansiEscape.ReplaceAllString(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// RedKind is the predicate's red.kind of a red class: assertion or
// missing_symbol; ok is false for a class that is not red.
func RedKind(c predicate.RedClass) (predicate.RedKind, bool) {
	switch c {
	case predicate.ClassAssertion:
		return predicate.RedAssertion, true
	case predicate.ClassAbsent:
		return predicate.RedMissingSymbol, true
	}
	return "", false
}

// FailureOutput is the output a red excerpt is cut from: each package
// failure's output, then each failing case's id, message and output, in
// report order, each block ending in a newline.
func (r *Report) FailureOutput() []byte { return r.failureOutput(nil) }

// failureOutput is FailureOutput of the failures of the tests in s (every
// failure when s is nil).
func (r *Report) failureOutput(s *scope) []byte {
	var b strings.Builder
	for _, p := range r.Packages {
		if s != nil && !s.packageCounts(r.Format, p) {
			continue
		}
		b.WriteString(p.Output)
		if !strings.HasSuffix(p.Output, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, c := range r.Cases {
		if !c.Failing() || (s != nil && !s.caseCounts(c)) {
			continue
		}
		b.WriteString("--- " + strings.ToUpper(string(c.Status)) + ": " + c.ID() + "\n")
		if c.Message != "" && !strings.Contains(c.Output, c.Message) {
			b.WriteString(c.Message + "\n")
		}
		if o := strings.Trim(c.Output, "\n"); o != "" {
			b.WriteString(o + "\n")
		}
	}
	return []byte(b.String())
}
