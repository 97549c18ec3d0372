package specfmt

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// Section returns the spec section task t of unit u cites
// (docs/format.md#hash-recipes "spec"), reading the unit's spec documents from
// fsys, which is rooted at the repository root of one commit. It returns nil,
// nil when the predicate's spec is null. Documents are split into lines as
// Rust's str::lines does (a leading UTF-8 BOM removed); the section's lines are
// joined with "\n", no trailing newline. Headings are ATX headings (up to three
// spaces, one to six '#', then a space, a tab or the end of the line) outside
// fenced code blocks (``` or ~~~, any indentation) and HTML comments (a line
// inside a comment, or starting one, is never a heading: a commented-out
// example heading neither opens nor ends a section; docs/format.md#hash-recipes
// names only code fences, this is the more secure reading). The section's text
// still includes the comment's lines that lie inside it.
//
//   - speckit: t.Story "USn" → Name "USn"; Text runs from the first heading of
//     <dir>/spec.md whose text, trimmed and lower-cased, starts with "user story n"
//     not followed by a digit, through the line before the next heading of the same
//     or a higher level (a lower or equal number of '#'). No story → nil.
//   - openspec: the requirements are the level-3 headings "### Requirement: <name>"
//     of every <dir>/specs/**/spec.md, in path order then line order. A requirement
//     is named by a text when its name, lower-cased with white space collapsed,
//     occurs in the text, lower-cased with white space collapsed, and is not glued
//     to an ASCII letter, digit or '_' on either side. The task's Title is tried
//     first, then its Group heading; among the requirements named by the first of
//     those that names any, the longest name wins, ties going to the first in path
//     order. Name = the name as written; Text = its heading through the line
//     before the next heading of level ≤ 3. None named → nil.
//   - bmad, agent-os: nil (a BMAD task's "(AC: …)" items, read into
//     t.Requirements, name criteria of the story file itself; Agent OS tasks
//     cite nothing).
//   - kiro, cc-sdd, spec-workflow: the requirement numbers of t.Requirements (each item's leading number,
//     an optional "Requirement " word before it: "3.4" → "3", "Requirement 2" →
//     "2"; items without one, free text, are ignored), distinct, in citation order →
//     Name "1,3"; Text = each number's "### Requirement N" block (the first level-3
//     heading whose text starts with "Requirement N" not followed by a digit or by
//     "." and a digit, through the line before the next heading of level ≤ 3;
//     when the document has none, the first level-3 heading starting with N,
//     or with one word and N: "要件 1", "1. Overview")
//     joined with "\n". The document is
//     <dir>/requirements.md, or (Kiro, cc-sdd) <dir>/bugfix.md when
//     requirements.md is absent and bugfix.md present. No number → nil.
//
// Errors: ErrUnknownFormat / ErrInvalidUnit for a bad u; a *SectionNotFoundError
// (ErrSectionNotFound) when a cited user story or requirement is not in the document
// or the document cannot be read; other fs errors wrapped.
func Section(fsys fs.FS, u Unit, t Task) (*SectionText, error) {
	if err := u.validate(); err != nil {
		return nil, err
	}
	switch {
	case u.Format == Speckit:
		return speckitSection(fsys, u, t)
	case u.Format == OpenSpec:
		return openspecSection(fsys, u, t)
	case u.Format.citesRequirementLines():
		return kiroSection(fsys, u, t)
	}
	// Agent OS tasks cite no section. A BMAD task's "(AC: …)" cites the
	// story's own acceptance criteria, in the tasks file the gate already
	// judges line by line, which stories rewrite after their tasks are done
	// (docs/format.md#hash-recipes): no section either.
	return nil, nil
}

func speckitSection(fsys fs.FS, u Unit, t Task) (*SectionText, error) {
	if t.Story == "" {
		return nil, nil
	}
	n := strings.TrimPrefix(t.Story, "US")
	want := "user story " + n
	p := path.Join(u.Dir, "spec.md")
	content, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, &SectionNotFoundError{Path: p, Section: want, Err: err}
	}
	lines := scanMarkdown(content)
	for i, l := range lines {
		if l.level == 0 {
			continue
		}
		h := strings.ToLower(l.heading)
		if rest, ok := strings.CutPrefix(h, want); ok && !startsWithDigit(rest) {
			return &SectionText{Name: t.Story, Text: []byte(block(lines, i, l.level))}, nil
		}
	}
	return nil, &SectionNotFoundError{Path: p, Section: want}
}

// requirement is one OpenSpec "### Requirement: <name>" block.
type requirement struct {
	name, norm, text string
}

func openspecSection(fsys fs.FS, u Unit, t Task) (*SectionText, error) {
	reqs, err := openspecRequirements(fsys, path.Join(u.Dir, "specs"))
	if err != nil {
		return nil, err
	}
	for _, text := range []string{t.Title, t.Group} {
		hay := normalize(text)
		var best *requirement
		for i := range reqs {
			r := &reqs[i]
			if (best == nil || len(r.norm) > len(best.norm)) && names(hay, r.norm) {
				best = r
			}
		}
		if best != nil {
			return &SectionText{Name: best.name, Text: []byte(best.text)}, nil
		}
	}
	return nil, nil
}

// openspecRequirements reads the requirement blocks of every spec.md under dir, in
// path order; a missing dir holds none.
func openspecRequirements(fsys fs.FS, dir string) ([]requirement, error) {
	var reqs []requirement
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || d.Name() != "spec.md" {
			return nil
		}
		content, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		lines := scanMarkdown(content)
		for i, l := range lines {
			if l.level != 3 {
				continue
			}
			name, ok := strings.CutPrefix(l.heading, "Requirement:")
			if !ok {
				continue
			}
			name = strings.TrimSpace(name)
			if norm := normalize(name); norm != "" {
				reqs = append(reqs, requirement{name: name, norm: norm, text: block(lines, i, 3)})
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("specfmt: reading delta specs under %s: %w", dir, err)
	}
	return reqs, nil
}

// normalize lower-cases s and collapses its white space to single spaces, trimmed.
func normalize(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// names reports whether needle occurs in hay not glued to an ASCII word character:
// at each end, the neighbouring byte of hay or the needle's own end byte is not an
// ASCII letter, digit or '_'.
func names(hay, needle string) bool {
	if needle == "" {
		return false
	}
	for off := 0; off <= len(hay)-len(needle); {
		i := strings.Index(hay[off:], needle)
		if i < 0 {
			return false
		}
		i += off
		j := i + len(needle)
		okL := i == 0 || !isWordByte(hay[i-1]) || !isWordByte(needle[0])
		okR := j == len(hay) || !isWordByte(hay[j]) || !isWordByte(needle[len(needle)-1])
		if okL && okR {
			return true
		}
		off = i + 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// kiroRefRE is the requirement number of one _Requirements_ item.
var kiroRefRE = regexp.MustCompile(`^(?i:requirements?[ \t]*)?([0-9]+)`)

// RequirementNumbers returns the distinct requirement numbers cited by Kiro
// _Requirements_ items, in citation order: each item's leading number, optionally
// after the word "Requirement" ("3.4" → "3", "Requirement 2" → "2"). Items without
// a leading number (free text) cite none (docs/format.md#hash-recipes, Kiro).
func RequirementNumbers(refs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		m := kiroRefRE.FindStringSubmatch(strings.TrimSpace(r))
		if m == nil || seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		out = append(out, m[1])
	}
	return out
}

func kiroSection(fsys fs.FS, u Unit, t Task) (*SectionText, error) {
	nums := RequirementNumbers(t.Requirements)
	if len(nums) == 0 {
		return nil, nil
	}
	p := path.Join(u.Dir, "requirements.md")
	content, err := fs.ReadFile(fsys, p)
	if errors.Is(err, fs.ErrNotExist) && u.Format.kiroLike() {
		if b, berr := fs.ReadFile(fsys, path.Join(u.Dir, "bugfix.md")); berr == nil {
			p, content, err = path.Join(u.Dir, "bugfix.md"), b, nil
		}
	}
	if err != nil {
		return nil, &SectionNotFoundError{Path: p, Section: "Requirement " + nums[0], Err: err}
	}
	lines := scanMarkdown(content)
	texts := make([]string, 0, len(nums))
	for _, n := range nums {
		i := requirementHeading(lines, n, func(h string) (string, bool) { return strings.CutPrefix(h, "Requirement "+n) })
		if i < 0 {
			// Specs written in another language, or with bare numbers
			// ("### 要件 1:", "### 1. Overview"), as cc-sdd's template allows.
			i = requirementHeading(lines, n, func(h string) (string, bool) { return numberedHeading(h, n) })
		}
		if i < 0 {
			return nil, &SectionNotFoundError{Path: p, Section: "Requirement " + n}
		}
		texts = append(texts, block(lines, i, 3))
	}
	return &SectionText{Name: strings.Join(nums, ","), Text: []byte(strings.Join(texts, "\n"))}, nil
}

// requirementHeading is the index of the first level-3 heading of lines that
// cut (the heading's text → what follows the requirement number, and whether
// it names one) takes for requirement n: the number not followed by a digit
// or by "." and a digit. -1 when none.
func requirementHeading(lines []mdLine, n string, cut func(string) (string, bool)) int {
	for i, l := range lines {
		if l.level != 3 {
			continue
		}
		if rest, ok := cut(l.heading); ok && !startsWithDigit(rest) && !(strings.HasPrefix(rest, ".") && startsWithDigit(rest[1:])) {
			return i
		}
	}
	return -1
}

// numberedHeading cuts requirement number n from a heading that starts with
// it, or with one word (no white space or digit in it) and white space
// before it: "1. Overview", "要件1: …", "要件 1: …", "需求 1".
func numberedHeading(h, n string) (string, bool) {
	if rest, ok := strings.CutPrefix(h, n); ok {
		return rest, true
	}
	word := strings.IndexFunc(h, func(r rune) bool { return r == ' ' || r == '\t' || (r >= '0' && r <= '9') })
	if word <= 0 {
		return "", false
	}
	return strings.CutPrefix(strings.TrimLeft(h[word:], " \t"), n)
}
