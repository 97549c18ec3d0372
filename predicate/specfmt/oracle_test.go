package specfmt

// The regexp implementation of ParseTasks as it was before the hand-written
// scanner (tasks.go at 4f8f0c4), kept verbatim but renamed as the oracle of
// FuzzScannerDifferential and TestScannerMatchesRegexp. Do not change it.

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
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

// parseTasksRE is ParseTasks as it was, with the regexps above.
func parseTasksRE(u Unit, content []byte, opts ...ParseOption) (*TasksFile, error) {
	if err := u.validate(); err != nil {
		return nil, err
	}
	var cfg parseConfig
	for _, o := range opts {
		o(&cfg)
	}
	lines := scanMarkdown(content)
	f := &TasksFile{Unit: u}
	var (
		seen    = map[string]int{} // ID → index in f.Tasks (the last, when IDs repeat)
		first   = map[string]int{} // ID → index in f.Tasks of its first line
		dupOf   = map[string]bool{}
		parent  []int              // each task's parent's index in f.Tasks, -1 when none
		derived = map[string]int{} // derived base ID → ID-less tasks seen with it
		own     [][]string         // each task's own _Requirements_ items
		// open is the chain of tasks since the last heading that a later line can
		// still sit under: indices into f.Tasks with strictly increasing
		// indentation. Parents and _Requirements_ lines never reach across a
		// heading.
		open  []indented
		group string
	)
	for i, l := range lines {
		if l.hidden() {
			continue // fenced code and HTML comments hold neither tasks nor headings here
		}
		if l.level > 0 {
			open = open[:0]
			if u.Format == OpenSpec && l.level <= 2 {
				group = ""
				if l.level == 2 && oldGroupRE.MatchString(l.heading) {
					group = l.heading
				}
			}
			continue
		}
		if u.Format == Kiro {
			if m := oldRequirementsRE.FindStringSubmatch(l.text); m != nil {
				// The nearest task indented less than the line, else the nearest task.
				if j := enclosing(open, width(l.text)); j >= 0 {
					own[j] = append(own[j], splitRefs(m[1])...)
				} else if len(open) > 0 {
					j = open[len(open)-1].task
					own[j] = append(own[j], splitRefs(m[1])...)
				}
				continue
			}
		}
		t, ok := parseTaskLineRE(u.Format, l.text)
		if !ok {
			continue
		}
		t.LineNo = i + 1
		if !utf8.ValidString(t.Line) {
			return nil, &LineError{Line: t.LineNo, Err: ErrInvalidUTF8}
		}
		if t.Derived {
			derived[t.ID]++
			if n := derived[t.ID]; n > 1 {
				t.ID += "-" + strconv.Itoa(n)
			}
		}
		if j, dup := first[t.ID]; dup {
			if !cfg.allowDuplicates {
				return nil, &DuplicateTaskError{ID: t.ID, FirstLine: f.Tasks[j].LineNo, SecondLine: t.LineNo}
			}
			if !dupOf[t.ID] {
				dupOf[t.ID] = true
				f.Duplicates = append(f.Duplicates, &DuplicateTaskError{ID: t.ID, FirstLine: f.Tasks[j].LineNo, SecondLine: t.LineNo})
			}
		}
		t.Group = group
		w := width(t.Line)
		pi := enclosing(open, w)
		if pi < 0 {
			if k := strings.LastIndexByte(t.ID, '.'); k > 0 {
				if j, ok := seen[t.ID[:k]]; ok {
					pi = j // the nearest earlier task with that ID (the only one, unless it repeats)
				}
			}
		}
		if pi >= 0 {
			t.Parent = f.Tasks[pi].ID
		}
		for len(open) > 0 && open[len(open)-1].width >= w {
			open = open[:len(open)-1]
		}
		open = append(open, indented{task: len(f.Tasks), width: w})
		if _, ok := first[t.ID]; !ok {
			first[t.ID] = len(f.Tasks)
		}
		seen[t.ID] = len(f.Tasks)
		f.Tasks = append(f.Tasks, t)
		own = append(own, nil)
		parent = append(parent, pi)
	}
	if u.Format == Kiro {
		// Parents precede their sub-tasks, so one pass in file order inherits
		// transitively.
		for i := range f.Tasks {
			if len(own[i]) > 0 {
				f.Tasks[i].Requirements = own[i]
			} else if p := parent[i]; p >= 0 {
				f.Tasks[i].Requirements = slices.Clone(f.Tasks[p].Requirements)
			}
		}
	}
	return f, nil
}

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
