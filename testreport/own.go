package testreport

import (
	"path"
	"regexp"
	"strings"
)

// Own are a tick's own tests (docs/format.md#how-a-red-run-is-classified):
// the tests of its judged test files that passed in the green run. A red
// run is classified on them alone: a failure of any other test — another
// package's, a flaky one, a test the green run did not pass — decides
// nothing, and a red failure of a test that never passed green cannot make
// the run red.
type Own struct {
	files *Files
	// passed maps each own test's id to its judged file.
	passed map[string]string
	// tests counts each judged file's own tests.
	tests map[string]int
}

// OwnTests are the tests of the judged files that passed in green.
func (f *Files) OwnTests(green *Report) *Own {
	o := &Own{files: f, passed: map[string]string{}, tests: map[string]int{}}
	if green == nil {
		return o
	}
	for _, c := range green.Cases {
		if c.Status != StatusPassed {
			continue
		}
		if p := f.Of(c); p != "" {
			if _, seen := o.passed[c.ID()]; !seen {
				o.passed[c.ID()] = p
				o.tests[p]++
			}
		}
	}
	return o
}

// Len is how many own tests there are.
func (o *Own) Len() int { return len(o.passed) }

// Files are the judged files that have own tests, in the order they were
// judged.
func (o *Own) Files() []string {
	var out []string
	for _, p := range o.files.paths {
		if o.tests[p] > 0 {
			out = append(out, p)
		}
	}
	return out
}

// Tests is how many own tests file p has.
func (o *Own) Tests(p string) int { return o.tests[p] }

// scope is the part of the own tests a classification looks at: all of
// them (files nil) or those of some files.
type scope struct {
	own   *Own
	files map[string]bool
}

func (s scope) in(p string) bool {
	return p != "" && s.own.tests[p] > 0 && (s.files == nil || s.files[p])
}

// caseCounts reports whether a failing red case is a failure of the own
// tests in scope: a test that passed green, or a failure of a whole file
// whose own tests are in scope (a module that failed to load or to be
// collected, a suite that failed to run).
func (s scope) caseCounts(c Case) bool {
	if p, ok := goBuildCase(c); ok {
		return s.packageCounts(FormatGoJSON, p)
	}
	p := s.own.files.Of(c)
	if !s.in(p) {
		return false
	}
	if s.own.files.wholeFile(c, p) {
		return true
	}
	return s.own.passed[c.ID()] == p
}

// casePassed reports whether a red case is an own test in scope that passed.
func (s scope) casePassed(c Case) bool {
	if c.Status != StatusPassed {
		return false
	}
	p, ok := s.own.passed[c.ID()]
	return ok && s.in(p)
}

// packageCounts reports whether a package failure (a Go package whose tests
// did not build or that failed outside a test, a crate that did not compile)
// is a failure of the own tests in scope: its errors are in a judged file in
// scope (a Go `file.go:L:C:` line of the file's package, rustc's `--> file`
// line); one whose errors name no file, or that is no build failure, is a
// failure of every own file of its Go package (of any crate for cargo).
func (s scope) packageCounts(format Format, p PackageFailure) bool {
	f := s.own.files
	if p.Build {
		named := false
		for _, l := range strings.Split(p.Output, "\n") {
			at := errorFile(format, strings.TrimSpace(l))
			if at == "" {
				continue
			}
			named = true
			for _, q := range f.paths {
				if !s.in(q) {
					continue
				}
				if format == FormatGoJSON && path.Base(at) == path.Base(q) && f.inGoPackage(q, p.Package) {
					return true
				}
				if format == FormatCargo && f.namesPath(at, q) {
					return true
				}
			}
		}
		if named {
			return false
		}
	}
	for _, q := range f.paths {
		if s.in(q) && (format != FormatGoJSON || f.inGoPackage(q, p.Package)) {
			return true
		}
	}
	return false
}

// goBuildCase is the package failure a JUnit case of go-junit-report stands
// for: its "[build failed]" or "[setup failed]" case of a Go package.
func goBuildCase(c Case) (PackageFailure, bool) {
	if !c.Failing() || (c.Name != "[build failed]" && c.Name != "[setup failed]") {
		return PackageFailure{}, false
	}
	return PackageFailure{Package: c.Class, Build: c.Name == "[build failed]", Output: c.Message + "\n" + c.Output}, true
}

// errorFile is the file a compiler error line of a report's format is in:
// Go's "file.go:L:C: …", rustc's "--> file:L:C"; "" for any other line.
func errorFile(format Format, l string) string {
	var m []string
	switch format {
	case FormatGoJSON:
		m = goErrorFile.FindStringSubmatch(l)
	case FormatCargo:
		m = rustErrorFile.FindStringSubmatch(l)
	}
	if m == nil {
		return ""
	}
	return m[1]
}

// goErrorFile is the file of a Go compiler error line; rustErrorFile the
// file of rustc's location line ("  --> tests/greeting.rs:5:16").
var (
	goErrorFile   = regexp.MustCompile(`^(\S+\.go):\d+(?::\d+)?: `)
	rustErrorFile = regexp.MustCompile(`^-->\s*(\S+?):\d+:\d+$`)
)

// ClassifyOwn classifies the red run on the tick's own tests — all of them,
// or, when files are given, those of these judged files: as [Report.Classify]
// over the failures of own tests alone; with no such failure, passed when
// one of them passed red, else no_tests (the red run did not run them).
func (r *Report) ClassifyOwn(change *Change, own *Own, files ...string) Classification {
	s := scope{own: own}
	if len(files) > 0 {
		s.files = map[string]bool{}
		for _, p := range files {
			s.files[p] = true
		}
	}
	return r.classify(change, &s)
}

// OwnFailureOutput is [Report.FailureOutput] of the own tests' failures.
func (r *Report) OwnFailureOutput(own *Own) []byte {
	s := scope{own: own}
	return r.failureOutput(&s)
}
