package tick

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

const movedTasks = "# Tasks\n\n- [ ] T001 First\n- [ ] T002 Second\n- [x] T003 Third\n- [ ] T004 Fourth\n"

// movedOutOf returns the KindMovedOut ticks of ticks.
func movedOutOf(ticks []Tick) []Tick {
	var out []Tick
	for _, t := range ticks {
		if t.Kind == KindMovedOut {
			out = append(out, t)
		}
	}
	return out
}

// TestMovedOut pairs a unit's tasks file that a commit removes with the
// Markdown files it adds that are no tasks files, by the move rule
// (docs/format.md#tasks-files, "Tasks files that leave").
func TestMovedOut(t *testing.T) {
	ticked := strings.Replace(movedTasks, "- [ ] T002", "- [x] T002", 1)
	tests := []struct {
		name    string
		old     string            // the unit's tasks file at the base
		oldBody string            // its content ("": movedTasks)
		files   map[string]string // the commit's changes
		layouts *specfmt.Layouts
		// want is the moved-out ticks as "old => new", with " unreadable"
		// when the added file could not be read.
		want []string
	}{
		{name: "moved with a tick", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/tasks-001-x.md": ticked},
			want:  []string{"specs/001-x/tasks.md => docs/tasks-001-x.md"}},
		{name: "moved as it is", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/tasks-001-x.md": movedTasks},
			want:  []string{"specs/001-x/tasks.md => docs/tasks-001-x.md"}},
		{name: "into the checklists", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "specs/001-x/checklists/tasks-done.md": ticked},
			want:  []string{"specs/001-x/tasks.md => specs/001-x/checklists/tasks-done.md"}},
		{name: "a Markdown extension in capitals", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "notes/X.MARKDOWN": ticked},
			want:  []string{"specs/001-x/tasks.md => notes/X.MARKDOWN"}},
		{name: "edited as it moves", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/x.md": ticked + "- [ ] T005 Fifth\n"},
			want:  []string{"specs/001-x/tasks.md => docs/x.md"}},
		{name: "a BMAD story out of its folder", old: "docs/stories/1.2.login.md",
			oldBody: "# Story\n\n## Tasks\n\n- [ ] Task 1: Set up\n  - [ ] Subtask 1.1: Scaffold\n- [ ] Task 2: Log in\n",
			files: map[string]string{"docs/stories/1.2.login.md": "",
				"docs/old/login.md": "# Story\n\n## Tasks\n\n- [x] Task 1: Set up\n  - [ ] Subtask 1.1: Scaffold\n- [ ] Task 2: Log in\n"},
			want: []string{"docs/stories/1.2.login.md => docs/old/login.md"}},
		{name: "OpenSpec's archive move is a move", old: "openspec/changes/x/tasks.md",
			files: map[string]string{"openspec/changes/x/tasks.md": "", "openspec/changes/archive/2026-01-01-x/tasks.md": ticked}},
		{name: "moved to a stray tasks.md is an unrecognized file's", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/001-x/tasks.md": ticked}},
		{name: "an ignored path", old: "specs/001-x/tasks.md", layouts: &specfmt.Layouts{Ignore: []string{"docs/**"}},
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/tasks-001-x.md": ticked}},
		{name: "not Markdown", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/tasks-001-x.txt": ticked}},
		{name: "a unit removed, a document added", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/notes.md": "# Notes\n\n- [x] read the docs\n"}},
		{name: "a unit without tasks", old: "specs/001-x/tasks.md", oldBody: "# Tasks\n",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/x.md": "# Tasks\n"}},
		{name: "an unreadable file beside a removed unit", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "docs/x.md": ticked + "\x00"},
			want:  []string{"specs/001-x/tasks.md => docs/x.md unreadable"}},
		{name: "an unreadable file beside a followed move", old: "specs/001-x/tasks.md",
			files: map[string]string{"specs/001-x/tasks.md": "", "specs/002-x/tasks.md": ticked, "docs/x.md": "\x00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			body := tt.oldBody
			if body == "" {
				body = movedTasks
			}
			base := commitFiles(t, dir, "base", map[string]string{tt.old: body, "code.txt": "x\n"})
			head := commitFiles(t, dir, "change", tt.files)
			w, err := Walk(open(t, dir), base, head, Options{Layouts: tt.layouts})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range movedOutOf(w.Ticks) {
				s := m.OldPath + " => " + m.Path
				if m.Unreadable != "" {
					s += " unreadable"
				}
				if m.Commit != head || m.Parent != base || m.TaskID != "" {
					t.Errorf("moved out %s: commit %s parent %s task %q", s, m.Commit, m.Parent, m.TaskID)
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("moved out = %q, want %q (ticks %+v)", got, tt.want, w.Ticks)
			}
			for _, m := range w.Moves {
				if len(tt.want) > 0 && m.OldPath == tt.old {
					t.Errorf("a move out is followed as a move: %+v", m)
				}
			}
		})
	}
}

// TestMovedOutArchiveFollowed: OpenSpec's archive move stays a move whose
// tick is the unit's.
func TestMovedOutArchiveFollowed(t *testing.T) {
	dir := newRepo(t)
	base := commitFiles(t, dir, "base", map[string]string{"openspec/changes/x/tasks.md": "## 1. Group\n\n- [ ] 1.1 One\n- [ ] 1.2 Two\n"})
	head := commitFiles(t, dir, "archive", map[string]string{"openspec/changes/x/tasks.md": "",
		"openspec/changes/archive/2026-01-01-x/tasks.md": "## 1. Group\n\n- [x] 1.1 One\n- [ ] 1.2 Two\n"})
	w, err := Walk(open(t, dir), base, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Ticks) != 1 || w.Ticks[0].Kind != KindTick || w.Ticks[0].OldPath != "openspec/changes/x/tasks.md" || len(w.Moves) != 1 {
		t.Fatalf("ticks %+v moves %+v, want the tick of 1.1 across the move", w.Ticks, w.Moves)
	}
}

// TestMovedOutMerge: a merge bringing in a move out that its other parent
// made does not make it; the commit that made it does.
func TestMovedOutMerge(t *testing.T) {
	dir := newRepo(t)
	base := commitFiles(t, dir, "base", map[string]string{"specs/001-x/tasks.md": movedTasks})
	testenv.Git(t, dir, "checkout", "-q", "-b", "side")
	side := commitFiles(t, dir, "move out", map[string]string{"specs/001-x/tasks.md": "", "docs/x.md": movedTasks})
	testenv.Git(t, dir, "checkout", "-q", "-")
	commitFiles(t, dir, "other", map[string]string{"code.txt": "y\n"})
	testenv.Git(t, dir, "merge", "-q", "--no-edit", "side")
	head := gitref.Hash(strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD")))
	r := open(t, dir)
	w, err := Walk(r, base, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := movedOutOf(w.Ticks)
	if len(got) != 1 || got[0].Commit != side {
		t.Fatalf("moved out %+v, want one, at the side's commit %s", got, side)
	}
	// From the side's own history (the move in the base), the merge brings
	// it in: nothing moves out in the range.
	w, err = Walk(r, side, head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := movedOutOf(w.Ticks); len(got) != 0 {
		t.Fatalf("moved out %+v, want none: the base made the move", got)
	}
}
