package testreport

import (
	"regexp"
	"strings"

	"github.com/taskproof/taskproof/predicate"
)

// missingSymbol matches the compiler, interpreter and loader messages of the
// supported toolchains that name a symbol or module that does not exist (yet):
// Go's "undefined: X" and "has no field or method"; Python's ImportError,
// ModuleNotFoundError, NameError and a module's missing attribute; JavaScript's
// ReferenceError "is not defined", "is not a function", missing modules and
// exports; Rust's E0412/E0422/E0425/E0432/E0433/E0599 and their texts; Java's
// "cannot find symbol" (docs/format.md#test-reports).
var missingSymbol = regexp.MustCompile(`undefined: \S|has no field or method |` +
	`ImportError: cannot import name|ModuleNotFoundError: No module named|NameError: name '[^']*' is not defined|AttributeError: module '[^']*' has no attribute|` +
	`ReferenceError: \S+ is not defined|TypeError: \S+ is not a function|Cannot find module|does not provide an export named|Failed to resolve import|` +
	`error\[E0(412|422|425|432|433|599)\]|cannot find (function|value|type|struct|macro) |unresolved import|no (function or associated item|method) named|` +
	`cannot find symbol`)

// compileError matches one Go compiler error line ("file.go:12:5: message").
var compileError = regexp.MustCompile(`^\S+\.go:\d+(:\d+)?: (.*)$`)

// goPanic and goTimeout are a Go test binary's panic and deadline messages.
const (
	goPanic   = "panic: "
	goTimeout = "panic: test timed out after"
)

// caseClass is how one failing case failed.
func (r *Report) caseClass(c Case) predicate.RedClass {
	text := c.Message + "\n" + c.Type + "\n" + c.Output
	switch {
	case strings.Contains(text, goTimeout):
		return predicate.ClassTimeout
	case missingSymbol.MatchString(text):
		return predicate.ClassAbsent
	case r.Format == FormatGoJSON && strings.Contains(c.Output, goPanic):
		// A panic is not an assertion (a test that calls a stub panicking
		// "not implemented" did not fail on what it checks).
		return predicate.ClassUnclassified
	case c.Status == StatusFailed:
		return predicate.ClassAssertion
	case isCollection(text):
		return predicate.ClassCollectionError
	}
	return predicate.ClassUnclassified
}

func isCollection(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "collection failure") || strings.Contains(t, "failed on setup") ||
		strings.Contains(t, "error collecting") || strings.Contains(t, "failed on teardown")
}

// packageClass is how a package failure failed: a build whose only errors name
// missing symbols is absent, any other build error build_error; a deadline is
// timeout; a setup failure collection_error; anything else unclassified.
func packageClass(p PackageFailure) predicate.RedClass {
	switch {
	case strings.Contains(p.Output, goTimeout):
		return predicate.ClassTimeout
	case p.Build:
		errs := 0
		for _, l := range strings.Split(p.Output, "\n") {
			m := compileError.FindStringSubmatch(strings.TrimSpace(l))
			if m == nil {
				continue
			}
			errs++
			if !missingSymbol.MatchString(m[2]) {
				return predicate.ClassBuildError
			}
		}
		if errs == 0 {
			if missingSymbol.MatchString(p.Output) {
				return predicate.ClassAbsent
			}
			return predicate.ClassBuildError
		}
		return predicate.ClassAbsent
	case strings.Contains(p.Output, "[setup failed]"):
		return predicate.ClassCollectionError
	}
	return predicate.ClassUnclassified
}

// RedClass is what the report shows of a red run (the schema's RedClass):
//   - no failure: passed when a case passed, else no_tests;
//   - otherwise every failing case and package failure gets a class (see
//     docs/format.md#test-reports), and the worst decides: timeout, then
//     build_error, collection_error, unclassified; when all are red, absent if
//     any failure names a missing symbol, else assertion.
//
// Only assertion and absent are red.
func (r *Report) RedClass() predicate.RedClass {
	seen := map[predicate.RedClass]bool{}
	for _, c := range r.Cases {
		if c.Failing() {
			seen[r.caseClass(c)] = true
		}
	}
	for _, p := range r.Packages {
		seen[packageClass(p)] = true
	}
	if len(seen) == 0 {
		if len(r.Passed()) > 0 {
			return predicate.ClassPassed
		}
		return predicate.ClassNoTests
	}
	for _, c := range []predicate.RedClass{predicate.ClassTimeout, predicate.ClassBuildError,
		predicate.ClassCollectionError, predicate.ClassUnclassified, predicate.ClassAbsent} {
		if seen[c] {
			return c
		}
	}
	return predicate.ClassAssertion
}

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
func (r *Report) FailureOutput() []byte {
	var b strings.Builder
	for _, p := range r.Packages {
		b.WriteString(p.Output)
		if !strings.HasSuffix(p.Output, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, c := range r.Cases {
		if !c.Failing() {
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
