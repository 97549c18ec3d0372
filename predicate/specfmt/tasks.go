package specfmt

import (
	"bytes"

	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/taskproof/taskproof/predicate/gfm"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseTasks parses the tasks file of unit u
// (docs/format.md#units-and-task-lines) as GitHub renders it: CommonMark with
// GFM task list items, as github.com/yuin/goldmark reads it (predicate/gfm;
// docs/format.md#units-and-task-lines). Lines end at "\n", "\r\n" or a lone
// "\r"; a leading UTF-8 BOM is not part of line 1.
//
// A task is a list item, at any depth (nested lists, block quotes), whose first
// block starts with a box "[ ]", "[x]", "[X]" (a tab or form feed between the
// brackets is GFM's unchecked box too) or "[-]". Nothing in code (fenced or
// indented blocks, code spans) or raw HTML (blocks, comments) is a task. The ID,
// labels and title come from the line after the box's "]": when it starts with
// a task ID — "T001" for spec-kit; "1", "1.2", "2.3.1" (a trailing "." is
// dropped, a lowercase letter suffix kept: "1.2b") for OpenSpec and Kiro — that
// is the task's ID.
//
// Checkbox items without a task ID are tasks too (a merge gate that ignored
// "- [x] Add the parser" would let any ID-less tick through unchecked). Their ID
// is derived (Task.Derived): DeriveID of the task's title, the text after the box
// and the [..] markers, trimmed, so ticking the box does not change it. When
// several ID-less tasks of one file have the same title, the second gets "-2"
// appended, the third "-3", in file order. Derived IDs are ref-safe and never
// collide with written IDs (which never start with "h-").
//
// Items whose bracket is not a box ("- [P] tasks = …") are not tasks. Headings
// (ATX and setext) end a task's parent chain and OpenSpec's groups; Kiro's
// _Requirements_ lines in code or HTML blocks are ignored.
//
// Errors: ErrUnknownFormat / ErrInvalidUnit for a bad u; a *DuplicateTaskError
// (ErrDuplicateTask) naming both lines when an ID occurs twice (unless
// AllowDuplicateIDs is given: then the file parses, TasksFile.Duplicates lists
// the repeated IDs and TasksFile.Lookup refuses only those); a *LineError with ErrInvalidUTF8 when a task
// line is not valid UTF-8, with ErrNestingTooDeep when a line starts with more
// than MaxContainerPrefix columns of indentation and markers. Bad input never panics.
func ParseTasks(u Unit, content []byte, opts ...ParseOption) (*TasksFile, error) {
	if err := u.validate(); err != nil {
		return nil, err
	}
	var cfg parseConfig
	for _, o := range opts {
		o(&cfg)
	}
	if err := checkText(content); err != nil {
		return nil, err
	}
	boxes := nativeBoxes(u.Format, content)
	read, err := gfm.Read(content, len(boxes) > 0)
	if err != nil {
		return nil, err
	}
	if u.Format == Speckit {
		boxes = agentHidden(u, read, content, boxes)
	}
	lines := taskLines{read: read}
	if err := mergeNative(&lines, content, boxes); err != nil {
		return nil, err
	}
	n := 0 // the tasks: one per line with a box
	for i := range read {
		if read[i].Box >= 0 {
			n++
		}
	}
	// Derived IDs repeat in file order, the tasks GitHub shows first: a box
	// only the format's own tool reads never renumbers one GitHub shows.
	githubDerived := map[string]int{}
	if lines.toolOnly {
		for i, l := range read {
			if l.Box >= 0 && lines.reading(i) != ReadByTool {
				if t := parseTaskAt(u.Format, l.Text, l.Box, lines.end(i)); t.Derived {
					githubDerived[t.ID]++
				}
			}
		}
	}
	f := &TasksFile{Unit: u, Tasks: make([]Task, 0, n)}
	cites := u.Format.citesRequirementLines() || u.Format == BMAD
	var (
		ids         = make(map[string]idLines, n) // ID → its first and last index in f.Tasks
		dupOf       = map[string]bool{}
		parent      []int              // each task's parent's index in f.Tasks, -1 when none (formats citing requirements)
		derived     = map[string]int{} // derived base ID → ID-less tasks seen with it
		toolDerived = map[string]int{} // the same, of tasks only the format's tool reads
		own         [][]string         // each task's own _Requirements_ items
		boundary    [][]string         // each task's own _Boundary_ items
		// open is the chain of tasks since the last heading that a later line can
		// still sit under: indices into f.Tasks with strictly increasing
		// indentation. Parents and _Requirements_ lines never reach across a
		// heading.
		open  []indented
		group string
	)
	if cites {
		parent, own, boundary = make([]int, 0, n), make([][]string, 0, n), make([][]string, 0, n)
	}
	text := taskText{last: -1}
	for i, l := range read {
		if l.Box < 0 {
			text.line(l)
		}
		if l.Hidden {
			continue // code and HTML blocks hold neither tasks nor headings nor requirements
		}
		if l.Level > 0 {
			open = open[:0]
			if u.Format == OpenSpec && l.Level <= 2 {
				group = ""
				if l.Level == 2 && isGroupHeading(l.Heading) {
					group = l.Heading
				}
			}
			if l.Box < 0 {
				continue
			}
		}
		if u.Format.citesRequirementLines() && l.Box < 0 {
			list, ok := annotation(l.Text, "_Requirements:")
			to := &own
			if !ok && u.Format.kiroLike() {
				list, ok = annotation(l.Text, "_Boundary:")
				to = &boundary
			}
			if ok {
				// The nearest task indented less than the line, else the nearest task.
				if j := enclosing(open, gfm.Width(l.Text)); j >= 0 {
					(*to)[j] = append((*to)[j], splitRefs(list)...)
				} else if len(open) > 0 {
					j = open[len(open)-1].task
					(*to)[j] = append((*to)[j], splitRefs(list)...)
				}
				continue
			}
		}
		if l.Box < 0 {
			continue
		}
		t := parseTaskAt(u.Format, l.Text, l.Box, lines.end(i))
		t.LineNo = i + 1
		t.CheckedBy = l.CheckedBy
		t.Reading = lines.reading(i)
		if !utf8.ValidString(t.Line) {
			return nil, &LineError{Line: t.LineNo, Err: ErrInvalidUTF8}
		}
		w := gfm.Width(t.Line)
		pi := enclosing(open, w)
		if pi < 0 {
			if k := strings.LastIndexByte(t.ID, '.'); k > 0 && !t.Derived {
				if j, ok := ids[t.ID[:k]]; ok {
					pi = j.last // the nearest earlier task with that ID (the only one, unless it repeats)
				}
			}
		}
		if t.Derived {
			if u.Format == BMAD && pi >= 0 && !f.Tasks[pi].Derived {
				// A BMAD sub-task without a label is known by its task's
				// label and its own title, never by its position.
				t.ID = f.Tasks[pi].ID + "." + t.ID
			}
			n := 0
			if t.Reading == ReadByTool {
				toolDerived[t.ID]++
				n = githubDerived[t.ID] + toolDerived[t.ID]
			} else {
				derived[t.ID]++
				n = derived[t.ID]
			}
			if n > 1 {
				t.ID += "-" + strconv.Itoa(n)
			}
		}
		j, dup := ids[t.ID]
		if dup {
			if !cfg.allowDuplicates {
				return nil, &DuplicateTaskError{ID: t.ID, FirstLine: f.Tasks[j.first].LineNo, SecondLine: t.LineNo}
			}
			if !dupOf[t.ID] {
				dupOf[t.ID] = true
				f.Duplicates = append(f.Duplicates, &DuplicateTaskError{ID: t.ID, FirstLine: f.Tasks[j.first].LineNo, SecondLine: t.LineNo})
			}
		} else {
			j.first = len(f.Tasks)
		}
		t.Group = group
		if pi >= 0 {
			t.Parent = f.Tasks[pi].ID
		}
		for len(open) > 0 && open[len(open)-1].width >= w {
			open = open[:len(open)-1]
		}
		open = append(open, indented{task: len(f.Tasks), width: w})
		text.task(len(f.Tasks), w)
		j.last = len(f.Tasks)
		ids[t.ID] = j
		f.Tasks = append(f.Tasks, t)
		if cites {
			own = append(own, t.Requirements)
			boundary = append(boundary, nil)
			parent = append(parent, pi)
		}
	}
	for j, ls := range text.lines {
		f.Tasks[j].Text = strings.Join(ls, "\n")
	}
	if cites {
		// Parents precede their sub-tasks, so one pass in file order inherits
		// transitively.
		for i := range f.Tasks {
			if len(own[i]) > 0 {
				f.Tasks[i].Requirements = own[i]
			} else if p := parent[i]; p >= 0 {
				f.Tasks[i].Requirements = slices.Clone(f.Tasks[p].Requirements)
			}
			f.Tasks[i].Boundary = boundary[i]
		}
	}
	return f, nil
}

// CheckTasks returns the error ParseTasks(u, content, AllowDuplicateIDs())
// returns, nil when that parses, without parsing the Markdown. With duplicate
// IDs allowed, ParseTasks fails only on a bad unit, on content that is not
// text, or on a line nested deeper than MaxContainerPrefix in a file that may
// hold a box, each decided before goldmark runs; its check that a task line is
// UTF-8 cannot fail then, since lines cut at ASCII bytes out of valid UTF-8
// are valid UTF-8. For a caller that needs a file's verdict and not its tasks
// (a file known to parse as one already read).
func CheckTasks(u Unit, content []byte) error {
	if err := u.validate(); err != nil {
		return err
	}
	if err := checkText(content); err != nil {
		return err
	}
	if err := checkNative(content, nativeBoxes(u.Format, content)); err != nil {
		return err
	}
	src := bytes.TrimPrefix(content, []byte(bom))
	if len(src) == 0 || !gfm.MayHoldBox(src) {
		return nil
	}
	starts, ends := gfm.LineBounds(src)
	return gfm.CheckNesting(string(src), starts, ends)
}

// parseTaskAt reads line as a task line of format f whose box's inner character
// is at byte offset box ("[" before it) and whose "]" is at end (0: right after
// the box): the task's ID, labels and title come from the rest of the line
// after the "]".
func parseTaskAt(f Format, line string, box, end int) Task {
	t := Task{Line: line, BoxCol: box, Box: line[box]}
	if end == 0 {
		end = box + 1
	}
	after := line[end+1:]
	if f.kiroLike() && strings.HasPrefix(after, "*") {
		after = after[1:] // "- [ ]*": Kiro's optional task
	}
	rest := trimBlank(after)
	id, tail := rest, ""
	if j := strings.IndexAny(id, " \t"); j >= 0 {
		id, tail = id[:j], id[j:]
	}
	switch {
	case f == Speckit && isSpeckitID(id):
		t.ID, rest = id, tail
	case f == Speckit && len(id) > 2 && id[0] == '[' && id[len(id)-1] == ']' && isSpeckitID(id[1:len(id)-1]):
		t.ID, rest = id[1:len(id)-1], tail // "- [ ] [T001] …"
	case f == SpecWorkflow && strings.HasSuffix(id, `\.`) && isNumeric(id[:len(id)-2]):
		t.ID, rest = id[:len(id)-2], tail // "1\." as its editor escapes it
	case f != Speckit:
		if n, ok := numericID(id); ok {
			t.ID, rest = n, tail
		} else if f == BMAD {
			t.ID, rest = bmadLabel(rest)
		}
	}
	t.Derived = t.ID == ""
	rest = trimBlank(rest)
	for {
		label, n, ok := marker(rest)
		if !ok && f.kiroLike() && strings.HasPrefix(rest, "(P)") && (len(rest) == 3 || rest[3] == ' ' || rest[3] == '\t') {
			label, n, ok = "P", skipBlank(rest, 3), true // cc-sdd's parallel marker after the number
		}
		if !ok {
			break
		}
		t.Labels = append(t.Labels, label)
		if t.Story == "" && isStory(label) {
			t.Story = label
		}
		rest = rest[n:]
	}
	title := strings.TrimSpace(rest)
	if f.kiroLike() {
		if s, ok := strings.CutSuffix(title, " (P)"); ok {
			title = strings.TrimRight(s, " \t") // cc-sdd's parallel marker at the line's end
			t.Labels = append(t.Labels, "P")
		}
	}
	if f == BMAD {
		title, t.Requirements = acCitation(title)
	}
	t.Title = title
	if t.Derived {
		t.ID = DeriveID(t.Title)
	}
	return t
}

// bmadLabel reads a BMAD task's label at the start of rest: "Task 1" or
// "Subtask 1.2" (any case), bare or in bold ("**Task 1: Set up** (AC: 1)"),
// then ":", "." or a dash. It returns the label's number as the task's ID and
// the rest of the text, the bold markers around the label's text dropped;
// "" and rest when rest starts with no label.
func bmadLabel(rest string) (id, title string) {
	s := rest
	bold := ""
	for _, b := range []string{"**", "__"} {
		if strings.HasPrefix(s, b) {
			bold, s = b, s[len(b):]
			break
		}
	}
	word := ""
	for _, w := range []string{"subtask", "sub-task", "task"} {
		if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) {
			word = s[:len(w)]
			break
		}
	}
	if word == "" {
		return "", rest
	}
	s = trimBlank(s[len(word):])
	d := skipDigits(s, 0)
	for d+1 < len(s) && s[d] == '.' && isDigit(s[d+1]) {
		d = skipDigits(s, d+1)
	}
	if d == 0 {
		return "", rest
	}
	id, s = s[:d], s[d:]
	if s != "" && s[0] != ' ' && s[0] != '\t' && s[0] != ':' && s[0] != '.' && s[0] != ')' && !strings.HasPrefix(s, bold) || (bold == "" && strings.HasPrefix(s, "*")) {
		return "", rest // "Task 1a", "Tasks"
	}
	s = strings.TrimLeft(s, ":.) \t")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "—"), "-")
	if bold != "" {
		if i := strings.Index(s, bold); i >= 0 {
			s = s[:i] + s[i+len(bold):]
		}
	}
	return id, trimBlank(s)
}

// acCitation splits a BMAD task's title from the acceptance criteria it
// cites: "(AC: 1, 3)", "(AC #2)", "(ACs: 1.1.1, 1.1.2)", "(AC: all)" anywhere
// in it. The items are split on ","; "#" before an item is dropped. The
// title is returned without the citation, trimmed.
func acCitation(title string) (string, []string) {
	for i := strings.IndexByte(title, '('); i >= 0; {
		s := title[i+1:]
		if len(s) >= 2 && strings.EqualFold(s[:2], "ac") {
			s = s[2:]
			if strings.HasPrefix(s, "s") || strings.HasPrefix(s, "S") {
				s = s[1:]
			}
			if s != "" && (s[0] == ':' || s[0] == ' ' || s[0] == '#') {
				if j := strings.IndexByte(s, ')'); j >= 0 {
					var items []string
					for _, it := range strings.Split(strings.TrimLeft(s[:j], ": "), ",") {
						if it = strings.TrimLeft(strings.TrimSpace(it), "#"); it != "" {
							items = append(items, strings.TrimSpace(it))
						}
					}
					rest := title[:i] + s[j+1:]
					return strings.Join(strings.Fields(rest), " "), items
				}
			}
		}
		j := strings.IndexByte(title[i+1:], '(')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return title, nil
}

// The scanners below read the line shapes of
// docs/format.md#units-and-task-lines byte by byte. They replace regular
// expressions (a profile put regexp matching at most of ParseTasks' time and
// allocations); oracle_test.go keeps the expressions, and
// FuzzScannerDifferential checks that both agree (through parseTaskLine there).
// Each comment gives the expression the function implements. Every byte they
// look for is ASCII, so they read invalid UTF-8 as the expressions did: as
// bytes that match only "anything" classes.

// isSpeckitID reports whether s is a spec-kit task ID, ^T[0-9]+[a-z]?$: "T001",
// or with a lowercase letter suffix, "T012a".
func isSpeckitID(s string) bool {
	if len(s) < 2 || s[0] != 'T' {
		return false
	}
	d := skipDigits(s, 1)
	if d == 1 {
		return false
	}
	return d == len(s) || (d == len(s)-1 && isLower(s[d]))
}

// isNumeric reports whether s is a dotted number, ^[0-9]+(?:\.[0-9]+)*$.
func isNumeric(s string) bool {
	i := skipDigits(s, 0)
	if i == 0 {
		return false
	}
	for i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i = skipDigits(s, i+1)
	}
	return i == len(s)
}

// numericID reads an OpenSpec or Kiro task ID, ^([0-9]+(?:\.[0-9]+)*[a-z]?)\.?$:
// numeric dotted ("1", "1.2", "2.3.1"), an optional lowercase letter suffix
// ("1.2b", seen in real OpenSpec files), and an optional final "." that is not
// part of the ID. It returns the ID without that final ".".
func numericID(s string) (string, bool) {
	i := skipDigits(s, 0)
	if i == 0 {
		return "", false
	}
	for i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i = skipDigits(s, i+1)
	}
	end := i
	if end < len(s) && isLower(s[end]) {
		end++
	}
	switch {
	case end == len(s):
		return s, true
	case end == len(s)-1 && s[end] == '.':
		return s[:end], true
	}
	return "", false
}

// marker reads one leading "[..]" marker after the ID,
// ^\[([^\[\]\s]+)\](?:[ \t]+|$): no brackets or white space (tab, line feed,
// form feed, carriage return, space: RE2's \s) inside, followed by spaces and tabs
// or the end. It returns the marker's text and the length of the marker with the
// blanks after it.
func marker(s string) (label string, n int, ok bool) {
	if s == "" || s[0] != '[' {
		return "", 0, false
	}
	i := 1
	for i < len(s) {
		switch s[i] {
		case '[', ']', ' ', '\t', '\n', '\f', '\r':
		default:
			i++
			continue
		}
		break
	}
	if i == 1 || i == len(s) || s[i] != ']' {
		return "", 0, false
	}
	label = s[1:i]
	n = skipBlank(s, i+1)
	if n == i+1 && n < len(s) {
		return "", 0, false
	}
	return label, n, true
}

// isStory reports whether label is a spec-kit user story label, ^US[0-9]+$.
func isStory(label string) bool {
	return len(label) > 2 && label[0] == 'U' && label[1] == 'S' && skipDigits(label, 2) == len(label)
}

// annotation reads a Kiro-style annotation line of the given prefix, optionally
// a bullet, ^[ \t]*(?:[-*+][ \t]+)?<prefix>[ \t]*(.*?)[ \t]*_[ \t]*$: for
// "_Requirements: 1.2, 3.4_" it returns "1.2, 3.4" (the text between the colon
// and the last "_", trimmed of spaces and tabs).
func annotation(line, prefix string) (string, bool) {
	i := skipBlank(line, 0)
	if i < len(line) && (line[i] == '-' || line[i] == '*' || line[i] == '+') {
		j := skipBlank(line, i+1)
		if j == i+1 {
			return "", false
		}
		i = j
	}
	if !strings.HasPrefix(line[i:], prefix) {
		return "", false
	}
	s := strings.TrimRight(line[i+len(prefix):], " \t")
	if s == "" || s[len(s)-1] != '_' {
		return "", false
	}
	return trimBlank(strings.TrimRight(s[:len(s)-1], " \t")), true
}

// requirementsList reads a Kiro requirements line, annotation "_Requirements:".
func requirementsList(line string) (string, bool) { return annotation(line, "_Requirements:") }

// isGroupHeading reports whether an OpenSpec level-2 heading's text opens a task
// group, ^[0-9]+\.: "1. Setup".
func isGroupHeading(text string) bool {
	d := skipDigits(text, 0)
	return d > 0 && d < len(text) && text[d] == '.'
}

// skipBlank returns the offset of the first byte of s at or after i that is not a
// space or a tab (len(s) when none).
func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipDigits returns the offset of the first byte of s at or after i that is not
// an ASCII digit (len(s) when none).
func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// trimBlank returns s without its leading spaces and tabs.
func trimBlank(s string) string { return s[skipBlank(s, 0):] }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

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
// other task of the file is found as in a clean file (a line of a repeated ID is
// found by its text with LookupLine). Use it wherever tasks are looked up by ID
// (tick detection, attest, verify) and always look them up with Lookup, Find or
// LookupLine, never by scanning Tasks for the first match.
func AllowDuplicateIDs() ParseOption {
	return func(c *parseConfig) { c.allowDuplicates = true }
}

// idLines are the first and the last index in TasksFile.Tasks of a task ID's
// lines (one, unless the ID repeats).
type idLines struct{ first, last int }

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

// MaxTasksFileSize is the largest tasks file read: 4 MiB, the note limit; real
// tasks files are a few kilobytes.
const MaxTasksFileSize = 4 << 20

// checkText refuses a tasks file that is not UTF-8 text (ErrNotText, naming the
// first offending line): over MaxTasksFileSize, or holding a NUL byte or bytes
// that are not UTF-8. A UTF-16 file is one: read as UTF-8 it holds no task
// lines, while an editor or agent reading it sees the ticks.
func checkText(content []byte) error {
	if isLFSPointer(content) {
		return &LineError{Line: 1, Err: ErrLFSPointer}
	}
	if len(content) > MaxTasksFileSize {
		return fmt.Errorf("%w: it has %d bytes", ErrNotText, len(content))
	}
	bad := bytes.IndexByte(content, 0)
	if utf8.Valid(content) {
		if bad < 0 {
			return nil
		}
	} else {
		for i := 0; i < len(content); {
			r, n := utf8.DecodeRune(content[i:])
			if r == utf8.RuneError && n <= 1 {
				if bad < 0 || i < bad {
					bad = i
				}
				break
			}
			i += n
		}
	}
	return &LineError{Line: lineOf(content, bad), Err: ErrNotText}
}

// isLFSPointer reports whether content starts as a Git LFS pointer file does
// (git-lfs's spec: the first line "version " and the spec's URL; the
// pre-release "hawser" URL too).
func isLFSPointer(content []byte) bool {
	return bytes.HasPrefix(content, []byte("version https://git-lfs.github.com/spec/")) ||
		bytes.HasPrefix(content, []byte("version https://hawser.github.com/spec/"))
}

// lineOf is the 1-based line (lines end at \n, \r\n or a lone \r) holding byte off.
func lineOf(content []byte, off int) int {
	line := 1
	for i := 0; i < off && i < len(content); i++ {
		switch content[i] {
		case '\n':
			line++
		case '\r':
			if i+1 >= len(content) || content[i+1] != '\n' {
				line++
			}
		}
	}
	return line
}

// taskText gives each task its text (Task.Text): the lines, other than task
// lines, that belong to it, read line by line as a list item holds them. A
// non-blank line belongs to the nearest task above it, since the last
// heading, indented less than the line (a detail bullet, a paragraph of the
// item), unless a line indented no deeper than that task's has come in
// between (the item ended); a line with no such task that directly follows a
// line of a task, starting no list item, continues that task's paragraph (a
// lazy continuation line). Any other line belongs to no task. Code and HTML
// blocks are read as any other lines: their text is the task's.
type taskText struct {
	open  []indented // tasks whose item a later line may still be in
	last  int        // the task the previous non-blank line belongs to, -1 none
	blank bool       // a blank line since that line
	lines map[int][]string
}

// task records a task line: the task at index j of the file, indented w.
func (tt *taskText) task(j, w int) {
	for len(tt.open) > 0 && tt.open[len(tt.open)-1].width >= w {
		tt.open = tt.open[:len(tt.open)-1]
	}
	tt.open = append(tt.open, indented{task: j, width: w})
	tt.last, tt.blank = j, false
}

// line records a line that is no task line.
func (tt *taskText) line(l gfm.Line) {
	if l.Level > 0 && !l.Hidden {
		tt.open, tt.last, tt.blank = tt.open[:0], -1, false
		return
	}
	if strings.TrimSpace(l.Text) == "" {
		tt.blank = true
		return
	}
	w := gfm.Width(l.Text)
	j := -1
	if k := enclosing(tt.open, w); k >= 0 {
		j = k
		// The line is in k's item, after any deeper task's.
		for len(tt.open) > 0 && tt.open[len(tt.open)-1].width >= w {
			tt.open = tt.open[:len(tt.open)-1]
		}
	} else {
		if !tt.blank && tt.last >= 0 && !startsListItem(strings.TrimLeft(l.Text, " \t")) {
			j = tt.last
		} else {
			tt.open = tt.open[:0]
		}
	}
	tt.last, tt.blank = j, false
	if j < 0 {
		return
	}
	if tt.lines == nil {
		tt.lines = map[int][]string{}
	}
	tt.lines[j] = append(tt.lines[j], l.Text)
}

// startsListItem reports whether s (a line without its indentation) starts
// with a list marker: "-", "*" or "+", or 1–9 digits and "." or ")", followed
// by white space or the line's end.
func startsListItem(s string) bool {
	i := 0
	switch {
	case s == "":
		return false
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		i = 1
	default:
		for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i >= len(s) || (s[i] != '.' && s[i] != ')') {
			return false
		}
		i++
	}
	return i == len(s) || s[i] == ' ' || s[i] == '\t'
}
