package gitref

import (
	"fmt"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

func count(ticks []Tick) (map[TickKind]int, int) {
	kinds := map[TickKind]int{}
	commits := map[Hash]bool{}
	for _, t := range ticks {
		kinds[t.Kind]++
		if t.Kind == KindTick {
			commits[t.Commit] = true
		}
	}
	return kinds, len(commits)
}

// TestTicksCorpora pins the tick counts of the shared corpora. The counts were
// checked independently with a Python script (git diff --name-status -M per
// first-parent commit, task lines matched by ID with a regex), which agrees:
// youbencha 96 ticks in 3 commits; agent-validator 164 ticks in 9 commits,
// counting only task lines that carry a task ID (specfmt skips ID-less items).
func TestTicksCorpora(t *testing.T) {
	tests := []struct {
		bundle      string
		firstParent bool
		ticks       int
		commits     int
		unticks     int
	}{
		{"speckit-youbencha", true, 96, 3, 0},
		{"speckit-youbencha", false, 96, 3, 0},
		{"openspec-agent-validator", true, 164, 9, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/fp=%v", tt.bundle, tt.firstParent), func(t *testing.T) {
			r := open(t, testenv.CloneBundle(t, tt.bundle))
			head, err := r.Resolve("HEAD")
			if err != nil {
				t.Fatal(err)
			}
			ticks, err := r.Ticks("", head, TickOptions{FirstParent: tt.firstParent})
			if err != nil {
				t.Fatal(err)
			}
			kinds, commits := count(ticks)
			if kinds[KindTick] != tt.ticks || commits != tt.commits || kinds[KindUntick] != tt.unticks {
				t.Errorf("got %d ticks in %d commits, %d unticks; want %d in %d, %d",
					kinds[KindTick], commits, kinds[KindUntick], tt.ticks, tt.commits, tt.unticks)
			}
			for _, tk := range ticks {
				if len(tk.LineHash) != 64 || tk.TaskID == "" || tk.Unit.Dir == "" {
					t.Fatalf("incomplete tick %+v", tk)
				}
			}
		})
	}
}

func TestTicksSynthetic(t *testing.T) {
	dir := newRepo(t)
	base := commitFiles(t, dir, "start", map[string]string{
		"openspec/changes/add-x/tasks.md": "## 1. Setup\n- [ ] 1.1 First\n- [ ] 1.2 Second\n- [x] 1.3 Third\n- [ ] 1.4 Fourth\n",
		"specs/001-a/tasks.md":            "- [ ] T001 Alpha\r\n- [x] T002 Beta\r\n",
	})
	c1 := commitFiles(t, dir, "tick and untick", map[string]string{
		"specs/001-a/tasks.md": "- [X] T001 Alpha\r\n- [ ] T002 Beta\r\n",
	})
	// Move to the archive while ticking 1.1 and editing the ticked 1.3.
	c2 := commitFiles(t, dir, "archive", map[string]string{
		"openspec/changes/add-x/tasks.md":                    "",
		"openspec/changes/archive/2026-01-01-add-x/tasks.md": "## 1. Setup\n- [x] 1.1 First\n- [ ] 1.2 Second\n- [x] 1.3 Third, reworded\n- [ ] 1.4 Fourth\n",
		"specs/002-new/tasks.md":                             "- [x] T001 Born ticked\n",
	})
	r := open(t, dir)
	ticks, err := r.Ticks(base, c2, TickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind          TickKind
		commit        Hash
		path, oldPath string
		id            string
		line          int
	}{
		{KindTick, c1, "specs/001-a/tasks.md", "specs/001-a/tasks.md", "T001", 1},
		{KindUntick, c1, "specs/001-a/tasks.md", "specs/001-a/tasks.md", "T002", 2},
		{KindTick, c2, "openspec/changes/archive/2026-01-01-add-x/tasks.md", "openspec/changes/add-x/tasks.md", "1.1", 2},
		{KindEdit, c2, "openspec/changes/archive/2026-01-01-add-x/tasks.md", "openspec/changes/add-x/tasks.md", "1.3", 4},
	}
	if len(ticks) != len(want) {
		t.Fatalf("got %d records, want %d: %+v", len(ticks), len(want), ticks)
	}
	for i, w := range want {
		g := ticks[i]
		if g.Kind != w.kind || g.Commit != w.commit || g.Path != w.path || g.OldPath != w.oldPath || g.TaskID != w.id || g.Line != w.line {
			t.Errorf("record %d = %+v, want %+v", i, g, w)
		}
	}
	// line_hash of T001: sha256 of the parent's line read as open, CR dropped.
	// (computed with: printf -- '- [ ] T001 Alpha' | sha256sum)
	if got := ticks[0].LineHash; got != "27592e16a9bd3902122ba9c2d67240c60ad905479d6b45b8c36c045ec6228c5c" {
		t.Errorf("LineHash = %s", got)
	}
	if ticks[0].Before != "- [ ] T001 Alpha" || ticks[0].After != "- [X] T001 Alpha" || ticks[0].Unit.Feature != "001-a" {
		t.Errorf("tick 0 = %+v", ticks[0])
	}
}
