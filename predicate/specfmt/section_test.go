package specfmt

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"
)

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, s := range files {
		m[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

const skSpec = "# Feature\n" +
	"```\n## User Story 1 - fenced, not a heading\n```\n" +
	"## User Scenarios\n" +
	"### User Story 10 - Ten (Priority: P3)\nten\n" +
	"### User Story 1 - One (Priority: P1)\r\n" +
	"one\r\n" +
	"#### Acceptance\nsub-heading stays\n" +
	"#not a heading\n" +
	"    # indented code, not a heading\n" +
	"\n" +
	"### user story 2: Two\ntwo\n\n\n" +
	"## Requirements\nreq\n" +
	"# USER STORY 3\nthree\n"

func TestSectionSpeckit(t *testing.T) {
	fsys := mapFS(map[string]string{"specs/007-config/spec.md": skSpec})
	tests := []struct {
		story string
		want  *SectionText
		kind  error
	}{
		{"US1", &SectionText{"US1", []byte("### User Story 1 - One (Priority: P1)\none\n#### Acceptance\nsub-heading stays\n#not a heading\n    # indented code, not a heading\n")}, nil},
		{"US10", &SectionText{"US10", []byte("### User Story 10 - Ten (Priority: P3)\nten")}, nil},
		{"US2", &SectionText{"US2", []byte("### user story 2: Two\ntwo\n\n")}, nil},
		{"US3", &SectionText{"US3", []byte("# USER STORY 3\nthree")}, nil},
		{"", nil, nil},
		{"US4", nil, ErrSectionNotFound},
	}
	for _, tt := range tests {
		got, err := Section(fsys, skUnit, Task{ID: "T001", Story: tt.story})
		if !errors.Is(err, tt.kind) || (tt.kind == nil) != (err == nil) {
			t.Errorf("%s: err = %v, want %v", tt.story, err, tt.kind)
			continue
		}
		if !sectionEqual(got, tt.want) {
			t.Errorf("%s: got %s, want %s", tt.story, fmtSection(got), fmtSection(tt.want))
		}
	}
	// No spec.md: the cited story cannot be found; the error wraps fs.ErrNotExist.
	_, err := Section(mapFS(nil), skUnit, Task{Story: "US1"})
	var se *SectionNotFoundError
	if !errors.Is(err, ErrSectionNotFound) || !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &se) || se.Path != "specs/007-config/spec.md" {
		t.Errorf("missing spec.md: err = %v", err)
	}
}

func TestSectionOpenSpec(t *testing.T) {
	d := "openspec/changes/add-x/specs/"
	fsys := mapFS(map[string]string{
		d + "logs/spec.md": "## ADDED Requirements\n\n### Requirement: Log   Clean Process\nThe system SHALL clean.\n\n#### Scenario: clean\n- WHEN x\n\n" +
			"### Requirement: Log\nshort\n## REMOVED Requirements\n### Requirement: Rotation\ngone\n",
		d + "a/b/spec.md":                        "### Requirement: Rotation\nfirst in path order\n### Requirement:   \nempty name\n",
		d + "logs/x.md":                          "### Requirement: Catalog\nnot a spec.md\n",
		d + "z/spec.md":                          "```\n### Requirement: Fenced\n```\n### Requirement: Login Flow\nlogin\n# Top\n",
		"openspec/changes/other/specs/q/spec.md": "### Requirement: Other Change\n",
	})
	tests := []struct {
		name, title, group string
		want               *SectionText
	}{
		{"title names longest", "Implement the log clean process in shared.ts", "1. Logs",
			&SectionText{"Log   Clean Process", []byte("### Requirement: Log   Clean Process\nThe system SHALL clean.\n\n#### Scenario: clean\n- WHEN x\n")}},
		{"case and whitespace", "LOG\tclean   PROCESS", "", &SectionText{"Log   Clean Process", nil}},
		{"shorter name", "rotate the log", "", &SectionText{"Log", []byte("### Requirement: Log\nshort")}},
		{"glued to letters does not name", "logging and catalogs", "", nil},
		{"ASCII boundary only", "Login flow", "", &SectionText{"Login Flow", []byte("### Requirement: Login Flow\nlogin")}},
		{"tie: first in path order", "rotation", "", &SectionText{"Rotation", []byte("### Requirement: Rotation\nfirst in path order")}},
		{"group heading", "Add tests", "3. Log clean process", &SectionText{"Log   Clean Process", nil}},
		{"title wins over group", "rotation", "3. Log clean process", &SectionText{"Rotation", nil}},
		{"fenced requirement is not one", "fenced", "", nil},
		{"other change's requirement", "other change", "", nil},
		{"names nothing", "Update README", "2. Docs", nil},
	}
	for _, tt := range tests {
		got, err := Section(fsys, osUnit, Task{ID: "1.1", Title: tt.title, Group: tt.group})
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if tt.want != nil && tt.want.Text == nil && got != nil {
			got = &SectionText{Name: got.Name} // only the name is checked
		}
		if !sectionEqual(got, tt.want) {
			t.Errorf("%s: got %s, want %s", tt.name, fmtSection(got), fmtSection(tt.want))
		}
	}
	// A change without delta specs names nothing.
	if got, err := Section(mapFS(nil), osUnit, Task{Title: "log"}); got != nil || err != nil {
		t.Errorf("no specs dir: %v, %v", got, err)
	}
}

const kiroReqs = "# Requirements Document\n\n## Requirements\n\n" +
	"### Requirement 1\n\n**User Story:** one\n\n#### Acceptance Criteria\n\n1. WHEN a THEN b\n\n" +
	"### Requirement 10\nten\n" +
	"### Requirement 1.5\nnot requirement 1\n" +
	"### Requirement 3: Named\nthree\n" +
	"## Glossary\nend\n"

func TestSectionKiro(t *testing.T) {
	one := "### Requirement 1\n\n**User Story:** one\n\n#### Acceptance Criteria\n\n1. WHEN a THEN b\n"
	three := "### Requirement 3: Named\nthree"
	fsys := mapFS(map[string]string{".kiro/specs/auth/requirements.md": kiroReqs})
	tests := []struct {
		reqs []string
		want *SectionText
		kind error
	}{
		{[]string{"1.2", "1.4"}, &SectionText{"1", []byte(one)}, nil},
		{[]string{"3.1", "1.2", "3.4"}, &SectionText{"3,1", []byte(three + "\n" + one)}, nil},
		{[]string{"Requirement 10", "3"}, &SectionText{"10,3", []byte("### Requirement 10\nten\n" + three)}, nil},
		{[]string{"Requirement 3（名前）"}, &SectionText{"3", []byte(three)}, nil},
		{[]string{"コード品質保証", "1.1"}, &SectionText{"1", []byte(one)}, nil},
		{[]string{"コード品質保証"}, nil, nil},
		{nil, nil, nil},
		{[]string{"1.1", "4.2"}, nil, ErrSectionNotFound},
	}
	for _, tt := range tests {
		got, err := Section(fsys, kiUnit, Task{ID: "1", Requirements: tt.reqs})
		if !errors.Is(err, tt.kind) || (tt.kind == nil) != (err == nil) {
			t.Errorf("%q: err = %v, want %v", tt.reqs, err, tt.kind)
			continue
		}
		if !sectionEqual(got, tt.want) {
			t.Errorf("%q: got %s, want %s", tt.reqs, fmtSection(got), fmtSection(tt.want))
		}
	}
	var se *SectionNotFoundError
	if _, err := Section(fsys, kiUnit, Task{Requirements: []string{"4.2"}}); !errors.As(err, &se) || se.Section != "Requirement 4" {
		t.Errorf("missing requirement: err = %v", err)
	}

	// Bugfix specs: bugfix.md when requirements.md is absent.
	bug := mapFS(map[string]string{".kiro/specs/auth/bugfix.md": "### Requirement 2\nfix\n"})
	if got, err := Section(bug, kiUnit, Task{Requirements: []string{"2.1"}}); err != nil || !sectionEqual(got, &SectionText{"2", []byte("### Requirement 2\nfix")}) {
		t.Errorf("bugfix.md: %s, %v", fmtSection(got), err)
	}
	both := mapFS(map[string]string{".kiro/specs/auth/bugfix.md": "### Requirement 2\nfix\n", ".kiro/specs/auth/requirements.md": "### Requirement 2\nreq\n"})
	if got, err := Section(both, kiUnit, Task{Requirements: []string{"2.1"}}); err != nil || !sectionEqual(got, &SectionText{"2", []byte("### Requirement 2\nreq")}) {
		t.Errorf("requirements.md preferred: %s, %v", fmtSection(got), err)
	}
	if _, err := Section(mapFS(nil), kiUnit, Task{Requirements: []string{"2.1"}}); !errors.Is(err, ErrSectionNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no document: err = %v", err)
	}
}

func TestSectionBadUnit(t *testing.T) {
	if _, err := Section(mapFS(nil), Unit{Format: "x", Dir: "a"}, Task{}); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("err = %v", err)
	}
	if _, err := Section(mapFS(nil), Unit{Format: Kiro, Dir: "/abs"}, Task{}); !errors.Is(err, ErrInvalidUnit) {
		t.Errorf("err = %v", err)
	}
}

func TestRequirementNumbers(t *testing.T) {
	got := RequirementNumbers([]string{"1.2", " 3.4", "1.1", "Requirement 6（サブタスク同時作成）", "requirements 7", "全要件", "x1", "12"})
	want := []string{"1", "3", "6", "7", "12"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func sectionEqual(a, b *SectionText) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Name == b.Name && string(a.Text) == string(b.Text)
}

func fmtSection(s *SectionText) string {
	if s == nil {
		return "nil"
	}
	return "{" + s.Name + " " + string(s.Text) + "}"
}

// TestSectionCommentedHeadings: a heading inside an HTML comment is hidden in
// every recipe, like a task inside one: it neither opens a section nor ends one.
func TestSectionCommentedHeadings(t *testing.T) {
	fsys := mapFS(map[string]string{
		"specs/007-config/spec.md": "<!--\n### User Story 1 - template example\n-->\n### User Story 1 - Real\nreal\n" +
			"<!-- note\n### User Story 2 - hidden\n-->\n# End\n",
		"openspec/changes/add-x/specs/a/spec.md": "<!--\n### Requirement: Hidden Rule\nx\n-->\n### Requirement: Real Rule\nreal\n<!--\n### Requirement: Other\n-->\ntail\n",
		".kiro/specs/auth/requirements.md":       "<!--\n### Requirement 1\nexample\n-->\n### Requirement 1\nreal\n<!--\n### Requirement 2\n-->\n",
	})
	tests := []struct {
		name string
		unit Unit
		task Task
		want *SectionText
		kind error
	}{
		{"speckit: the real story, not the commented example", skUnit, Task{Story: "US1"},
			&SectionText{"US1", []byte("### User Story 1 - Real\nreal\n<!-- note\n### User Story 2 - hidden\n-->")}, nil},
		{"speckit: a story only in a comment is not found", skUnit, Task{Story: "US2"}, nil, ErrSectionNotFound},
		{"openspec: a commented requirement names nothing", osUnit, Task{Title: "hidden rule"}, nil, nil},
		{"openspec: a commented heading does not end a block", osUnit, Task{Title: "real rule"},
			&SectionText{"Real Rule", []byte("### Requirement: Real Rule\nreal\n<!--\n### Requirement: Other\n-->\ntail")}, nil},
		{"kiro: the real requirement", kiUnit, Task{Requirements: []string{"1.1"}},
			&SectionText{"1", []byte("### Requirement 1\nreal\n<!--\n### Requirement 2\n-->")}, nil},
		{"kiro: a commented requirement is not found", kiUnit, Task{Requirements: []string{"2"}}, nil, ErrSectionNotFound},
	}
	for _, tt := range tests {
		got, err := Section(fsys, tt.unit, tt.task)
		if !errors.Is(err, tt.kind) || (tt.kind == nil) != (err == nil) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.kind)
			continue
		}
		if !sectionEqual(got, tt.want) {
			t.Errorf("%s: got %s, want %s", tt.name, fmtSection(got), fmtSection(tt.want))
		}
	}
}
