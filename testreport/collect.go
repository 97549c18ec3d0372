package testreport

import (
	"path"
	"regexp"
	"strings"

	"github.com/taskproof/taskproof/predicate"
)

// MaxTestIDs is how many test ids a collection entry lists (the schema's
// "first 20").
const MaxTestIDs = 20

// IsTestFile reports whether a repository-relative, '/'-separated path is a
// test file by its toolchain's naming rule: Go `*_test.go`; Python `test_*.py`
// and `*_test.py`; JavaScript and TypeScript `*.test.*` and `*.spec.*` (js, ts,
// jsx, tsx, mjs, cjs, mts, cts); Rust `tests/*.rs` (a crate's integration
// tests, at any depth of the workspace); Java and Kotlin by Maven Surefire's
// default includes, `Test*`, `*Test`, `*Tests`, `*TestCase` (docs/format.md#test-reports).
func IsTestFile(p string) bool {
	base := path.Base(p)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return true
	case strings.HasSuffix(base, ".py"):
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
	case jsTest.MatchString(base):
		return true
	case strings.HasSuffix(base, ".rs"):
		return path.Base(path.Dir(p)) == "tests"
	case strings.HasSuffix(base, ".java") || strings.HasSuffix(base, ".kt"):
		stem := strings.TrimSuffix(strings.TrimSuffix(base, ".java"), ".kt")
		return strings.HasPrefix(stem, "Test") || strings.HasSuffix(stem, "Test") ||
			strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "TestCase")
	}
	return false
}

var jsTest = regexp.MustCompile(`\.(test|spec)\.[cm]?[jt]sx?$`)

// goTestFunc finds the top-level tests a Go test file declares.
var goTestFunc = regexp.MustCompile(`(?m)^func (Test\w*|Example\w*|Fuzz\w*)\(`)

// Files are the test files a task added or changed (repository-relative,
// '/'-separated), ready to be matched with a report's cases (see [NewFiles]).
type Files struct {
	paths []string
	// goDeclared holds, for each Go test file, the top-level tests it declares.
	goDeclared map[string]map[string]bool
}

// NewFiles prepares files for matching. read returns a file's content: Go
// reports name packages and tests, not files, so a Go case is from a
// `_test.go` file when the file declares its top-level test and the package's
// import path ends in the file's directory; a Go file read returns an error
// for matches no case. How a case is matched to a file is
// docs/format.md#test-reports.
func NewFiles(files []string, read func(path string) ([]byte, error)) *Files {
	f := &Files{paths: files, goDeclared: map[string]map[string]bool{}}
	for _, p := range files {
		if !strings.HasSuffix(p, "_test.go") {
			continue
		}
		declared := map[string]bool{}
		if read != nil {
			if b, err := read(p); err == nil {
				for _, m := range goTestFunc.FindAllSubmatch(b, -1) {
					declared[string(m[1])] = true
				}
			}
		}
		f.goDeclared[p] = declared
	}
	return f
}

// Of returns the first of the files case c is from, "" when none.
func (f *Files) Of(c Case) string {
	for _, p := range f.paths {
		if fromFile(c, p, f.goDeclared[p]) {
			return p
		}
	}
	return ""
}

// Collect judges each file against the report of a green run: a file is
// collected when at least one case from it ran (passed or failed),
// not_collected otherwise; decided_by is junit, tests counts its cases that
// ran, test_ids lists the first [MaxTestIDs] of their ids.
func (f *Files) Collect(r *Report) []predicate.FileCollection {
	out := make([]predicate.FileCollection, 0, len(f.paths))
	for _, p := range f.paths {
		fc := predicate.FileCollection{Path: p, State: predicate.StateNotCollected,
			DecidedBy: predicate.Some(predicate.DecidedByJUnit), TestIDs: []string{}}
		for _, c := range r.Cases {
			if !c.Ran() || !fromFile(c, p, f.goDeclared[p]) {
				continue
			}
			fc.Tests++
			if len(fc.TestIDs) < MaxTestIDs {
				fc.TestIDs = append(fc.TestIDs, c.ID())
			}
		}
		if fc.Tests > 0 {
			fc.State = predicate.StateCollected
		}
		out = append(out, fc)
	}
	return out
}

// Collect is NewFiles(files, read).Collect(r).
func Collect(r *Report, files []string, read func(path string) ([]byte, error)) []predicate.FileCollection {
	return NewFiles(files, read).Collect(r)
}

// fromFile reports whether case c is from test file f.
func fromFile(c Case, f string, goDeclared map[string]bool) bool {
	if c.File != "" {
		cf := strings.TrimPrefix(strings.ReplaceAll(c.File, "\\", "/"), "./")
		return cf == f || strings.HasSuffix(cf, "/"+f) || strings.HasSuffix(f, "/"+cf)
	}
	if strings.HasSuffix(f, "_test.go") {
		top, _, _ := strings.Cut(c.Name, "/")
		if !goDeclared[top] {
			return false
		}
		dir := path.Dir(f)
		pkg := c.Class
		return dir == "." || pkg == dir || strings.HasSuffix(pkg, "/"+dir)
	}
	for _, name := range []string{c.Class, c.Suite} {
		if name == "" {
			continue
		}
		n := strings.TrimPrefix(strings.ReplaceAll(name, "\\", "/"), "./")
		// vitest and some jest-junit templates name the file itself.
		if n == f || strings.HasSuffix(n, "/"+f) {
			return true
		}
		ext := path.Ext(f)
		stem := strings.TrimSuffix(f, ext)
		switch ext {
		case ".py", ".java", ".kt":
			// pytest "tests.test_greet[.TestClass]", Surefire
			// "com.example.GreetTest": a dotted module or class path.
			dotted := strings.ReplaceAll(n, ".", "/")
			for p := dotted; p != "" && p != "." && p != "/"; p = path.Dir(p) {
				if stem == p || strings.HasSuffix(stem, "/"+p) {
					return true
				}
				if !strings.Contains(p, "/") {
					break
				}
			}
		case ".rs":
			// nextest "crate::binary" names tests/<binary>.rs.
			if _, bin, ok := strings.Cut(n, "::"); ok && path.Base(stem) == bin && path.Base(path.Dir(f)) == "tests" {
				return true
			}
		}
	}
	return false
}
