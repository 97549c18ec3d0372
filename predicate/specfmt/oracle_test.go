package specfmt

// The regexp implementation of ParseTasks's line reading as it was before the
// hand-written scanner (tasks.go at 4f8f0c4), kept verbatim but renamed as the
// oracle of FuzzScannerDifferential and TestScannerMatchesRegexp. Do not change
// it. (Its whole-file reading, a line-by-line fence and comment tracker, is gone:
// which lines are task lines is now CommonMark's decision, held to goldmark.)

import (
	"regexp"
	"strings"
)

var (
	// oldTaskLineRE is a checkbox list item: indentation, a bullet ("-", "*", "+",
	// "1." or "1)"), white space, a box "[ ]" "[x]" "[X]" "[-]", then white space and
	// the rest. Group 3 is the box's inner character, group 4 the rest.
	oldTaskLineRE = regexp.MustCompile(`^([ \t]*)([-*+]|[0-9]{1,9}[.)])[ \t]+\[([ xX-])\](?:[ \t]+(.*))?$`)
	// oldSpeckitIDRE is a spec-kit task ID: "T001" (an optional lowercase letter suffix,
	// "T012a", is accepted).
	oldSpeckitIDRE = regexp.MustCompile(`^T[0-9]+[a-z]?$`)
	// oldNumericIDRE is an OpenSpec or Kiro task ID: numeric dotted ("1", "1.2",
	// "2.3.1"), an optional lowercase letter suffix ("1.2b", seen in real OpenSpec
	// files), and an optional final "." that is not part of the ID.
	oldNumericIDRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)*[a-z]?)\.?$`)
	// oldMarkerRE is one leading "[..]" marker after the ID: no spaces or brackets
	// inside, followed by white space or the end.
	oldMarkerRE = regexp.MustCompile(`^\[([^\[\]\s]+)\](?:[ \t]+|$)`)
	// oldStoryRE is a spec-kit user story label.
	oldStoryRE = regexp.MustCompile(`^US[0-9]+$`)
	// oldRequirementsRE is a Kiro requirements line, optionally a bullet:
	// "_Requirements: 1.2, 3.4_". Group 1 is the list.
	oldRequirementsRE = regexp.MustCompile(`^[ \t]*(?:[-*+][ \t]+)?_Requirements:[ \t]*(.*?)[ \t]*_[ \t]*$`)
	// oldGroupRE is an OpenSpec group heading's text: "1. Setup".
	oldGroupRE = regexp.MustCompile(`^[0-9]+\.`)
)

// parseTaskLineRE reads one line as a task line of format f. A checkbox item whose
// first token is not a task ID of f gets the derived ID of its title (Derived set;
// ParseTasks numbers repeats).
func parseTaskLineRE(f Format, line string) (Task, bool) {
	m := oldTaskLineRE.FindStringSubmatchIndex(line)
	if m == nil {
		return Task{}, false
	}
	t := Task{Line: line, BoxCol: m[6], Box: line[m[6]]}
	var rest string
	if m[8] >= 0 {
		rest = strings.TrimLeft(line[m[8]:m[9]], " \t")
	}
	id, after := rest, ""
	if j := strings.IndexAny(id, " \t"); j >= 0 {
		id, after = id[:j], id[j:]
	}
	switch {
	case f == Speckit && oldSpeckitIDRE.MatchString(id):
		t.ID, rest = id, after
	case f != Speckit && oldNumericIDRE.MatchString(id):
		t.ID, rest = oldNumericIDRE.FindStringSubmatch(id)[1], after
	default:
		t.Derived = true
	}
	rest = strings.TrimLeft(rest, " \t")
	for {
		mm := oldMarkerRE.FindStringSubmatch(rest)
		if mm == nil {
			break
		}
		t.Labels = append(t.Labels, mm[1])
		if t.Story == "" && oldStoryRE.MatchString(mm[1]) {
			t.Story = mm[1]
		}
		rest = rest[len(mm[0]):]
	}
	t.Title = strings.TrimSpace(rest)
	if t.Derived {
		t.ID = DeriveID(t.Title)
	}
	return t, true
}
