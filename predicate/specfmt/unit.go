package specfmt

import (
	"fmt"
	"io/fs"
	pathpkg "path"
	"strings"
)

// UnitForTasksPath returns the unit whose tasks file is at path (repository-relative,
// '/'-separated, as git names it), and false when path is not a unit's tasks file
// of a built-in layout (docs/format.md#units-and-task-lines). The recognised paths
// are exactly:
//
//	specs/<feature>/tasks.md                          speckit, Dir "specs/<feature>"
//	.specify/specs/<feature>/tasks.md                 speckit, Dir ".specify/specs/<feature>"
//	openspec/changes/<id>/tasks.md                    openspec, Dir "openspec/changes/<id>" (id ≠ "archive")
//	openspec/changes/archive/<id>/tasks.md            openspec, Dir "openspec/changes/archive/<id>"
//	.kiro/specs/<name>/tasks.md                       kiro, Dir ".kiro/specs/<name>"
//	_bmad-output/implementation-artifacts/<key>.md    bmad, Dir without ".md" (key <epic>-<story>-<slug>)
//	docs/sprint-artifacts/<key>.md                    bmad, Dir without ".md" (key <epic>-<story>-<slug>)
//	docs/stories/<key>.md                             bmad, Dir without ".md" (key <epic>.<story>.<slug>)
//	agent-os/specs/<dir>/tasks.md                     agent-os, Dir "agent-os/specs/<dir>"
//	.agent-os/specs/<dir>/tasks.md                    agent-os, Dir ".agent-os/specs/<dir>"
//	.agent-os/recaps/<dir>/tasks.md                   agent-os, Dir ".agent-os/recaps/<dir>"
//	.spec-workflow/specs/<name>/tasks.md              spec-workflow, Dir ".spec-workflow/specs/<name>"
//	.spec-workflow/archive/specs/<name>/tasks.md      spec-workflow, Dir ".spec-workflow/archive/specs/<name>"
//
// Feature is Dir's last element. Any other tasks.md (templates, nested copies) is not
// a unit, nor is a path that is not clean (empty, ".", ".." elements, a leading or
// doubled '/', a backslash). It is [Layouts.Classify] with no layouts added.
func UnitForTasksPath(path string) (Unit, bool) {
	u, k := (*Layouts)(nil).Classify(path)
	return u, k == UnitTasksFile
}

// Layout is one unit layout: where a unit's tasks file is and the unit's
// format. The unit's Dir is the tasks file's directory, its Feature that
// directory's last element; for a BMAD story, whose file is its unit, Dir is
// the file's path without ".md" and Feature the story key.
type Layout struct {
	Format Format
	// Tasks is the tasks file's path pattern: '/'-separated elements, each
	// "**" (zero or more elements) or a path.Match pattern of one element
	// ("*", "00?-*", a literal name); the last element is "tasks.md" (a
	// story "*.md" for BMAD).
	Tasks string
	// not is a name the pattern's last "*" may not match (OpenSpec's
	// "archive" is not a change).
	not string
	// name, when set, must accept the file's name as well (a story key).
	name func(string) bool
}

// builtinLayouts are the unit layouts every reader knows
// (docs/format.md#units-and-task-lines); the only list of them.
var builtinLayouts = []Layout{
	{Format: Speckit, Tasks: "specs/*/tasks.md"},
	{Format: Speckit, Tasks: ".specify/specs/*/tasks.md"},
	{Format: OpenSpec, Tasks: "openspec/changes/*/tasks.md", not: "archive"},
	{Format: OpenSpec, Tasks: "openspec/changes/archive/*/tasks.md"},
	{Format: Kiro, Tasks: ".kiro/specs/*/tasks.md"},
	{Format: BMAD, Tasks: "_bmad-output/implementation-artifacts/*.md", name: storyKey("-")},
	{Format: BMAD, Tasks: "docs/sprint-artifacts/*.md", name: storyKey("-")},
	{Format: BMAD, Tasks: "docs/stories/*.md", name: storyKey(".")},
	{Format: AgentOS, Tasks: "agent-os/specs/*/tasks.md"},
	{Format: AgentOS, Tasks: ".agent-os/specs/*/tasks.md"},
	{Format: AgentOS, Tasks: ".agent-os/recaps/*/tasks.md"},
	{Format: SpecWorkflow, Tasks: ".spec-workflow/specs/*/tasks.md"},
	{Format: SpecWorkflow, Tasks: ".spec-workflow/archive/specs/*/tasks.md"},
}

// storyKey accepts a BMAD story file's name: "<epic><sep><story><sep><slug>.md",
// epic and story digits, the slug not empty ("1-2-user-login.md" in v6,
// "1.2.user-login.md" in v4).
func storyKey(sep string) func(string) bool {
	return func(name string) bool {
		s, ok := strings.CutSuffix(name, ".md")
		if !ok {
			return false
		}
		for range 2 {
			d := skipDigits(s, 0)
			if d == 0 || !strings.HasPrefix(s[d:], sep) {
				return false
			}
			s = s[d+len(sep):]
		}
		return s != ""
	}
}

// BuiltinLayouts returns a copy of the built-in unit layouts.
func BuiltinLayouts() []Layout { return append([]Layout(nil), builtinLayouts...) }

// Layouts are the unit layouts a verifier recognises: the built-in ones, then
// Extra (the verifier's policy, docs/format.md#unit-layouts-in-the-policy).
// Ignore are path patterns (as Layout.Tasks, any last element) of files named
// tasks.md that are neither units nor judged. A nil *Layouts is the built-in
// layouts alone. Safe for concurrent use once built.
type Layouts struct {
	Extra  []Layout
	Ignore []string
}

// PathKind is what [Layouts.Classify] makes of a path.
type PathKind int

// The kinds of path.
const (
	// NotTasksFile: the file is not named tasks.md (any case).
	NotTasksFile PathKind = iota
	// UnitTasksFile: a unit's tasks file (a built-in or policy layout).
	UnitTasksFile
	// UnrecognizedTasksFile: named tasks.md (any case), but no layout's and
	// not ignored: a tick in it cannot be judged and fails the gate.
	UnrecognizedTasksFile
	// IgnoredTasksFile: named tasks.md (any case) and ignored by the policy.
	IgnoredTasksFile
)

// IsTasksFileName reports whether a path element names a tasks file:
// "tasks.md" in any case.
func IsTasksFileName(name string) bool { return strings.EqualFold(name, "tasks.md") }

// Validate checks a layout: a known format and a clean pattern with no "."
// or ".." element ending in "/tasks.md" (for BMAD, in ".md": a story file).
func (l Layout) Validate() error {
	if !l.Format.Known() {
		return fmt.Errorf("%w %q", ErrUnknownFormat, l.Format)
	}
	if !fs.ValidPath(l.Tasks) || strings.Contains(l.Tasks, `\`) {
		return fmt.Errorf("%w: tasks pattern %q is not a clean repository-relative path", ErrInvalidUnit, l.Tasks)
	}
	last := l.Tasks[strings.LastIndexByte(l.Tasks, '/')+1:]
	switch {
	case l.Format.StoryFile() && (!strings.HasSuffix(last, ".md") || last == "tasks.md" || !strings.Contains(l.Tasks, "/")):
		return fmt.Errorf("%w: a %s tasks pattern names story files: %q must end in /<name>.md, not tasks.md", ErrInvalidUnit, l.Format, l.Tasks)
	case !l.Format.StoryFile() && !strings.HasSuffix(l.Tasks, "/tasks.md"):
		return fmt.Errorf("%w: tasks pattern %q does not end in /tasks.md", ErrInvalidUnit, l.Tasks)
	}
	return nil
}

// Classify tells what path (repository-relative, '/'-separated, as git names
// it) is: a unit's tasks file (with the unit), a file named tasks.md that no
// layout claims (ignored or not), or no tasks file. It is the one place units
// are resolved from paths. Built-in layouts win over Extra; the first
// matching layout gives the unit. A path that is not clean is never a unit
// (UnrecognizedTasksFile when its last element is a tasks file's name). A
// Markdown file no layout claims at the root but one could under a nested
// project root (a BMAD story under a directory of its own,
// docs/format.md#project-root-in-the-gate) is IgnoredTasksFile: a unit only
// where a project root makes it one.
func (l *Layouts) Classify(path string) (Unit, PathKind) {
	el := strings.Split(path, "/")
	name := el[len(el)-1]
	tasksName := IsTasksFileName(name)
	if !tasksName && !strings.HasSuffix(name, ".md") {
		return Unit{}, NotTasksFile
	}
	if !fs.ValidPath(path) || strings.Contains(path, `\`) {
		if tasksName {
			return Unit{}, UnrecognizedTasksFile
		}
		return Unit{}, NotTasksFile
	}
	if len(el) > 1 {
		if u, ok := l.match(el); ok {
			return u, UnitTasksFile
		}
	}
	if !tasksName {
		for k := 1; k <= MaxProjectDepth && k < len(el)-1; k++ {
			if _, ok := l.match(el[k:]); ok {
				return Unit{}, IgnoredTasksFile
			}
		}
		return Unit{}, NotTasksFile
	}
	if l != nil {
		for _, ig := range l.Ignore {
			if MatchPath(ig, path) {
				return Unit{}, IgnoredTasksFile
			}
		}
	}
	return Unit{}, UnrecognizedTasksFile
}

// IgnoresPath reports whether the verifier's policy ignores path ([unit_paths]
// ignore): a file no layout claims that is then neither a unit's nor judged.
func (l *Layouts) IgnoresPath(path string) bool {
	if l == nil {
		return false
	}
	for _, ig := range l.Ignore {
		if MatchPath(ig, path) {
			return true
		}
	}
	return false
}

// MaxProjectDepth is how many path elements a nested project root may have
// (docs/format.md#project-root): the gate's walk, the verifier's search for a
// statement's project and Classify agree on it.
const MaxProjectDepth = 4

// match is the unit of the first layout (built-in, then Extra) that claims
// the path of elements el.
func (l *Layouts) match(el []string) (Unit, bool) {
	try := func(ls []Layout) (Unit, bool) {
		for _, lay := range ls {
			if !matchLayout(strings.Split(lay.Tasks, "/"), el, lay.not) || (lay.name != nil && !lay.name(el[len(el)-1])) {
				continue
			}
			if lay.Format.StoryFile() {
				dir := strings.Join(el, "/")
				dir = dir[:len(dir)-len(".md")]
				return Unit{Format: lay.Format, Feature: dir[strings.LastIndexByte(dir, '/')+1:], Dir: dir}, true
			}
			dir := el[:len(el)-1]
			return Unit{Format: lay.Format, Feature: dir[len(dir)-1], Dir: strings.Join(dir, "/")}, true
		}
		return Unit{}, false
	}
	if u, ok := try(builtinLayouts); ok {
		return u, true
	}
	if l != nil {
		return try(l.Extra)
	}
	return Unit{}, false
}

// LayoutOf is the layout that makes path (repository-relative, or relative
// to a nested project's root) a unit's tasks file, and whether it is a
// built-in one; ok is false when none does ([Layouts.Classify]).
func (l *Layouts) LayoutOf(path string) (lay Layout, builtin, ok bool) {
	el := strings.Split(path, "/")
	if !fs.ValidPath(path) || strings.Contains(path, `\`) || len(el) < 2 {
		return Layout{}, false, false
	}
	find := func(ls []Layout) (Layout, bool) {
		for _, lay := range ls {
			if matchLayout(strings.Split(lay.Tasks, "/"), el, lay.not) && (lay.name == nil || lay.name(el[len(el)-1])) {
				return lay, true
			}
		}
		return Layout{}, false
	}
	if lay, ok := find(builtinLayouts); ok {
		return lay, true, true
	}
	if l != nil {
		if lay, ok := find(l.Extra); ok {
			return lay, false, true
		}
	}
	return Layout{}, false, false
}

// Readings names the readings of a format's tasks files, with their sources
// (docs/format.md#the-formats-own-readings): GitHub's, and the format's own
// tool's where it has one.
func Readings(f Format) []string {
	out := []string{"GitHub (goldmark 1.8 GFM task lists, cmark-gfm 0.29's differences)"}
	switch f {
	case OpenSpec:
		out = append(out, "OpenSpec 1.13 task counter (openspec list, status, archive)")
	case SpecWorkflow:
		out = append(out, "spec-workflow-mcp 2.2.7 task parser")
	case Speckit:
		out = append(out, "an agent following spec-kit's prompts (a raw line: box and task ID)")
	}
	return out
}

// Resolve is the unit a statement names (its unit.format, unit.feature and
// unit.dir, project-relative) when the layouts make that unit's tasks file
// (u.TasksPath()) a unit's of a kin format (docs/format.md#units-and-task-lines:
// Kiro and cc-sdd share one layout and reading): u itself, ok true.
func (l *Layouts) Resolve(u Unit) (Unit, bool) {
	if !u.Format.Known() || u.Dir == "" {
		return u, false
	}
	got, kind := l.Classify(u.TasksPath())
	if kind != UnitTasksFile || got.Dir != u.Dir || got.Feature != u.Feature || !got.Format.Kin(u.Format) {
		return u, false
	}
	return u, true
}

// MayHoldUnits reports whether dir ("" for the root) is a directory on some
// layout's tasks-file path: a prefix of a built-in or Extra pattern, so that a
// symbolic link or submodule there could stand for a unit's tasks file or a
// directory holding one.
func (l *Layouts) MayHoldUnits(dir string) bool {
	if dir == "" {
		return true
	}
	el := strings.Split(dir, "/")
	check := func(ls []Layout) bool {
		for _, lay := range ls {
			pat := strings.Split(lay.Tasks, "/")
			if matchPrefix(pat[:len(pat)-1], el) {
				return true
			}
		}
		return false
	}
	return check(builtinLayouts) || (l != nil && check(l.Extra))
}

// MatchPath reports whether path matches pattern (elements as Layout.Tasks:
// "**" zero or more elements, else a path.Match pattern of one element; so
// "docs/**" matches every file under docs/).
func MatchPath(pattern, path string) bool {
	return matchLayout(strings.Split(pattern, "/"), strings.Split(path, "/"), "")
}

// matchLayout matches path elements el against pattern elements pat; not, when
// not "", is a name the last "*" of pat may not match.
func matchLayout(pat, el []string, not string) bool {
	last := -1
	for i, p := range pat {
		if p == "*" {
			last = i
		}
	}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(pat) {
			switch p := pat[i]; p {
			case "**":
				for k := j; k <= len(el); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			default:
				if j >= len(el) {
					return false
				}
				if p == "*" && i == last && not != "" && el[j] == not {
					return false
				}
				if ok, err := pathpkg.Match(p, el[j]); p != el[j] && (err != nil || !ok) {
					return false
				}
			}
			i, j = i+1, j+1
		}
		return j == len(el)
	}
	return match(0, 0)
}

// matchPrefix reports whether el (a directory's elements) is a prefix of a
// path pat could match.
func matchPrefix(pat, el []string) bool {
	for i, e := range el {
		if i >= len(pat) {
			return false
		}
		if pat[i] == "**" {
			return true
		}
		if ok, err := pathpkg.Match(pat[i], e); pat[i] != e && (err != nil || !ok) {
			return false
		}
	}
	return true
}

// validate checks that u names a known format and a clean directory.
func (u Unit) validate() error {
	if !u.Format.Known() {
		return fmt.Errorf("%w %q", ErrUnknownFormat, u.Format)
	}
	if u.Dir == "." || !fs.ValidPath(u.Dir) || strings.Contains(u.Dir, `\`) {
		return fmt.Errorf("%w: dir %q is not a clean repository-relative path", ErrInvalidUnit, u.Dir)
	}
	return nil
}

// Dialect is u as taskproof writes it in a statement, at the commit fsys holds
// (rooted at u's project root): a Kiro-layout unit whose directory holds
// cc-sdd's spec.json is cc-sdd's (docs/format.md#units-and-task-lines); any
// other unit is u. Kiro and cc-sdd read a unit alike (Format.Kin), so the two
// names never disagree about a task.
func Dialect(fsys fs.FS, u Unit) Unit {
	if u.Format != Kiro {
		return u
	}
	if st, err := fs.Stat(fsys, u.Dir+"/spec.json"); err == nil && st.Mode().IsRegular() {
		u.Format = CCSDD
	}
	return u
}
