package testreport

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// A Symbol is what a toolchain's message says does not exist: an identifier
// (a function, type, value, field or method) or a package or module path.
// Name is "" when the message names none it can be checked by (Java's
// "cannot find symbol" names it on a line of its own).
type Symbol struct {
	Name string
	// Path is true for a package or module path ("example.com/m/names",
	// "./greet", "app.names"), whose last element names the directory or file
	// the change adds.
	Path bool
	// message is the text of the message that names it.
	message string
}

// symbolPattern is one toolchain message naming a missing symbol: the
// submatch sub is the name (an expression for JavaScript's "is not a
// function", whose last identifier is the name).
type symbolPattern struct {
	re   *regexp.Regexp
	sub  int
	path bool
}

// missingSymbols are the messages of the supported toolchains that name a
// symbol or module that does not exist (yet) — docs/format.md#how-a-red-run-is-classified
// lists them by toolchain.
var missingSymbols = []symbolPattern{
	// Go (gc and go/types).
	{re: regexp.MustCompile(`undefined: (?:\w+\.)?(\w+)`), sub: 1},
	{re: regexp.MustCompile(`has no field or method (\w+)`), sub: 1},
	{re: regexp.MustCompile(`unknown field (\w+) in struct literal`), sub: 1},
	{re: regexp.MustCompile(`no required module provides package ([^\s;:]+)`), sub: 1, path: true},
	{re: regexp.MustCompile(`cannot find module providing package ([^\s;:]+)`), sub: 1, path: true},
	{re: regexp.MustCompile(`package ([^\s;:]+) is not in (?:std|GOROOT)`), sub: 1, path: true},
	// Python.
	{re: regexp.MustCompile(`ImportError: cannot import name '(\w+)'`), sub: 1},
	{re: regexp.MustCompile(`ModuleNotFoundError: No module named '([\w.]+)'`), sub: 1, path: true},
	{re: regexp.MustCompile(`NameError: name '(\w+)' is not defined`), sub: 1},
	{re: regexp.MustCompile(`AttributeError: module '[\w.]+' has no attribute '(\w+)'`), sub: 1},
	{re: regexp.MustCompile(`AttributeError: '\w+' object has no attribute '(\w+)'`), sub: 1},
	// JavaScript and TypeScript (node, vite, tsc).
	{re: regexp.MustCompile(`ReferenceError: (\w+) is not defined`), sub: 1},
	{re: regexp.MustCompile(`TypeError: (.{1,200}?) is not a function`), sub: 1},
	{re: regexp.MustCompile(`Cannot find module '([^']+)'`), sub: 1, path: true},
	{re: regexp.MustCompile(`Failed to resolve import "([^"]+)"`), sub: 1, path: true},
	{re: regexp.MustCompile(`does not provide an export named '(\w+)'`), sub: 1},
	{re: regexp.MustCompile(`has no exported member (?:named )?'(\w+)'`), sub: 1},
	{re: regexp.MustCompile(`Property '(\w+)' does not exist on type`), sub: 1},
	{re: regexp.MustCompile(`Cannot find name '(\w+)'`), sub: 1},
	// Rust (rustc: E0412, E0422, E0425, E0432, E0433, E0560, E0599, E0609).
	{re: regexp.MustCompile("cannot find (?:function|value|type|struct|macro|struct, variant or union type|trait) `(\\w+)`"), sub: 1},
	{re: regexp.MustCompile("unresolved imports? `(?:[\\w:]*::)?(\\w+)`"), sub: 1, path: true},
	{re: regexp.MustCompile("use of (?:undeclared|unresolved) (?:crate or module|type|module or unlinked crate) `(\\w+)`"), sub: 1, path: true},
	{re: regexp.MustCompile("could not find `(\\w+)` in"), sub: 1, path: true},
	{re: regexp.MustCompile("cannot find `(\\w+)` in `"), sub: 1, path: true},
	{re: regexp.MustCompile("no (?:method|function or associated item|associated item|variant or associated item|variant) named `(\\w+)`"), sub: 1},
	{re: regexp.MustCompile("has no field named `(\\w+)`"), sub: 1},
	{re: regexp.MustCompile("no field `(\\w+)` on type"), sub: 1},
	// Java (javac names the symbol on the next line).
	{re: regexp.MustCompile(`cannot find symbol`), sub: 0},
}

// lastIdent is the last identifier of a JavaScript expression:
// "(0 , _greet.greet)" is greet.
var lastIdent = regexp.MustCompile(`([A-Za-z_$][\w$]*)\W*$`)

// SymbolsIn returns the missing symbols a message names, in order; none when
// it names none.
func SymbolsIn(text string) []Symbol {
	var out []Symbol
	for _, p := range missingSymbols {
		for _, m := range p.re.FindAllStringSubmatch(text, -1) {
			s := Symbol{Path: p.path, message: m[0]}
			if p.sub > 0 {
				s.Name = m[p.sub]
				if strings.HasSuffix(p.re.String(), "is not a function") {
					if id := lastIdent.FindStringSubmatch(s.Name); id != nil {
						s.Name = id[1]
					} else {
						s.Name = ""
					}
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// namesMissingSymbol reports whether text names a missing symbol.
func namesMissingSymbol(text string) bool {
	for _, p := range missingSymbols {
		if p.re.MatchString(text) {
			return true
		}
	}
	return false
}

// Change is what the green run's change introduced, for checking that a red
// run's missing symbols are ones the task adds (docs/format.md#how-a-red-run-is-classified):
// the identifiers on the lines it added to files that are not test files, and
// the path elements of the files it added. Build it with [Change.AddFile].
type Change struct {
	words map[string]bool
	elems map[string]bool
}

// NewChange returns an empty change (one that introduces nothing).
func NewChange() *Change {
	return &Change{words: map[string]bool{}, elems: map[string]bool{}}
}

var identRE = regexp.MustCompile(`[A-Za-z_$][\w$]*`)

// AddFile records one changed file: p is its repository-relative path, old
// its content before the change (nil for a file the change adds), new after.
// A test file ([IsTestFile]) introduces nothing: a test names what it needs,
// it does not provide it. A line counts as added when old has no line equal
// to it; the cost is linear in the two files' sizes.
func (c *Change) AddFile(p string, old, new []byte) {
	if IsTestFile(p) {
		return
	}
	if old == nil {
		// Every element of an added file's path may be what a missing
		// package or module names ("names" of example.com/m/names,
		// "greet" of ./greet).
		for _, e := range strings.Split(p, "/") {
			c.elems[e] = true
			if ext := path.Ext(e); ext != "" {
				c.elems[strings.TrimSuffix(e, ext)] = true
			}
		}
	}
	had := map[string]bool{}
	for _, l := range bytes.Split(old, []byte("\n")) {
		had[string(bytes.TrimSpace(l))] = true
	}
	for _, l := range bytes.Split(new, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if had[string(t)] {
			continue
		}
		for _, w := range identRE.FindAll(t, -1) {
			c.words[string(w)] = true
		}
	}
}

// Introduces reports whether the change introduces s: an identifier that an
// added line names, or a path whose last element is an element of a file
// the change added (or, for a module path, an identifier an added line
// names: Rust's `mod names;`). A symbol without a name cannot be checked and
// counts as introduced.
func (c *Change) Introduces(s Symbol) bool {
	if s.Name == "" {
		return true
	}
	if !s.Path {
		return c.words[s.Name]
	}
	name := strings.TrimRight(s.Name, "/")
	if strings.Contains(name, "/") {
		// A package path or a JavaScript module specifier ("./greet.js").
		name = path.Base(name)
		name = strings.TrimSuffix(name, path.Ext(name))
	} else if i := strings.LastIndex(name, "."); i >= 0 {
		// A dotted Python module.
		name = name[i+1:]
	}
	return c.elems[name] || c.words[name]
}
