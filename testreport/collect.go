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
// tests, at any depth of the workspace) (docs/format.md#test-reports).
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
	}
	return false
}

var jsTest = regexp.MustCompile(`\.(test|spec)\.[cm]?[jt]sx?$`)

// goTestFunc finds the top-level tests a Go test file declares.
var goTestFunc = regexp.MustCompile(`(?m)^func (Test\w*|Example\w*|Fuzz\w*)\(`)

// Collect judges each of files (repository-relative test files the task added
// or changed) against the report of a green run: a file is collected when at
// least one case from it ran (passed or failed), not_collected otherwise;
// decided_by is junit, tests counts its cases that ran, test_ids lists the first
// [MaxTestIDs] of their ids. read returns a file's content (for Go, whose
// reports name packages and tests, not files: a case is from a `_test.go` file
// when the file declares its top-level test and the package's import path ends
// in the file's directory); a read error leaves that Go file not_collected.
// How a case is matched to a file is docs/format.md#test-reports.
func Collect(r *Report, files []string, read func(path string) ([]byte, error)) []predicate.FileCollection {
	out := make([]predicate.FileCollection, 0, len(files))
	for _, f := range files {
		fc := predicate.FileCollection{Path: f, State: predicate.StateNotCollected,
			DecidedBy: predicate.Some(predicate.DecidedByJUnit), TestIDs: []string{}}
		var declared map[string]bool
		if strings.HasSuffix(f, "_test.go") && read != nil {
			if b, err := read(f); err == nil {
				declared = map[string]bool{}
				for _, m := range goTestFunc.FindAllSubmatch(b, -1) {
					declared[string(m[1])] = true
				}
			}
		}
		for _, c := range r.Cases {
			if !c.Ran() || !fromFile(c, f, declared) {
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

// fromFile reports whether case c is from test file f.
func fromFile(c Case, f string, goDeclared map[string]bool) bool {
	if c.File != "" {
		cf := strings.TrimPrefix(strings.ReplaceAll(c.File, "\\", "/"), "./")
		return cf == f || strings.HasSuffix(cf, "/"+f) || strings.HasSuffix(f, "/"+cf)
	}
	if goDeclared != nil {
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
