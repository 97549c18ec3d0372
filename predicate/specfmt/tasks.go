package specfmt

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

var (
	// taskLineRE is a checkbox list item: indentation, a bullet ("-", "*", "+",
	// "1." or "1)"), white space, a box "[ ]" "[x]" "[X]" "[-]", then white space and
	// the rest. Group 3 is the box's inner character, group 4 the rest.
	taskLineRE = regexp.MustCompile(`^([ \t]*)([-*+]|[0-9]{1,9}[.)])[ \t]+\[([ xX-])\](?:[ \t]+(.*))?$`)
	// speckitIDRE is a spec-kit task ID: "T001" (an optional lowercase letter suffix,
	// "T012a", is accepted).
	speckitIDRE = regexp.MustCompile(`^T[0-9]+[a-z]?$`)
	// numericIDRE is an OpenSpec or Kiro task ID: numeric dotted ("1", "1.2",
	// "2.3.1"), an optional lowercase letter suffix ("1.2b", seen in real OpenSpec
	// files), and an optional final "." that is not part of the ID.
	numericIDRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)*[a-z]?)\.?$`)
	// markerRE is one leading "[..]" marker after the ID: no spaces or brackets
	// inside, followed by white space or the end.
	markerRE = regexp.MustCompile(`^\[([^\[\]\s]+)\](?:[ \t]+|$)`)
	// storyRE is a spec-kit user story label.
	storyRE = regexp.MustCompile(`^US[0-9]+$`)
	// requirementsRE is a Kiro requirements line, optionally a bullet:
	// "_Requirements: 1.2, 3.4_". Group 1 is the list.
	requirementsRE = regexp.MustCompile(`^[ \t]*(?:[-*+][ \t]+)?_Requirements:[ \t]*(.*?)[ \t]*_[ \t]*$`)
	// groupRE is an OpenSpec group heading's text: "1. Setup".
	groupRE = regexp.MustCompile(`^[0-9]+\.`)
)

// ParseTasks parses the tasks file of unit u (SPEC §1, §4). content may use LF or
// CRLF line endings and may start with a UTF-8 BOM.
//
// A task line is a list item, at any indentation, with bullet "-", "*", "+", "N." or
// "N)", white space, a box "[ ]", "[x]", "[X]" or "[-]", white space, then the task
// ID as the first token: "T001" for spec-kit; "1", "1.2", "2.3.1" (a trailing "." is
// dropped, a lowercase letter suffix kept: "1.2b") for OpenSpec and Kiro. Items in
// fenced code blocks or HTML comments, items whose bracket is not a box ("- [P] …"),
// and items without a task ID are not tasks and are skipped.
//
// Errors: ErrUnknownFormat / ErrInvalidUnit for a bad u; a *DuplicateTaskError
// (ErrDuplicateTask) naming both lines when an ID occurs twice; a *LineError with
// ErrInvalidUTF8 when a task line is not valid UTF-8. Bad input never panics.
func ParseTasks(u Unit, content []byte) (*TasksFile, error) {
	if err := u.validate(); err != nil {
		return nil, err
	}
	lines := scanMarkdown(content)
	f := &TasksFile{Unit: u}
	var (
		seen   = map[string]int{} // ID → index in f.Tasks
		indent []int              // indentation width of each task
		own    [][]string         // each task's own _Requirements_ items
		// scope is the index in f.Tasks of the first task after the last heading:
		// parents and _Requirements_ lines never reach across a heading.
		scope int
		group string
	)
	for i, l := range lines {
		if l.level > 0 {
			scope = len(f.Tasks)
			if u.Format == OpenSpec && l.level <= 2 {
				group = ""
				if l.level == 2 && groupRE.MatchString(l.heading) {
					group = l.heading
				}
			}
			continue
		}
		if l.hidden() {
			continue
		}
		if u.Format == Kiro {
			if m := requirementsRE.FindStringSubmatch(l.text); m != nil {
				if owner := requirementsOwner(indent, scope, width(l.text)); owner >= 0 {
					own[owner] = append(own[owner], splitRefs(m[1])...)
				}
				continue
			}
		}
		t, ok := parseTaskLine(u.Format, l.text)
		if !ok {
			continue
		}
		t.LineNo = i + 1
		if !utf8.ValidString(t.Line) {
			return nil, &LineError{Line: t.LineNo, Err: ErrInvalidUTF8}
		}
		if j, dup := seen[t.ID]; dup {
			return nil, &DuplicateTaskError{ID: t.ID, FirstLine: f.Tasks[j].LineNo, SecondLine: t.LineNo}
		}
		t.Group = group
		t.Parent = parentOf(f.Tasks, indent, scope, width(t.Line), t.ID, seen)
		seen[t.ID] = len(f.Tasks)
		f.Tasks = append(f.Tasks, t)
		indent = append(indent, width(t.Line))
		own = append(own, nil)
	}
	if u.Format == Kiro {
		// Parents precede their sub-tasks, so one pass in file order inherits
		// transitively.
		for i := range f.Tasks {
			if len(own[i]) > 0 {
				f.Tasks[i].Requirements = own[i]
			} else if p := f.Tasks[i].Parent; p != "" {
				f.Tasks[i].Requirements = f.Tasks[seen[p]].Requirements
			}
		}
	}
	return f, nil
}

// parseTaskLine reads one line as a task line of format f.
func parseTaskLine(f Format, line string) (Task, bool) {
	m := taskLineRE.FindStringSubmatchIndex(line)
	if m == nil || m[8] < 0 {
		return Task{}, false
	}
	id := strings.TrimLeft(line[m[8]:m[9]], " \t")
	var rest string
	if j := strings.IndexAny(id, " \t"); j >= 0 {
		id, rest = id[:j], id[j:]
	}
	switch f {
	case Speckit:
		if !speckitIDRE.MatchString(id) {
			return Task{}, false
		}
	default:
		sm := numericIDRE.FindStringSubmatch(id)
		if sm == nil {
			return Task{}, false
		}
		id = sm[1]
	}
	t := Task{ID: id, Line: line, BoxCol: m[6], Box: line[m[6]]}
	rest = strings.TrimLeft(rest, " \t")
	for {
		mm := markerRE.FindStringSubmatch(rest)
		if mm == nil {
			break
		}
		t.Labels = append(t.Labels, mm[1])
		if t.Story == "" && storyRE.MatchString(mm[1]) {
			t.Story = mm[1]
		}
		rest = rest[len(mm[0]):]
	}
	t.Title = strings.TrimSpace(rest)
	return t, true
}

// width is the indentation width of line in columns, a tab counting to the next
// multiple of four.
func width(line string) int {
	w := 0
	for _, c := range []byte(line) {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return w
}

// parentOf finds the enclosing task of a task with indentation w and ID id among
// tasks[scope:]: the nearest preceding task indented less; when none, the task whose
// ID is id without its last dotted component ("17" for "17.1"), if it precedes.
func parentOf(tasks []Task, indent []int, scope, w int, id string, seen map[string]int) string {
	for j := len(tasks) - 1; j >= scope; j-- {
		if indent[j] < w {
			return tasks[j].ID
		}
	}
	if k := strings.LastIndexByte(id, '.'); k > 0 {
		if j, ok := seen[id[:k]]; ok {
			return tasks[j].ID
		}
	}
	return ""
}

// requirementsOwner picks the task a Kiro _Requirements_ line at indentation w
// belongs to: the nearest preceding task (since the last heading) indented less than
// the line, else the nearest preceding task; -1 when none.
func requirementsOwner(indent []int, scope, w int) int {
	for j := len(indent) - 1; j >= scope; j-- {
		if indent[j] < w {
			return j
		}
	}
	if len(indent) > scope {
		return len(indent) - 1
	}
	return -1
}

// splitRefs splits a _Requirements_ list on "," (and the Japanese "、"), trimming
// each item and dropping empty ones.
func splitRefs(s string) []string {
	var out []string
	for _, r := range strings.FieldsFunc(s, func(c rune) bool { return c == ',' || c == '、' }) {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}
