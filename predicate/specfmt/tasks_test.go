package specfmt

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var (
	skUnit = Unit{Format: Speckit, Feature: "007-config", Dir: "specs/007-config"}
	osUnit = Unit{Format: OpenSpec, Feature: "add-x", Dir: "openspec/changes/add-x"}
	kiUnit = Unit{Format: Kiro, Feature: "auth", Dir: ".kiro/specs/auth"}
)

func TestUnitForTasksPath(t *testing.T) {
	tests := []struct {
		path string
		want Unit
		ok   bool
	}{
		{"specs/007-config/tasks.md", Unit{Speckit, "007-config", "specs/007-config"}, true},
		{".specify/specs/001-x/tasks.md", Unit{Speckit, "001-x", ".specify/specs/001-x"}, true},
		{"openspec/changes/add-auth/tasks.md", Unit{OpenSpec, "add-auth", "openspec/changes/add-auth"}, true},
		{"openspec/changes/archive/2026-01-23-add-auth/tasks.md", Unit{OpenSpec, "2026-01-23-add-auth", "openspec/changes/archive/2026-01-23-add-auth"}, true},
		{".kiro/specs/auth/tasks.md", Unit{Kiro, "auth", ".kiro/specs/auth"}, true},
		// Not units.
		{"openspec/changes/archive/tasks.md", Unit{}, false},
		{"specs/tasks.md", Unit{}, false},
		{"tasks.md", Unit{}, false},
		{".specify/templates/tasks.md", Unit{}, false},
		{".specify/templates/tasks-template.md", Unit{}, false},
		{"specs/007-config/sub/tasks.md", Unit{}, false},
		{"docs/specs/007-config/tasks.md", Unit{}, false},
		{"specs/007-config/TASKS.md", Unit{}, false},
		{"specs/007-config/spec.md", Unit{}, false},
		{".kiro/specs/auth/requirements.md", Unit{}, false},
		{"openspec/specs/auth/tasks.md", Unit{}, false},
		{"openspec/changes/archive/x/y/tasks.md", Unit{}, false},
		// Unclean paths.
		{"/specs/007-config/tasks.md", Unit{}, false},
		{"specs//tasks.md", Unit{}, false},
		{"specs/../tasks.md", Unit{}, false},
		{"specs/./tasks.md", Unit{}, false},
		{"specs/a\\b/tasks.md", Unit{}, false},
		{"", Unit{}, false},
	}
	for _, tt := range tests {
		got, ok := UnitForTasksPath(tt.path)
		if ok != tt.ok || got != tt.want {
			t.Errorf("UnitForTasksPath(%q) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

// taskSummary is what the table tests compare: the fields of one Task.
type taskSummary struct {
	ID     string
	LineNo int
	Box    byte
	Title  string
	Labels []string
	Story  string
	Reqs   []string
	Group  string
	Parent string
	Open   string // OpenLine()
}

// summarize also checks that Derived is set exactly for the "h-" IDs.
func summarize(t *testing.T, f *TasksFile) []taskSummary {
	t.Helper()
	var out []taskSummary
	for _, tk := range f.Tasks {
		if tk.Derived != strings.HasPrefix(tk.ID, "h-") {
			t.Errorf("task %s (line %d): Derived = %v", tk.ID, tk.LineNo, tk.Derived)
		}
		out = append(out, taskSummary{tk.ID, tk.LineNo, tk.Box, tk.Title, tk.Labels, tk.Story, tk.Requirements, tk.Group, tk.Parent, tk.OpenLine()})
	}
	return out
}

func TestParseTasks(t *testing.T) {
	tests := []struct {
		name    string
		unit    Unit
		content string
		want    []taskSummary
	}{
		{
			name: "speckit bullets boxes labels",
			unit: skUnit,
			content: "# Tasks\n\n## Format: `- [ ] [ID] [P?] [Story] Description`\n" +
				"- **Checkbox**: `- [ ]` (markdown task checkbox)\n" +
				"- [ ] T001 Create project\n" +
				"* [x] T002 [P] Configure lint\n" +
				"+ [X] T003 [P] [US1] Write tests in `tests/a.ts`\n" +
				"1. [-] T004 [US12] Numbered bullet\n" +
				"2) [ ] T005\n" +
				"    - [ ] T006 [P]   Indented   \n" +
				"\t- [x]\tT007\tTabbed\n",
			want: []taskSummary{
				{"T001", 5, ' ', "Create project", nil, "", nil, "", "", "- [ ] T001 Create project"},
				{"T002", 6, 'x', "Configure lint", []string{"P"}, "", nil, "", "", "* [ ] T002 [P] Configure lint"},
				{"T003", 7, 'X', "Write tests in `tests/a.ts`", []string{"P", "US1"}, "US1", nil, "", "", "+ [ ] T003 [P] [US1] Write tests in `tests/a.ts`"},
				{"T004", 8, '-', "Numbered bullet", []string{"US12"}, "US12", nil, "", "", "1. [ ] T004 [US12] Numbered bullet"},
				{"T005", 9, ' ', "", nil, "", nil, "", "", "2) [ ] T005"},
				{"T006", 10, ' ', "Indented", []string{"P"}, "", nil, "", "T005", "    - [ ] T006 [P]   Indented   "},
				{"T007", 11, 'x', "Tabbed", nil, "", nil, "", "T005", "\t- [ ]\tT007\tTabbed"},
			},
		},
		{
			name:    "CRLF and BOM",
			unit:    skUnit,
			content: "\ufeff- [X] T001 First\r\n- [ ] T002 Second \r\n\r\n",
			want: []taskSummary{
				{"T001", 1, 'X', "First", nil, "", nil, "", "", "- [ ] T001 First"},
				{"T002", 2, ' ', "Second", nil, "", nil, "", "", "- [ ] T002 Second "},
			},
		},
		{
			// Items without a task ID are tasks with a derived ID: "h-" + the
			// first 12 hex digits of sha256(title), computed with
			// python3 -c "import hashlib; print(hashlib.sha256(b'...').hexdigest()[:12])".
			name: "look-alikes and items without ID",
			unit: skUnit,
			content: "- [P] tasks = parallel\n" +
				"- [ ] Do something without ID\n" +
				"- [ ]T001 no space\n" +
				"- [y] T002 not a box\n" +
				"-[ ] T003 no space after bullet\n" +
				"- [ ] t004 lower case\n" +
				"- [ ] T005: colon glued\n" +
				"- [ ] 1.1 numeric in speckit\n" +
				"- [  ] T006 wide box\n" +
				"- [x] **T007** bold\n" +
				"> - [ ] T008 quoted\n" +
				"- [ ] T009 real",
			want: []taskSummary{
				{"h-f0665eca8b8a", 2, ' ', "Do something without ID", nil, "", nil, "", "", "- [ ] Do something without ID"},
				// GFM (goldmark) renders a box glued to the text as a checkbox.
				{"T001", 3, ' ', "no space", nil, "", nil, "", "", "- [ ]T001 no space"},
				{"h-a06a13fe3835", 6, ' ', "t004 lower case", nil, "", nil, "", "", "- [ ] t004 lower case"},
				{"h-164fcd78ae56", 7, ' ', "T005: colon glued", nil, "", nil, "", "", "- [ ] T005: colon glued"},
				{"h-e68b4f01baa5", 8, ' ', "1.1 numeric in speckit", nil, "", nil, "", "", "- [ ] 1.1 numeric in speckit"},
				{"h-bd854d528432", 10, 'x', "**T007** bold", nil, "", nil, "", "", "- [ ] **T007** bold"},
				// A task list item in a block quote is a task list item.
				{"T008", 11, ' ', "quoted", nil, "", nil, "", "", "> - [ ] T008 quoted"},
				{"T009", 12, ' ', "real", nil, "", nil, "", "", "- [ ] T009 real"},
			},
		},
		{
			name: "code fences and HTML comments",
			unit: skUnit,
			content: "```markdown\n- [ ] T001 in fence\n```\n" +
				"~~~~\n- [ ] T002 in tilde fence\n~~~\n- [ ] T003 still in fence (short close)\n~~~~~\n" +
				"  ```\n  - [ ] T004 indented fence\n  ```\n" +
				"```js ```\n- [ ] T005 after a non-fence (backtick in info)\n" +
				"<!-- - [ ] T006 one-line comment -->\n" +
				"<!--\n- [ ] T007 in comment\n-->\n" +
				"- [ ] T008 trailing comment <!-- note -->\n" +
				"- [ ] T009 opens a comment <!--\n- [ ] T010 inside\n--> - [ ] T011 closing line\n" +
				"<!-- a --> <!-- b\n- [ ] T012 inside second\n-->\n" +
				"- [ ] T013 last\n",
			want: []taskSummary{
				{"T005", 13, ' ', "after a non-fence (backtick in info)", nil, "", nil, "", "", "- [ ] T005 after a non-fence (backtick in info)"},
				{"T008", 18, ' ', "trailing comment <!-- note -->", nil, "", nil, "", "", "- [ ] T008 trailing comment <!-- note -->"},
				{"T009", 19, ' ', "opens a comment <!--", nil, "", nil, "", "", "- [ ] T009 opens a comment <!--"},
				// "<!--" inside a paragraph is inline HTML that cannot span blocks:
				// the next item is a task.
				{"T010", 20, ' ', "inside", nil, "", nil, "", "", "- [ ] T010 inside"},
				// An HTML comment block ends at the first line holding "-->",
				// the line that opens it included.
				{"T012", 23, ' ', "inside second", nil, "", nil, "", "", "- [ ] T012 inside second"},
				{"T013", 25, ' ', "last", nil, "", nil, "", "", "- [ ] T013 last"},
			},
		},
		{
			name:    "unclosed fence runs to the end",
			unit:    skUnit,
			content: "- [ ] T001 before\n```\n- [ ] T002 after\n",
			want: []taskSummary{
				{"T001", 1, ' ', "before", nil, "", nil, "", "", "- [ ] T001 before"},
			},
		},
		{
			name: "openspec groups and IDs",
			unit: osUnit,
			content: "# Tasks: Add X\n\n## 1. Setup\n- [x] 1.1 Create the `Run Lock File` helper\n" +
				"- [ ] 1.2b Suffixed ID\n  - [x] Test: sub-item without ID\n" +
				"### Details\n- [ ] 1.3. Trailing dot\n" +
				"## Notes\n- [ ] 2.1 Outside any group\n" +
				"## 2. Second group\n1. [ ] 2.2.1 Deep ID\n- [ ] T001 spec-kit ID in OpenSpec\n",
			want: []taskSummary{
				{"1.1", 4, 'x', "Create the `Run Lock File` helper", nil, "", nil, "1. Setup", "", "- [ ] 1.1 Create the `Run Lock File` helper"},
				{"1.2b", 5, ' ', "Suffixed ID", nil, "", nil, "1. Setup", "", "- [ ] 1.2b Suffixed ID"},
				{"h-b890360cbffd", 6, 'x', "Test: sub-item without ID", nil, "", nil, "1. Setup", "1.2b", "  - [ ] Test: sub-item without ID"},
				{"1.3", 8, ' ', "Trailing dot", nil, "", nil, "1. Setup", "", "- [ ] 1.3. Trailing dot"},
				{"2.1", 10, ' ', "Outside any group", nil, "", nil, "", "", "- [ ] 2.1 Outside any group"},
				{"2.2.1", 12, ' ', "Deep ID", nil, "", nil, "2. Second group", "", "1. [ ] 2.2.1 Deep ID"},
				{"h-86bfa9f6b105", 13, ' ', "T001 spec-kit ID in OpenSpec", nil, "", nil, "2. Second group", "", "- [ ] T001 spec-kit ID in OpenSpec"},
			},
		},
		{
			// Repeated titles are numbered in file order; ticking does not change
			// the ID (the box is not part of the title); markers after the box are
			// labels; an empty item is a task with the empty title; a written ID
			// and a derived one never collide.
			name: "derived IDs repeat, labels, empty title",
			unit: skUnit,
			content: "## Phase 1\n- [x] Add the parser\n- [ ] T001 Add the parser\n" +
				"- [ ] Add the parser  \n* [X]\tAdd the parser\n" +
				"- [ ] [P] [US2] Write docs\n- [x]\n- [ ] \n" +
				"<!-- - [ ] Add the parser -->\n",
			want: []taskSummary{
				{"h-44f8786eea03", 2, 'x', "Add the parser", nil, "", nil, "", "", "- [ ] Add the parser"},
				{"T001", 3, ' ', "Add the parser", nil, "", nil, "", "", "- [ ] T001 Add the parser"},
				{"h-44f8786eea03-2", 4, ' ', "Add the parser", nil, "", nil, "", "", "- [ ] Add the parser  "},
				{"h-44f8786eea03-3", 5, 'X', "Add the parser", nil, "", nil, "", "", "* [ ]\tAdd the parser"},
				{"h-345b88bffbe2", 6, ' ', "Write docs", []string{"P", "US2"}, "US2", nil, "", "", "- [ ] [P] [US2] Write docs"},
				{"h-e3b0c44298fc", 7, 'x', "", nil, "", nil, "", "", "- [ ]"},
				{"h-e3b0c44298fc-2", 8, ' ', "", nil, "", nil, "", "", "- [ ] "},
			},
		},
		{
			// An ID-less Kiro sub-task inherits its parent's requirements; an
			// ID-less parent passes its own to a written sub-task.
			name: "kiro derived IDs nest",
			unit: kiUnit,
			content: "- [ ] 1. Parent\n  - _Requirements: 2.1_\n  - [x] Write docs\n" +
				"- [ ] Add the parser\n  - _Requirements: 3_\n  - [ ] 2.1 Child of a derived task\n",
			want: []taskSummary{
				{"1", 1, ' ', "Parent", nil, "", []string{"2.1"}, "", "", "- [ ] 1. Parent"},
				{"h-345b88bffbe2", 3, 'x', "Write docs", nil, "", []string{"2.1"}, "", "1", "  - [ ] Write docs"},
				{"h-44f8786eea03", 4, ' ', "Add the parser", nil, "", []string{"3"}, "", "", "- [ ] Add the parser"},
				{"2.1", 6, ' ', "Child of a derived task", nil, "", []string{"3"}, "", "h-44f8786eea03", "  - [ ] 2.1 Child of a derived task"},
			},
		},
		{
			name: "kiro nesting and requirements",
			unit: kiUnit,
			content: "# 実装計画\n\n" +
				"- [x] 1. データ永続化層の実装\n  - 説明\n  - _Requirements: 4.1, 4.2_\n\n" +
				"  - [ ] 1.1 Nested without requirements\n" +
				"  - [-] 1.2 Nested with own\n    - _Requirements: 5.1_\n" +
				"  - [x] 1.3 Nested, then a sibling-level requirements line\n  - _Requirements: 6.1_\n" +
				"- [ ] 2. Top without requirements\n\n" +
				"- [ ] 2.1 Flat sub-task inherits by ID\n" +
				"- [ ] 3. Japanese comma\n  - _Requirements: Requirement 2、3_\n" +
				"- [ ] 3.1 Free text\n  - _Requirements: コード品質保証_\n" +
				"```\n  - _Requirements: 9.9_\n```\n" +
				"## Next\n  - _Requirements: 7.1_\n- [ ] 4. After heading\n",
			want: []taskSummary{
				{"1", 3, 'x', "データ永続化層の実装", nil, "", []string{"4.1", "4.2", "6.1"}, "", "", "- [ ] 1. データ永続化層の実装"},
				{"1.1", 7, ' ', "Nested without requirements", nil, "", []string{"4.1", "4.2", "6.1"}, "", "1", "  - [ ] 1.1 Nested without requirements"},
				{"1.2", 8, '-', "Nested with own", nil, "", []string{"5.1"}, "", "1", "  - [ ] 1.2 Nested with own"},
				{"1.3", 10, 'x', "Nested, then a sibling-level requirements line", nil, "", []string{"4.1", "4.2", "6.1"}, "", "1", "  - [ ] 1.3 Nested, then a sibling-level requirements line"},
				{"2", 12, ' ', "Top without requirements", nil, "", nil, "", "", "- [ ] 2. Top without requirements"},
				{"2.1", 14, ' ', "Flat sub-task inherits by ID", nil, "", nil, "", "2", "- [ ] 2.1 Flat sub-task inherits by ID"},
				{"3", 15, ' ', "Japanese comma", nil, "", []string{"Requirement 2", "3"}, "", "", "- [ ] 3. Japanese comma"},
				{"3.1", 17, ' ', "Free text", nil, "", []string{"コード品質保証"}, "", "3", "- [ ] 3.1 Free text"},
				{"4", 24, ' ', "After heading", nil, "", nil, "", "", "- [ ] 4. After heading"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseTasks(tt.unit, []byte(tt.content))
			if err != nil {
				t.Fatal(err)
			}
			if f.Unit != tt.unit {
				t.Errorf("Unit = %+v, want %+v", f.Unit, tt.unit)
			}
			got := summarize(t, f)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d tasks, want %d:\n%+v", len(got), len(tt.want), got)
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], tt.want[i]) {
					t.Errorf("task %d:\n got %+v\nwant %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestTaskCheckedOutsideBox: a task line holding "[x]" or "[X]" outside its
// box is ticked whatever its box holds, as GitHub renders it (cmark-gfm's
// task list extension); "[ x]" or "[x" are not.
func TestTaskCheckedOutsideBox(t *testing.T) {
	for _, tt := range []struct {
		line         string
		open, ticked bool
	}{
		{"- [ ] 1. Parse `[x]` boxes", false, true},
		{"- [ ] 1. Task [X]", false, true},
		{"- [-] 1. Task [x]", false, true},
		{"- [x] 1. Task [X]", false, true},
		{"- [ ] 1. Task [ x] and [x", true, false},
	} {
		f, err := ParseTasks(kiUnit, []byte(tt.line+"\n"))
		if err != nil || len(f.Tasks) != 1 {
			t.Fatalf("%q: %v, %d tasks", tt.line, err, len(f.Tasks))
		}
		if tk := f.Tasks[0]; tk.Open() != tt.open || tk.Ticked() != tt.ticked {
			t.Errorf("%q: Open %v Ticked %v, want %v %v", tt.line, tk.Open(), tk.Ticked(), tt.open, tt.ticked)
		}
	}
}

func TestTaskBoxStates(t *testing.T) {
	tests := []struct {
		box          byte
		open, ticked bool
	}{
		{' ', true, false}, {'-', true, false}, {'x', false, true}, {'X', false, true},
	}
	for _, tt := range tests {
		f, err := ParseTasks(kiUnit, []byte("- ["+string(tt.box)+"] 1. Task\n"))
		if err != nil || len(f.Tasks) != 1 {
			t.Fatalf("box %q: %v, %d tasks", tt.box, err, len(f.Tasks))
		}
		tk := f.Tasks[0]
		if tk.Open() != tt.open || tk.Ticked() != tt.ticked || tk.BoxCol != 3 || tk.Line[tk.BoxCol] != tt.box {
			t.Errorf("box %q: Open %v Ticked %v BoxCol %d", tt.box, tk.Open(), tk.Ticked(), tk.BoxCol)
		}
		if got := tk.OpenLine(); got != "- [ ] 1. Task" {
			t.Errorf("box %q: OpenLine = %q", tt.box, got)
		}
	}
}

func TestParseTasksErrors(t *testing.T) {
	tests := []struct {
		name    string
		unit    Unit
		content string
		kind    error
		check   func(t *testing.T, err error)
	}{
		{
			name: "duplicate ID names both lines", unit: osUnit,
			content: "## 5. Tests\n- [x] 5.3 One\n\n### More\n- [x] 5.3 Two\n",
			kind:    ErrDuplicateTask,
			check: func(t *testing.T, err error) {
				var de *DuplicateTaskError
				if !errors.As(err, &de) || de.ID != "5.3" || de.FirstLine != 2 || de.SecondLine != 5 {
					t.Errorf("err = %#v", err)
				}
				if !strings.Contains(err.Error(), "lines 2 and 5") {
					t.Errorf("message %q does not name both lines", err)
				}
			},
		},
		{
			name: "duplicate after trailing-dot normalisation", unit: kiUnit,
			content: "- [ ] 17. One\n- [ ] 17 Two\n", kind: ErrDuplicateTask,
		},
		{
			name: "invalid UTF-8 task line", unit: skUnit,
			content: "ok\n- [ ] T001 bad \xff byte\n", kind: ErrNotText,
			check: func(t *testing.T, err error) {
				var le *LineError
				if !errors.As(err, &le) || le.Line != 2 {
					t.Errorf("err = %#v", err)
				}
			},
		},
		{
			// UTF-16 (here LE with its BOM): read as UTF-8 it would hold no task
			// line, while an editor shows the ticks.
			name: "UTF-16 file", unit: skUnit,
			content: "\xff\xfe-\x00 \x00[\x00x\x00]\x00 \x00T\x000\x000\x001\x00\n\x00", kind: ErrNotText,
		},
		{name: "UTF-16 without a BOM", unit: skUnit, content: "-\x00 \x00[\x00x\x00]\x00 \x00T\x001\x00\n\x00", kind: ErrNotText,
			check: func(t *testing.T, err error) {
				var le *LineError
				if !errors.As(err, &le) || le.Line != 1 {
					t.Errorf("err = %#v", err)
				}
			},
		},
		{name: "over the size limit", unit: skUnit, content: strings.Repeat("x\n", MaxTasksFileSize/2+1), kind: ErrNotText},
		{name: "unknown format", unit: Unit{Format: "jira", Dir: "x"}, content: "", kind: ErrUnknownFormat},
		{name: "unclean dir", unit: Unit{Format: Speckit, Dir: "../x"}, content: "", kind: ErrInvalidUnit},
		{name: "dot dir", unit: Unit{Format: Speckit, Dir: "."}, content: "", kind: ErrInvalidUnit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseTasks(tt.unit, []byte(tt.content))
			if !errors.Is(err, tt.kind) || f != nil {
				t.Fatalf("ParseTasks = %v, %v; want error %v", f, err, tt.kind)
			}
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
}

func TestFind(t *testing.T) {
	f, err := ParseTasks(skUnit, []byte("- [ ] T001 a\n- [x] T002 b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if tk, ok := f.Find("T002"); !ok || tk.LineNo != 2 {
		t.Errorf("Find(T002) = %+v, %v", tk, ok)
	}
	if _, ok := f.Find("T003"); ok {
		t.Error("Find(T003) found a task")
	}
}

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\n\n", []string{"a", ""}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\rb\n", []string{"a\rb"}},
		{"a\r\r\n", []string{"a\r"}},
		{"\ufeffa\nb", []string{"a", "b"}},
		{"a\n\ufeffb", []string{"a", "\ufeffb"}},
	}
	for _, tt := range tests {
		if got := splitLines([]byte(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseTasksCommentedHeading(t *testing.T) {
	content := "## 1. Setup\n<!--\n## 2. Commented out\n-->\n- [ ] 1.1 Still in group 1\n"
	f, err := ParseTasks(osUnit, []byte(content))
	if err != nil || len(f.Tasks) != 1 || f.Tasks[0].Group != "1. Setup" {
		t.Fatalf("ParseTasks = %+v, %v", f, err)
	}
}

// TestParseTasksAllowDuplicateIDs: a repeated ID is ambiguous on its own; every
// other task of the file is found
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also
// when its task ID repeats").
func TestParseTasksAllowDuplicateIDs(t *testing.T) {
	content := "## 5. Tests\n- [x] 5.3 One\n- [ ] 5.4 Other\n### More\n- [ ] 5.3 Two\n- [x] 5.3 Three\n- [ ] T1 x\n- [ ] 5.4 Again\n"
	if _, err := ParseTasks(osUnit, []byte(content)); err == nil || err.Error() != `specfmt: duplicate task id "5.3" on lines 2 and 5` {
		t.Fatalf("without the option: err = %v, want 5.3 on lines 2 and 5", err)
	}
	f, err := ParseTasks(osUnit, []byte(content), AllowDuplicateIDs())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range f.Tasks {
		got = append(got, fmt.Sprintf("%s@%d", tk.ID, tk.LineNo))
	}
	// "T1" is not an OpenSpec ID: a derived one.
	if want := []string{"5.3@2", "5.4@3", "5.3@5", "5.3@6", DeriveID("T1 x") + "@7", "5.4@8"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tasks = %v, want %v", got, want)
	}
	var dups []string
	for _, d := range f.Duplicates {
		dups = append(dups, d.Error())
	}
	if want := []string{`specfmt: duplicate task id "5.3" on lines 2 and 5`, `specfmt: duplicate task id "5.4" on lines 3 and 8`}; !reflect.DeepEqual(dups, want) {
		t.Errorf("Duplicates = %q, want %q", dups, want)
	}
	tests := []struct {
		id       string
		line     int   // the task's line when found
		kind     error // the error kind otherwise
		dupLines [2]int
	}{
		{id: "5.3", kind: ErrDuplicateTask, dupLines: [2]int{2, 5}},
		{id: "5.4", kind: ErrDuplicateTask, dupLines: [2]int{3, 8}},
		{id: DeriveID("T1 x"), line: 7},
		{id: "5.5", kind: ErrTaskNotFound},
		{id: "", kind: ErrTaskNotFound},
	}
	for _, tt := range tests {
		tk, err := f.Lookup(tt.id)
		if tt.kind == nil {
			if err != nil || tk.LineNo != tt.line || tk.ID != tt.id {
				t.Errorf("Lookup(%q) = %s@%d, %v; want line %d", tt.id, tk.ID, tk.LineNo, err, tt.line)
			}
		} else if !errors.Is(err, tt.kind) || tk.LineNo != 0 {
			t.Errorf("Lookup(%q) = line %d, %v; want %v", tt.id, tk.LineNo, err, tt.kind)
		}
		var de *DuplicateTaskError
		if errors.As(err, &de) && (de.ID != tt.id || [2]int{de.FirstLine, de.SecondLine} != tt.dupLines) {
			t.Errorf("Lookup(%q): %+v, want lines %v", tt.id, de, tt.dupLines)
		}
		var nf *NotFoundError
		if errors.As(err, &nf) && (nf.ID != tt.id || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.id))) {
			t.Errorf("Lookup(%q): %v", tt.id, err)
		}
		if _, ok := f.Find(tt.id); ok != (tt.kind == nil) {
			t.Errorf("Find(%q) = %v", tt.id, ok)
		}
	}
	clean, err := ParseTasks(osUnit, []byte("- [ ] 1.1 a\n"), AllowDuplicateIDs())
	if err != nil || clean.Duplicates != nil {
		t.Errorf("a file without repeats: Duplicates = %v, err = %v", clean.Duplicates, err)
	}
}

// TestParseTasksDuplicateParentRequirements: a Kiro sub-task inherits the
// _Requirements_ of the task it sits under, not of the first task with that ID.
func TestParseTasksDuplicateParentRequirements(t *testing.T) {
	content := "- [ ] 2. A\n  - _Requirements: 1.1_\n- [ ] 2. B\n  - _Requirements: 3.1_\n  - [ ] 2.1 Sub\n- [ ] 2.2 Flat\n"
	f, err := ParseTasks(kiUnit, []byte(content), AllowDuplicateIDs())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		reqs []string
	}{{"2.1", []string{"3.1"}}, {"2.2", []string{"3.1"}}} {
		tk, err := f.Lookup(tt.id)
		if err != nil || tk.Parent != "2" || !reflect.DeepEqual(tk.Requirements, tt.reqs) {
			t.Errorf("%s: parent %q requirements %q, %v; want 2 %q", tt.id, tk.Parent, tk.Requirements, err, tt.reqs)
		}
	}
}

func TestDeriveID(t *testing.T) {
	// Expected values: python3 -c "import hashlib; print('h-' + hashlib.sha256('…'.encode()).hexdigest()[:12])"
	tests := []struct{ title, want string }{
		{"", "h-e3b0c44298fc"},
		{"Add the parser", "h-44f8786eea03"},
		{"No ID here", "h-78af7c6c6980"},
		{"日本語のタスク", "h-2c62468e3f5b"},
	}
	refSafe := regexp.MustCompile(`^h-[0-9a-f]{12}$`)
	for _, tt := range tests {
		got := DeriveID(tt.title)
		if got != tt.want {
			t.Errorf("DeriveID(%q) = %s, want %s", tt.title, got, tt.want)
		}
		if !refSafe.MatchString(got) {
			t.Errorf("DeriveID(%q) = %q is not of the ref-safe form h-<12 hex>", tt.title, got)
		}
	}
}

// TestDerivedIDStableAcrossTick: ticking an ID-less task (any box, CRLF, markers
// spaced differently) keeps its ID, so tick detection can match it by ID.
func TestDerivedIDStableAcrossTick(t *testing.T) {
	before, err := ParseTasks(skUnit, []byte("- [ ] [P] Add the parser\n- [ ] Add the parser\n"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := ParseTasks(skUnit, []byte("- [X]  [P]  Add the parser \r\n- [-] Add the parser\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range before.Tasks {
		if b, a := before.Tasks[i].ID, after.Tasks[i].ID; b != a {
			t.Errorf("task %d: ID %s before the tick, %s after", i, b, a)
		}
	}
}

// TestLFSPointer: a tasks file that is a Git LFS pointer is refused, naming
// line 1; a file that only mentions one is read.
func TestLFSPointer(t *testing.T) {
	ptr := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	var le *LineError
	if _, err := ParseTasks(skUnit, []byte(ptr)); !errors.Is(err, ErrLFSPointer) || !errors.As(err, &le) || le.Line != 1 {
		t.Errorf("ParseTasks(LFS pointer) = %v, want ErrLFSPointer at line 1", err)
	}
	if err := CheckTasks(skUnit, []byte(ptr)); !errors.Is(err, ErrLFSPointer) {
		t.Errorf("CheckTasks(LFS pointer) = %v, want ErrLFSPointer", err)
	}
	if _, err := ParseTasks(skUnit, []byte("# Tasks\n\nversion https://git-lfs.github.com/spec/v1\n- [ ] T001 a\n")); err != nil {
		t.Errorf("a file mentioning a pointer line: %v", err)
	}
}
