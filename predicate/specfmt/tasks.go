package specfmt

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"sort"
	"strconv"
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
// "N)", white space, a box "[ ]", "[x]", "[X]" or "[-]", then white space and the
// rest of the line, or the end of the line. When the rest starts with a task ID —
// "T001" for spec-kit; "1", "1.2", "2.3.1" (a trailing "." is dropped, a lowercase
// letter suffix kept: "1.2b") for OpenSpec and Kiro — that is the task's ID.
//
// Checkbox items without a task ID are tasks too (a merge gate that ignored
// "- [x] Add the parser" would let any ID-less tick through unchecked). Their ID
// is derived (Task.Derived): DeriveID of the task's title, the text after the box
// and the [..] markers, trimmed, so ticking the box does not change it. When
// several ID-less tasks of one file have the same title, the second gets "-2"
// appended, the third "-3", in file order. Derived IDs are ref-safe and never
// collide with written IDs (which never start with "h-").
//
// Items in fenced code blocks or HTML comments, and items whose bracket is not a
// box ("- [P] tasks = …"), are not tasks and are skipped.
//
// Errors: ErrUnknownFormat / ErrInvalidUnit for a bad u; a *DuplicateTaskError
// (ErrDuplicateTask) naming both lines when an ID occurs twice (unless
// AllowDuplicateIDs is given: then the file parses, TasksFile.Duplicates lists
// the repeated IDs and TasksFile.Lookup refuses only those); a *LineError with ErrInvalidUTF8 when a task
// line is not valid UTF-8. Bad input never panics.
func ParseTasks(u Unit, content []byte, opts ...ParseOption) (*TasksFile, error) {
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
				if l.level == 2 && groupRE.MatchString(l.heading) {
					group = l.heading
				}
			}
			continue
		}
		if u.Format == Kiro {
			if m := requirementsRE.FindStringSubmatch(l.text); m != nil {
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
		t, ok := parseTaskLine(u.Format, l.text)
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

// parseTaskLine reads one line as a task line of format f. A checkbox item whose
// first token is not a task ID of f gets the derived ID of its title (Derived set;
// ParseTasks numbers repeats).
func parseTaskLine(f Format, line string) (Task, bool) {
	m := taskLineRE.FindStringSubmatchIndex(line)
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
	case f == Speckit && speckitIDRE.MatchString(id):
		t.ID, rest = id, after
	case f != Speckit && numericIDRE.MatchString(id):
		t.ID, rest = numericIDRE.FindStringSubmatch(id)[1], after
	default:
		t.Derived = true
	}
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
	if t.Derived {
		t.ID = DeriveID(t.Title)
	}
	return t, true
}

// DeriveID returns the ID of a task line without a written task ID: "h-" and the
// first 12 lowercase hex digits of the SHA-256 of title (the task's Title: the
// text after the box and the [..] markers, trimmed). ParseTasks appends "-2",
// "-3", … to the second and later ID-less tasks of one file with the same title.
// The result is ref-safe (it may name refs/speccoder/skipped/<feature>/<task>).
func DeriveID(title string) string {
	sum := sha256.Sum256([]byte(title))
	return "h-" + hex.EncodeToString(sum[:6])
}

// ParseOption changes how ParseTasks reads a tasks file.
type ParseOption func(*parseConfig)

type parseConfig struct {
	allowDuplicates bool
}

// AllowDuplicateIDs makes ParseTasks keep every task line of a file in which a
// task ID repeats instead of failing: the file's Duplicates list each repeated ID
// (a *DuplicateTaskError naming its first two lines), and its Tasks then hold the
// same ID more than once. Only the repeated IDs are ambiguous (a subject
// "<feature>/<id>" cannot say which line it means): TasksFile.Lookup refuses
// them with their *DuplicateTaskError and Find reports them absent, while every
// other task of the file is found as in a clean file. Use it wherever tasks are
// looked up by ID (tick detection, attest, verify) and always look them up with
// Lookup or Find, never by scanning Tasks for the first match.
func AllowDuplicateIDs() ParseOption {
	return func(c *parseConfig) { c.allowDuplicates = true }
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

// indented is a task of the open chain and its indentation width.
type indented struct {
	task, width int
}

// enclosing returns the index in f.Tasks of the nearest task of the open chain
// indented less than w: the nearest such task since the last heading. -1 when none.
func enclosing(open []indented, w int) int {
	// open's widths increase strictly: the answer is the last entry below w.
	k := sort.Search(len(open), func(i int) bool { return open[i].width >= w })
	if k == 0 {
		return -1
	}
	return open[k-1].task
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
