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
	// Lang is the language of the toolchain whose message names it: only
	// that language's source files (and, for a package, its manifests)
	// introduce it; "" for any language's.
	Lang Lang
	// message is the text of the message that names it.
	message string
}

// Lang is a toolchain's language, as far as which files introduce its
// symbols goes.
type Lang string

// The languages of the toolchains whose missing-symbol messages are read.
const (
	LangGo     Lang = "go"
	LangPython Lang = "python"
	LangJS     Lang = "javascript"
	LangRust   Lang = "rust"
	LangJava   Lang = "java"
)

// sourceExts are each language's source files: the only files whose added
// lines introduce its identifiers (docs/format.md#how-a-red-run-is-classified).
var sourceExts = map[string]Lang{
	".go": LangGo,
	".py": LangPython, ".pyi": LangPython,
	".js": LangJS, ".jsx": LangJS, ".mjs": LangJS, ".cjs": LangJS, ".ts": LangJS, ".tsx": LangJS,
	".mts": LangJS, ".cts": LangJS, ".vue": LangJS, ".svelte": LangJS,
	".rs":   LangRust,
	".java": LangJava, ".kt": LangJava,
}

// manifests are each language's dependency manifests: their added lines
// introduce a package or module (a new dependency), not an identifier.
var manifests = map[string]Lang{
	"go.mod": LangGo, "go.work": LangGo,
	"pyproject.toml": LangPython, "setup.cfg": LangPython, "Pipfile": LangPython,
	"package.json": LangJS,
	"Cargo.toml":   LangRust,
}

// langOf is the language whose source file p is, or whose manifest it is
// (manifest true); "" for any other file (Markdown, a tasks file, data).
func langOf(p string) (l Lang, manifest bool) {
	base := path.Base(p)
	if l, ok := manifests[base]; ok {
		return l, true
	}
	if strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt") {
		return LangPython, true
	}
	return sourceExts[path.Ext(base)], false
}

// symbolPattern is one toolchain message naming a missing symbol: the
// submatch sub is the name (an expression for JavaScript's "is not a
// function", whose last identifier is the name).
type symbolPattern struct {
	re   *regexp.Regexp
	sub  int
	path bool
	lang Lang
}

// missingSymbols are the messages of the supported toolchains that name a
// symbol or module that does not exist (yet) — docs/format.md#how-a-red-run-is-classified
// lists them by toolchain.
var missingSymbols = []symbolPattern{
	// Go (gc and go/types).
	{re: regexp.MustCompile(`undefined: (?:\w+\.)?(\w+)`), sub: 1, lang: LangGo},
	{re: regexp.MustCompile(`has no field or method (\w+)`), sub: 1, lang: LangGo},
	{re: regexp.MustCompile(`unknown field (\w+) in struct literal`), sub: 1, lang: LangGo},
	// A value used as an interface its type does not implement yet.
	{re: regexp.MustCompile(`does not implement \S+ \(missing method (\w+)\)`), sub: 1, lang: LangGo},
	{re: regexp.MustCompile(`no required module provides package ([^\s;:]+)`), sub: 1, path: true, lang: LangGo},
	{re: regexp.MustCompile(`cannot find module providing package ([^\s;:]+)`), sub: 1, path: true, lang: LangGo},
	{re: regexp.MustCompile(`package ([^\s;:]+) is not in (?:std|GOROOT)`), sub: 1, path: true, lang: LangGo},
	// Python.
	{re: regexp.MustCompile(`ImportError: cannot import name '(\w+)'`), sub: 1, lang: LangPython},
	{re: regexp.MustCompile(`ModuleNotFoundError: No module named '([\w.]+)'`), sub: 1, path: true, lang: LangPython},
	{re: regexp.MustCompile(`NameError: name '(\w+)' is not defined`), sub: 1, lang: LangPython},
	{re: regexp.MustCompile(`AttributeError: module '[\w.]+' has no attribute '(\w+)'`), sub: 1, lang: LangPython},
	{re: regexp.MustCompile(`AttributeError: '\w+' object has no attribute '(\w+)'`), sub: 1, lang: LangPython},
	// JavaScript and TypeScript (node, vite, tsc).
	{re: regexp.MustCompile(`ReferenceError: (\w+) is not defined`), sub: 1, lang: LangJS},
	{re: regexp.MustCompile(`TypeError: (.{1,200}?) is not a function`), sub: 1, lang: LangJS},
	{re: regexp.MustCompile(`Cannot find module '([^']+)'`), sub: 1, path: true, lang: LangJS},
	{re: regexp.MustCompile(`Failed to resolve import "([^"]+)"`), sub: 1, path: true, lang: LangJS},
	{re: regexp.MustCompile(`does not provide an export named '(\w+)'`), sub: 1, lang: LangJS},
	{re: regexp.MustCompile(`has no exported member (?:named )?'(\w+)'`), sub: 1, lang: LangJS},
	{re: regexp.MustCompile(`Property '(\w+)' does not exist on type`), sub: 1, lang: LangJS},
	// TS2741, TS2420: a value (a class) lacks what the type it is used as requires.
	{re: regexp.MustCompile(`Property '(\w+)' is missing in type '[^']*' but required in type`), sub: 1, lang: LangJS},
	{re: regexp.MustCompile(`Cannot find name '(\w+)'`), sub: 1, lang: LangJS},
	// Rust (rustc: E0412, E0422, E0425, E0432, E0433, E0560, E0599, E0609).
	{re: regexp.MustCompile("cannot find (?:function|value|type|struct|macro|struct, variant or union type|trait) `(\\w+)`"), sub: 1, lang: LangRust},
	{re: regexp.MustCompile("unresolved imports? `(?:[\\w:]*::)?(\\w+)`"), sub: 1, path: true, lang: LangRust},
	{re: regexp.MustCompile("use of (?:undeclared|unresolved) (?:crate or module|type|module or unlinked crate) `(\\w+)`"), sub: 1, path: true, lang: LangRust},
	{re: regexp.MustCompile("could not find `(\\w+)` in"), sub: 1, path: true, lang: LangRust},
	{re: regexp.MustCompile("cannot find `(\\w+)` in `"), sub: 1, path: true, lang: LangRust},
	{re: regexp.MustCompile("no (?:method|function or associated item|associated item|variant or associated item|variant) named `(\\w+)`"), sub: 1, lang: LangRust},
	{re: regexp.MustCompile("has no field named `(\\w+)`"), sub: 1, lang: LangRust},
	{re: regexp.MustCompile("no field `(\\w+)` on type"), sub: 1, lang: LangRust},
	// Java (javac names the symbol on the next line).
	{re: regexp.MustCompile(`cannot find symbol`), sub: 0, lang: LangJava},
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
			s := Symbol{Path: p.path, Lang: p.lang, message: m[0]}
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
// for each language, the identifiers on the lines it added to that
// language's source files that are not test files, the path elements of the
// source files it added, and the identifiers on the lines it added to that
// language's dependency manifests (a new dependency's name). Lines added to
// any other file — Markdown, a tasks file, a changelog — introduce nothing.
// Build it with [Change.AddFile].
type Change struct {
	// words, elems and deps are by language: identifiers of added source
	// lines, path elements of added source files, identifiers of added
	// manifest lines.
	words, elems, deps map[Lang]map[string]bool
	// added are the base names of every file the change added (a
	// JavaScript import of "./data.json" names one by its extension).
	added map[string]bool
}

// NewChange returns an empty change (one that introduces nothing).
func NewChange() *Change {
	return &Change{words: map[Lang]map[string]bool{}, elems: map[Lang]map[string]bool{},
		deps: map[Lang]map[string]bool{}, added: map[string]bool{}}
}

var identRE = regexp.MustCompile(`[A-Za-z_$][\w$]*`)

// mark records key in set[l].
func mark(set map[Lang]map[string]bool, l Lang, key string) {
	if set[l] == nil {
		set[l] = map[string]bool{}
	}
	set[l][key] = true
}

// AddFile records one changed file: p is its repository-relative path, old
// its content before the change (nil for a file the change adds), new after.
// Only a language's source files and manifests count; a test file
// ([IsTestFile]) introduces nothing: a test names what it needs, it does not
// provide it. A line counts as added when old has no line equal to it; the
// cost is linear in the two files' sizes.
func (c *Change) AddFile(p string, old, new []byte) {
	if IsTestFile(p) {
		return
	}
	if old == nil {
		c.added[path.Base(p)] = true
	}
	lang, manifest := langOf(p)
	if lang == "" {
		return
	}
	words := c.words
	if manifest {
		words = c.deps
	} else if old == nil {
		// Every element of an added source file's path may be what a
		// missing package or module names ("names" of example.com/m/names,
		// "greet" of ./greet).
		for _, e := range strings.Split(p, "/") {
			mark(c.elems, lang, e)
			if ext := path.Ext(e); ext != "" {
				mark(c.elems, lang, strings.TrimSuffix(e, ext))
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
			mark(words, lang, string(w))
		}
	}
}

// Introduces reports whether the change introduces s: an identifier that an
// added line of its language's source files names, or a path whose last
// element is an element of a source file of its language the change added
// (or an identifier an added source or manifest line of its language names:
// Rust's `mod names;`, a new dependency). A JavaScript module named with an
// extension that is not a source file's ("./data.json") is introduced by an
// added file of that name. A symbol of no language ([Symbol.Lang] "") is
// introduced by any language's files. A symbol without a name cannot be
// checked and counts as introduced.
func (c *Change) Introduces(s Symbol) bool {
	if s.Name == "" {
		return true
	}
	if !s.Path {
		return c.has(c.words, s.Lang, s.Name)
	}
	name := strings.TrimRight(s.Name, "/")
	if strings.Contains(name, "/") {
		// A package path or a JavaScript module specifier ("./greet.js").
		name = path.Base(name)
		if ext := path.Ext(name); ext != "" {
			if _, source := sourceExts[ext]; !source && c.added[name] {
				return true
			}
			name = strings.TrimSuffix(name, ext)
		}
	} else if i := strings.LastIndex(name, "."); i >= 0 {
		// A dotted Python module.
		name = name[i+1:]
	}
	return c.has(c.elems, s.Lang, name) || c.has(c.words, s.Lang, name) || c.has(c.deps, s.Lang, name)
}

// has reports whether set holds key for language l (for any language when l
// is "").
func (c *Change) has(set map[Lang]map[string]bool, l Lang, key string) bool {
	if l != "" {
		return set[l][key]
	}
	for _, m := range set {
		if m[key] {
			return true
		}
	}
	return false
}
