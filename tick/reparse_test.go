package tick

import (
	"reflect"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/predicate/specfmt"
)

// reparseSeeds are tasks files of each format with what could fool a derived
// parse: fenced and commented checkboxes, Kiro requirements and "[-]", repeated
// IDs, ID-less tasks, CRLF endings and a BOM.
var reparseSeeds = []struct {
	unit    specfmt.Unit
	content string
}{
	{specfmt.Unit{Format: specfmt.Speckit, Feature: "001-a", Dir: "specs/001-a"},
		"# Tasks\n\n- [ ] T001 [P] [US1] Add the parser\n- [x] T002 Write tests\n```\n- [ ] T003 in a fence\n```\n<!-- - [ ] T004 commented -->\n- [ ] Add docs\n- [ ] Add docs\n- [ ] T002 again\n"},
	{specfmt.Unit{Format: specfmt.Kiro, Feature: "b", Dir: ".kiro/specs/b"},
		"# Implementation Plan\r\n\r\n- [-] 1. Set up\r\n  - [ ] 1.1 Sub task\r\n    - _Requirements: 1.2, 3_\r\n- [x] 2. Build\r\n  _Requirements: 2.1_\r\n"},
	{specfmt.Unit{Format: specfmt.OpenSpec, Feature: "c", Dir: "openspec/changes/c"},
		"\ufeff## 1. Setup\n- [ ] 1.1 Create\n- [ ] 1.2 Wire [x] up\n\n## 2. Done\n* [X] 2.1 Ship\n1. [ ] 2.2 Numbered bullet\n"},
	// The formats' own readings: boxes in fences and comments, padded, glued
	// to their marker, "[~]".
	{specfmt.Unit{Format: specfmt.OpenSpec, Feature: "d", Dir: "openspec/changes/d"},
		"## 1. Setup\n- [ x] 1.1 Padded\n- [  ] 1.2 Wide\n-[ ] 1.3 Glued\n```\n- [ ] 1.4 Fenced\n```\n<!-- - [ ] 1.5 -->\n- [~] 1.6 Deferred\n+ [ ] Plus\n"},
	{specfmt.Unit{Format: specfmt.SpecWorkflow, Feature: "e", Dir: ".spec-workflow/specs/e"},
		"# Tasks\n\n- [-] 1. Going\n- [~] 2. Blocked\n```\n- [ ] 3. Fenced\n```\n- [ ] **P4** unnumbered\n"},
	{specfmt.Unit{Format: specfmt.BMAD, Feature: "1-1-x", Dir: "docs/sprint-artifacts/1-1-x"},
		"## Tasks / Subtasks\n\n- [ ] **Task 1: Set up** (AC: 1)\n  - [ ] Write tests\n- [ ] Task 2\n  - [ ] Write tests\n"},
}

// checkReparse compares reparseBoxes(prev of old, new) with parsing new.
func checkReparse(t *testing.T, u specfmt.Unit, old, new []byte) (derived bool) {
	t.Helper()
	prev, err := parseTasks(u, old)
	if err != nil {
		return false
	}
	got, ok := reparseBoxes(prev, new)
	if !ok {
		return false
	}
	want, err := parseTasks(u, new)
	if err != nil {
		t.Fatalf("reparseBoxes took %q, ParseTasks refuses it: %v", new, err)
	}
	var gotTasks []specfmt.Task
	for i := range got.tasks {
		gotTasks = append(gotTasks, got.task(i))
	}
	if !reflect.DeepEqual(gotTasks, want.tasks) || !reflect.DeepEqual(got.keys, want.keys) ||
		!reflect.DeepEqual(got.byKey, want.byKey) || !reflect.DeepEqual(got.dups, want.dups) {
		t.Fatalf("reparseBoxes(%q → %q):\n got %+v\nwant %+v", old, new, gotTasks, want.tasks)
	}
	// The box offsets it carries over are those of new's own parse.
	if g, w := got.boxOffsets(), want.boxOffsets(); !reflect.DeepEqual(g, w) {
		t.Fatalf("reparseBoxes(%q → %q): box offsets %v, want %v", old, new, g, w)
	}
	// A parse derived from a derived one (the next tick of the same file):
	// back to old, it reads as old's own parse.
	back, ok := reparseBoxes(got, old)
	if !ok {
		t.Fatalf("reparseBoxes(%q → %q) refused the way back", new, old)
	}
	for i := range back.tasks {
		if b, w := back.task(i), prev.tasks[i]; !reflect.DeepEqual(b, w) {
			t.Fatalf("reparseBoxes(%q → %q → back): task %d = %+v, want %+v", old, new, i, b, w)
		}
	}
	return true
}

func TestReparseBoxes(t *testing.T) {
	for _, s := range reparseSeeds {
		old := []byte(s.content)
		derived := 0
		// Every single-byte change to each box character, and to every other byte.
		for i := range old {
			for _, c := range []byte{' ', 'x', 'X', '-', 'a'} {
				if old[i] == c {
					continue
				}
				new := append([]byte(nil), old...)
				new[i] = c
				if checkReparse(t, s.unit, old, new) {
					derived++
				}
			}
		}
		// Ticking every open box at once (seeds with fenced or commented
		// boxes excepted: those are not task boxes, so the file is parsed —
		// unless the format's own tool reads them).
		all := []byte(strings.ReplaceAll(s.content, "[ ]", "[x]"))
		toolReads := s.unit.Format == specfmt.OpenSpec || s.unit.Format == specfmt.SpecWorkflow
		if ok := checkReparse(t, s.unit, old, all); ok != (toolReads || !strings.Contains(s.content, "```")) {
			t.Errorf("%s: ticking every box: derived %v", s.unit.Dir, ok)
		}
		if derived == 0 {
			t.Errorf("%s: no single box change was derived", s.unit.Dir)
		}
	}
	// A change outside the boxes, or of length, is parsed.
	u := reparseSeeds[0].unit
	prev, _ := parseTasks(u, []byte(reparseSeeds[0].content))
	for _, new := range []string{
		strings.Replace(reparseSeeds[0].content, "T001", "T009", 1),
		strings.Replace(reparseSeeds[0].content, "T003 in a fence\n```", "T003 in a fence\n`x`", 1),
		reparseSeeds[0].content + "- [ ] T005 New\n",
		strings.Replace(reparseSeeds[0].content, "- [ ] T003", "- [x] T003", 1), // in a fence: not a task
	} {
		if _, ok := reparseBoxes(prev, []byte(new)); ok {
			t.Errorf("reparseBoxes derived %q", new)
		}
	}
	// "- [ ]: /url" is a task, "- [x]: /url" a link reference definition;
	// with lone "\r" line ends, lines are counted as specfmt counts them.
	for _, tt := range [][2]string{
		{"- [ ] T001 a\n- [ ]: /url\n", "- [ ] T001 a\n- [x]: /url\n"},
		{"a\rb\n- [ ] T001 a\r- [ ] T002 b\n", "a\rb\n- [ ] T001 a\r- [x] T002 b\n"},
		// A task a later line checks on GitHub (Task.CheckedBy) stays so.
		{"- [ ] T001 a\n  > q\n      - [x] b\n- [ ] T002 c\n", "- [x] T001 a\n  > q\n      - [x] b\n- [x] T002 c\n"},
		{"- [ ] T001 a\n\n  2024 [x] b\n- [ ] T002 c\n", "- [ ] T001 a\n\n  2024 [x] b\n- [x] T002 c\n"},
	} {
		checkReparse(t, u, []byte(tt[0]), []byte(tt[1]))
	}
}

// FuzzReparseBoxes: whenever reparseBoxes derives a parse, it is
// specfmt.ParseTasks's.
func FuzzReparseBoxes(f *testing.F) {
	for i, s := range reparseSeeds {
		f.Add(i, []byte(s.content), []byte(strings.ReplaceAll(s.content, "[ ]", "[x]")))
	}
	f.Fuzz(func(t *testing.T, unit int, old, new []byte) {
		if unit < 0 {
			unit = -unit
		}
		checkReparse(t, reparseSeeds[unit%len(reparseSeeds)].unit, old, new)
	})
}
