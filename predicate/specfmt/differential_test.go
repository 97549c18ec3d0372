package specfmt

import (
	"reflect"
	"strings"
	"testing"
)

// diffSeeds are lines at the edges of the scanners: every expression's
// alternatives, lengths at its limits, blanks, invalid UTF-8.
var diffSeeds = []string{
	"- [ ] T001 Create project",
	"* [x] T002 [P] [US1] Tests",
	"+ [X] T012a x", "- [-] T1b", "- [ ] T", "- [ ] TT01", "- [ ] T01A", "- [ ] t001",
	"123456789. [ ] 1.1 nine digits", "1234567890. [ ] 1 ten digits", "1) [x] 2.3.1. deep",
	"\t+ [ ]\tT9\ttab", "  - [ ]", "- [ ]x", "- []", "- [", "-[ ] x", "- [y] x", "- [ ]  ",
	"- [ ] 1.", "- [ ] 1..", "- [ ] .1", "- [ ] 1.2b.", "- [ ] 1.2bc", "- [ ] 1.b", "- [ ] 1b.2",
	"- [ ] 01.002 x", "- [ ] 1.2.", "- [ ] 1 [P]", "- [ ] 1 [P][Q] x", "- [ ] 1 [P]x",
	"- [ ] 1 [] x", "- [ ] 1 [a b] x", "- [ ] 1 [a\fb] x", "- [ ] 1 [a\vb] x", "- [ ] 1 [US] x",
	"- [ ] 1 [US12] [US3] x", "- [ ] 1 [US1a] x", "- [ ] 1 [\xff] x", "- [ ] 1 [é] x",
	"- [ ] T001 [P]\t[US1]\t", "- [ ] T001 [P", "- [ ] \xff", "- [ ] T001 \xff\xfe",
	"_Requirements: 1.2, 3.4_", "  - _Requirements: 1.2, 3.4_  ", "-_Requirements: 1_",
	"- _Requirements:_", "_Requirements: _ _", "_Requirements:   _", "_Requirements: 1", "_Requirements:",
	"* \t_Requirements:\t1、2 _\t", "_requirements: 1_", "_Requirements: a_b_", "_Requirements: \xff_",
	"1. Setup", "1.", "1", "12.3 x", ". x", "x1.",
	"- [ ] 1.1 x\r", "- [ ]\r", "- [ ] T001\r",
}

// TestScannerMatchesRegexp runs each scanner and the expression it replaced
// (oracle_test.go) on diffSeeds and compares their results.
func TestScannerMatchesRegexp(t *testing.T) {
	for _, line := range diffSeeds {
		compareLine(t, line)
	}
}

// compareLine compares parseTaskLine, requirementsList and isGroupHeading on
// line with the regexp implementation.
func compareLine(t *testing.T, line string) {
	t.Helper()
	for _, f := range []Format{Speckit, OpenSpec, Kiro} {
		got, gok := parseTaskLine(f, line)
		want, wok := parseTaskLineRE(f, line)
		if gok != wok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s line %q: scanner %+v, %v; regexp %+v, %v", f, line, got, gok, want, wok)
		}
	}
	got, gok := requirementsList(line)
	var want string
	m := oldRequirementsRE.FindStringSubmatch(line)
	if m != nil {
		want = m[1]
	}
	if gok != (m != nil) || got != want {
		t.Fatalf("requirements line %q: scanner %q, %v; regexp %q, %v", line, got, gok, want, m != nil)
	}
	if g, w := isGroupHeading(line), oldGroupRE.MatchString(line); g != w {
		t.Fatalf("group heading %q: scanner %v, regexp %v", line, g, w)
	}
}

// FuzzScannerDifferential compares the hand-written line scanners with the
// regexps they replaced (oracle_test.go) on every line of content. Which lines
// are task lines at all is CommonMark's decision (gfm.go), held to goldmark by
// FuzzGFMTasks.
func FuzzScannerDifferential(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Join(diffSeeds, "\n")))
	f.Fuzz(func(t *testing.T, content []byte) {
		for _, line := range splitLines(content) {
			compareLine(t, line)
		}
	})
}

// parseTaskLine and checkboxItem read a line whose task box follows a bullet at
// the line's start: the line shape the regexp oracle matches. ParseTasks finds
// boxes with goldmark instead (gfm.go); these let the oracle check parseTaskAt.

// parseTaskLine reads one line as a task line of format f. A checkbox item whose
// first token is not a task ID of f gets the derived ID of its title (Derived set;
// ParseTasks numbers repeats).
func parseTaskLine(f Format, line string) (Task, bool) {
	box, _, ok := checkboxItem(line)
	if !ok {
		return Task{}, false
	}
	return parseTaskAt(f, line, box, 0), true
}

// checkboxItem matches a checkbox list item,
// ^[ \t]*([-*+]|[0-9]{1,9}[.)])[ \t]+\[([ xX-])\](?:[ \t]+(.*))?$:
// indentation, a bullet ("-", "*", "+", "1." or "1)"), white space, a box "[ ]"
// "[x]" "[X]" "[-]", then white space and the rest, or the end of the line. It
// returns the byte offset of the box's inner character and the line after the
// "]" (empty or starting with a space or tab).
func checkboxItem(line string) (box int, rest string, ok bool) {
	i := skipBlank(line, 0)
	switch {
	case i < len(line) && (line[i] == '-' || line[i] == '*' || line[i] == '+'):
		i++
	default:
		d := skipDigits(line, i)
		if d == i || d-i > 9 || d >= len(line) || (line[d] != '.' && line[d] != ')') {
			return 0, "", false
		}
		i = d + 1
	}
	j := skipBlank(line, i)
	if j == i || j+3 > len(line) || line[j] != '[' || line[j+2] != ']' {
		return 0, "", false
	}
	switch line[j+1] {
	case ' ', 'x', 'X', '-':
	default:
		return 0, "", false
	}
	rest = line[j+3:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	return j + 1, rest, true
}
