package testreport

import (
	"io/fs"
	"path"
	"regexp"
	"strings"

	"golang.org/x/mod/modfile"

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

// goTestFunc finds the top-level tests a Go test file declares; pyTestFunc
// the functions a Python file declares (methods of test classes included).
var (
	goTestFunc = regexp.MustCompile(`(?m)^func (Test\w*|Example\w*|Fuzz\w*)\(`)
	pyTestFunc = regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(`)
	// jsTitle finds the titles a JavaScript or TypeScript test file gives
	// its describe blocks and tests, when written as a plain string.
	jsTitle = regexp.MustCompile(`\b(describe|context|suite|it|test)(?:\.(?:only|skip|concurrent|sequential|todo|failing))*\(\s*` +
		`(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|` + "`" + `((?:[^` + "`" + `\\$]|\\.)*)` + "`)")
)

// maxTitles bounds the titles read from one JavaScript test file.
const maxTitles = 10000

// jsTitles are the describe and test titles a JavaScript test file declares.
type jsTitles struct {
	describes, tests map[string]bool
	// seen caches declares; suites caches, for each JUnit suite, whether
	// all its cases are the file's.
	seen   map[string]bool
	suites map[*junitSuite]bool
}

// maxCaseName and maxTitleSpaces bound the case names matched against a
// file's titles: their length and the spaces read.
const (
	maxCaseName    = 4096
	maxTitleSpaces = 64
)

// Where a test runner names files and packages from: the markers of a
// directory a runner may run in (its names in a report are relative to it).
var (
	// pytest's rootdir: an ini file, or where conftest.py or setup.py is.
	pytestRoots = []string{"pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "setup.py", "conftest.py"}
	// vitest's and jest's root: the package, or its runner's config.
	jsRoots = []string{"package.json", "vitest.config.ts", "vitest.config.js", "vitest.config.mts", "vitest.config.mjs",
		"vite.config.ts", "vite.config.js", "vite.config.mjs", "jest.config.js", "jest.config.ts", "jest.config.cjs", "jest.config.mjs", "jest.config.json"}
	// cargo's package.
	cargoRoots = []string{"Cargo.toml"}
)

// Files are the test files a task added or changed (repository-relative,
// '/'-separated), ready to be matched with a report's cases (see [NewFiles]).
type Files struct {
	paths []string
	// goDeclared holds, for each Go test file, the top-level tests it
	// declares; pyDeclared, for each Python file read, its functions.
	goDeclared, pyDeclared map[string]map[string]bool
	// goPkg is each Go test file's package import path, from the nearest
	// go.mod ("" when none is found).
	goPkg map[string]string
	// jsDeclared holds, for each JavaScript test file read, its titles.
	jsDeclared map[string]*jsTitles
	// rels are, for each file, its paths relative to the directories its
	// runner may have run in: the repository root and each directory above
	// it that holds one of its runner's markers (pytestRoots — or every
	// directory above it when none holds one —, jsRoots, cargoRoots).
	rels map[string][]string
}

// NewFiles prepares files for matching, reading what it needs from fsys (the
// tree the files are in; nil: nothing is read). Go reports name packages and
// tests, not files, so a Go case is from a `_test.go` file when the file
// declares its top-level test and the case's package is the file's: its
// module's path (the nearest go.mod) joined with the file's directory under
// it. How a case is matched to a file is docs/format.md#test-reports.
func NewFiles(files []string, fsys fs.FS) *Files {
	f := &Files{paths: files, goDeclared: map[string]map[string]bool{}, pyDeclared: map[string]map[string]bool{},
		goPkg: map[string]string{}, rels: map[string][]string{}, jsDeclared: map[string]*jsTitles{}}
	rd := &treeReader{fsys: fsys, has: map[string]bool{}, mod: map[string]string{}}
	for _, p := range files {
		switch {
		case strings.HasSuffix(p, "_test.go"):
			declared := map[string]bool{}
			if b, err := rd.read(p); err == nil {
				for _, m := range goTestFunc.FindAllSubmatch(b, -1) {
					declared[string(m[1])] = true
				}
			}
			f.goDeclared[p] = declared
			f.goPkg[p] = rd.goPackage(path.Dir(p))
		case strings.HasSuffix(p, ".py"):
			if b, err := rd.read(p); err == nil {
				declared := map[string]bool{}
				for _, m := range pyTestFunc.FindAllSubmatch(b, -1) {
					declared[string(m[1])] = true
				}
				f.pyDeclared[p] = declared
			}
			// pytest's rootdir is an ini file's directory or, without one,
			// where pytest ran: the directories above the file holding an
			// ini file, conftest.py or setup.py, or, when none does, any
			// directory above it. The function the case names tells files
			// of one name apart.
			if f.rels[p] = rd.relatives(p, pytestRoots); len(f.rels[p]) == 1 {
				f.rels[p] = rd.relatives(p, nil)
			}
		case strings.HasSuffix(p, ".rs"):
			f.rels[p] = rd.relatives(p, cargoRoots)
		default:
			f.rels[p] = rd.relatives(p, jsRoots)
			if jsTest.MatchString(path.Base(p)) {
				if b, err := rd.read(p); err == nil {
					f.jsDeclared[p] = readTitles(b)
				}
			}
		}
	}
	return f
}

// readTitles reads the plain-string titles of a JavaScript test file's
// describe blocks and tests (at most maxTitles).
func readTitles(b []byte) *jsTitles {
	t := &jsTitles{describes: map[string]bool{}, tests: map[string]bool{}, seen: map[string]bool{}, suites: map[*junitSuite]bool{}}
	for _, m := range jsTitle.FindAllSubmatch(b, maxTitles) {
		title := string(m[2]) + string(m[3]) + string(m[4])
		title = jsUnescape.Replace(title)
		switch string(m[1]) {
		case "describe", "context", "suite":
			t.describes[title] = true
		default:
			t.tests[title] = true
		}
	}
	return t
}

// jsUnescape undoes a string literal's common escapes.
var jsUnescape = strings.NewReplacer(`\'`, `'`, `\"`, `"`, "\\`", "`", `\\`, `\`)

// treeReader reads files of a tree for [NewFiles], remembering what it found.
type treeReader struct {
	fsys fs.FS
	has  map[string]bool   // path → whether it is a file of the tree
	mod  map[string]string // directory → the import path of its package ("" unknown)
}

func (t *treeReader) read(p string) ([]byte, error) {
	if t.fsys == nil {
		return nil, fs.ErrNotExist
	}
	return fs.ReadFile(t.fsys, p)
}

func (t *treeReader) exists(p string) bool {
	if ok, seen := t.has[p]; seen {
		return ok
	}
	ok := false
	if t.fsys != nil {
		st, err := fs.Stat(t.fsys, p)
		ok = err == nil && st.Mode().IsRegular()
	}
	t.has[p] = ok
	return ok
}

// goPackage is the import path of the package in directory dir: the module
// path of the nearest go.mod at or above dir joined with dir's path under it
// ("" when no go.mod is found or it names no module). A go.work workspace's
// modules are each found by their own go.mod.
func (t *treeReader) goPackage(dir string) string {
	if p, seen := t.mod[dir]; seen {
		return p
	}
	var pkg string
	if b, err := t.read(path.Join(dir, "go.mod")); err == nil {
		pkg = modfile.ModulePath(b)
	} else if dir != "." {
		if parent := t.goPackage(path.Dir(dir)); parent != "" {
			pkg = parent + "/" + path.Base(dir)
		}
	}
	t.mod[dir] = pkg
	return pkg
}

// relatives are p's paths relative to the repository root and to each
// directory above p holding one of markers (every directory above p when
// markers is nil), nearest last.
func (t *treeReader) relatives(p string, markers []string) []string {
	out := []string{p}
	var dirs []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if markers == nil {
			out = append(out, strings.TrimPrefix(p, dirs[i]+"/"))
			continue
		}
		for _, m := range markers {
			if t.exists(dirs[i] + "/" + m) {
				out = append(out, strings.TrimPrefix(p, dirs[i]+"/"))
				break
			}
		}
	}
	return out
}

// Of returns the first of the files case c is from, "" when none.
func (f *Files) Of(c Case) string {
	for _, p := range f.paths {
		if f.fromFile(c, p) {
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
			if !c.Ran() || !f.fromFile(c, p) {
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

// Collect is NewFiles(files, fsys).Collect(r).
func Collect(r *Report, files []string, fsys fs.FS) []predicate.FileCollection {
	return NewFiles(files, fsys).Collect(r)
}

// fromFile reports whether case c is from test file p.
func (f *Files) fromFile(c Case, p string) bool {
	if strings.HasSuffix(p, "_test.go") {
		if c.File != "" {
			return f.namesPath(c.File, p)
		}
		top, _, _ := strings.Cut(c.Name, "/")
		return f.goDeclared[p][top] && f.inGoPackage(p, c.Class)
	}
	if strings.HasSuffix(p, ".py") && c.Class == "" && f.pyModule(c.Name, p) {
		// pytest's case for a module that could not be collected: no
		// class, the module's dotted path as its name.
		return true
	}
	if declared, ok := f.pyDeclared[p]; ok {
		// A case of a Python file is one of its functions (pytest names a
		// parametrized case "name[params]").
		name, _, _ := strings.Cut(c.Name, "[")
		if !declared[name] {
			return false
		}
	}
	if c.File != "" {
		return f.namesPath(c.File, p)
	}
	for _, n := range []string{c.Class, c.Suite} {
		if n == "" {
			continue
		}
		// vitest and some jest-junit templates name the file itself.
		if f.namesPath(n, p) {
			return true
		}
		ext := path.Ext(p)
		switch ext {
		case ".py":
			// pytest "tests.test_greet[.TestClass]": the file's path
			// relative to pytest's rootdir, dotted.
			for _, rel := range f.rels[p] {
				dotted := strings.ReplaceAll(strings.TrimSuffix(rel, ext), "/", ".")
				if n == dotted || strings.HasPrefix(n, dotted+".") {
					return true
				}
			}
		case ".java", ".kt":
			// Surefire "com.example.GreetTest": a dotted class path under
			// the source root.
			stem := strings.TrimSuffix(p, ext)
			dotted := strings.ReplaceAll(n, ".", "/")
			for q := dotted; q != "" && q != "." && q != "/"; q = path.Dir(q) {
				if stem == q || strings.HasSuffix(stem, "/"+q) {
					return true
				}
				if !strings.Contains(q, "/") {
					break
				}
			}
		case ".rs":
			// nextest "crate::binary" names tests/<binary>.rs.
			if _, bin, ok := strings.Cut(n, "::"); ok && path.Base(strings.TrimSuffix(p, ext)) == bin && path.Base(path.Dir(p)) == "tests" {
				return true
			}
		}
	}
	return f.jestDefault(c, p)
}

// inGoPackage reports whether Go test file p is of the package with import
// path pkg: its module's path joined with its directory (without a go.mod,
// GOPATH's: a package whose path ends in the directory).
func (f *Files) inGoPackage(p, pkg string) bool {
	if mod := f.goPkg[p]; mod != "" {
		return pkg == mod
	}
	dir := path.Dir(p)
	return dir == "." || pkg == dir || strings.HasSuffix(pkg, "/"+dir)
}

// pyModule reports whether n is Python file p's module: its path relative
// to pytest's rootdir, dotted, without ".py".
func (f *Files) pyModule(n, p string) bool {
	for _, rel := range f.rels[p] {
		if n == strings.ReplaceAll(strings.TrimSuffix(rel, ".py"), "/", ".") {
			return true
		}
	}
	return false
}

// wholeFile reports whether failing case c, from file p, is a failure of the
// whole file rather than of one test: a module pytest could not collect (no
// class, the module as its name), a suite vitest or jest could not run (the
// file's path as its name).
func (f *Files) wholeFile(c Case, p string) bool {
	if strings.HasSuffix(p, ".py") {
		return c.Class == "" && f.pyModule(c.Name, p)
	}
	return f.namesPath(c.Name, p)
}

// jestDefault reports whether case c is from JavaScript test file p as
// jest-junit names cases by default — no file attribute, the suite named by
// the file's first describe title ("undefined" without one), classname and
// name "{describe titles} {test title}": every case of c's suite is a test
// p declares, within describe blocks p declares (docs/format.md#test-reports).
func (f *Files) jestDefault(c Case, p string) bool {
	t := f.jsDeclared[p]
	if t == nil || c.suite == nil || c.File != "" || c.Class != c.Name || (c.Suite != "undefined" && !t.describes[c.Suite]) {
		return false
	}
	ok, seen := t.suites[c.suite]
	if !seen {
		ok = true
		for _, n := range c.suite.names {
			if ok = t.declares(strings.TrimSpace(n)); !ok {
				break
			}
		}
		t.suites[c.suite] = ok
	}
	return ok
}

// declares reports whether name is jest-junit's default name of a test of
// t: one of its test titles, or a test title after describe titles joined by
// spaces (jest-junit's default ancestor separator), the first of which is
// one of its describe titles. The cost is bounded: at most maxCaseName bytes
// and maxTitleSpaces spaces of a name are read.
func (t *jsTitles) declares(name string) bool {
	if v, ok := t.seen[name]; ok {
		return v
	}
	v := t.tests[name]
	if !v && len(name) <= maxCaseName {
		// under: a describe title of t ends at a space before k.
		under, spaces := false, 0
		for k := 0; k < len(name) && spaces < maxTitleSpaces; k++ {
			if name[k] != ' ' {
				continue
			}
			spaces++
			under = under || t.describes[name[:k]]
			if under && t.tests[name[k+1:]] {
				v = true
				break
			}
		}
	}
	t.seen[name] = v
	return v
}

// namesPath reports whether a report's file name n is test file p: p's path
// relative to the repository root or to a directory its runner may have run
// in (see Files.rels), or an absolute path ending in p's.
func (f *Files) namesPath(n, p string) bool {
	n = strings.TrimPrefix(strings.ReplaceAll(n, "\\", "/"), "./")
	if strings.HasPrefix(n, "/") || (len(n) > 2 && n[1] == ':' && n[2] == '/') {
		return strings.HasSuffix(n, "/"+p)
	}
	if n == p {
		return true
	}
	for _, rel := range f.rels[p] {
		if n == rel {
			return true
		}
	}
	return false
}
