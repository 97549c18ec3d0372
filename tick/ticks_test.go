package tick

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

func count(ticks []Tick) (map[Kind]int, int) {
	kinds := map[Kind]int{}
	commits := map[gitref.Hash]bool{}
	for _, t := range ticks {
		kinds[t.Kind]++
		if t.Kind == KindTick {
			commits[t.Commit] = true
		}
	}
	return kinds, len(commits)
}

// TestTicksCorpora pins the tick counts of the shared corpora, checkbox items
// without a task ID included (their IDs are derived from their titles).
//
// youbencha: 96 ticks in 3 commits (every task line has an ID), none Born; 136
// born_ticked lines (ticked tasks of tasks files added already ticked).
//
// agent-validator: 342 ticks in 16 commits, 6 unticks, 376 born_ticked.
// Of the ticks, 18 are Born (ticked lines with no predecessor in a tasks file
// the parent has), in 3 commits: 1010b573 (4 "- [x] Test: …" lines added to
// add-stop-hook/tasks.md already ticked), 2e401a21 (12 lines of
// add-auto-fix-pr/tasks.md added ticked or reworded as they were ticked, e.g.
// "- [x] 3.1 Run `bun src/index.ts wait-ci --help` …", a new ID) and
// 1e5bc668 (2 ID-less lines, ticked at the parent, reworded in the move to
// archive/2026-01-31-add-auto-fix-pr: their derived IDs change, so nothing
// tells them from tasks added ticked). Before born ticks counted there were
// 324 ticks in 15 commits; 1e5bc668 (which otherwise only unticks 6 tasks) is
// the 16th commit. Cross-checked with testdata/tickcount/tickcount.py (git diff
// -M per commit, lines matched by ID or by title, unmatched ticked lines
// counted as ticks, ticked lines of added files as born_ticked), which counts
// 341 ticks in 15 commits, the same 6 unticks and 377 born_ticked; the one
// difference, read in the diff, is commit 518f31af ("Merge pull request #83
// from gauntlet-skip"): it moves openspec/changes/gauntlet-skip/tasks.md into
// changes/archive/2026-02-23-gauntlet-skip/ and ticks its single, ID-less line.
// In a one-line file the tick changes over half of the bytes, so git's rename
// detection (50% similarity) sees a delete and an add and the script counts a
// born_ticked line; taskproof pairs the files by their shared task (same ID
// and title) and reports the tick, which is right.
//
// The 322 ticks in 15 commits is 20 fewer: the 18 Born ticks, and
// commit 05e24301, which ticks 4.2 and 5.1 and rewords both lines in the same
// commit ("- [ ] 5.1 Dogfood: run gauntlet…" → "- [x] 5.1 All 145 tests pass").
// A count that requires "the same line" with the box ticked
// (docs/format.md#units-and-task-lines read literally) excludes them; taskproof
// matches tasks by ID and reports them as ticks with TextChanged set (their
// line_hash is the line as ticked). The 24 ticks of commit 400b361f in
// fix-gauntlet-iteration-tracking/tasks.md, which repeats task ID 5.3, are
// counted, both 5.3 lines included; only those two are marked Ambiguous (the
// other 22 tasks of the file are named once). `git show 400b361f --
// '*/fix-gauntlet-iteration-tracking/tasks.md'` has 24 added "[x]" lines, two
// of them "5.3".
func TestTicksCorpora(t *testing.T) {
	tests := []struct {
		bundle      string
		firstParent bool
		ticks       int
		commits     int
		unticks     int
		ambiguous   int
		born        int // ticks with Born set
		bornTicked  int // KindBornTicked records
		// script is what tickcount.py reports: ticks, commits, unticks, born_ticked.
		script [4]int
	}{
		{"speckit-youbencha", true, 96, 3, 0, 0, 0, 136, [4]int{96, 3, 0, 136}},
		{"speckit-youbencha", false, 96, 3, 0, 0, 0, 136, [4]int{96, 3, 0, 136}},
		{"openspec-agent-validator", true, 342, 16, 6, 2, 18, 376, [4]int{341, 15, 6, 377}},
		{"openspec-agent-validator", false, 342, 16, 6, 2, 18, 376, [4]int{341, 15, 6, 377}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/fp=%v", tt.bundle, tt.firstParent), func(t *testing.T) {
			dir := testenv.CloneBundle(t, tt.bundle)
			r := open(t, dir)
			head, err := r.Resolve("HEAD")
			if err != nil {
				t.Fatal(err)
			}
			ticks, err := Range(r, "", head, Options{FirstParent: tt.firstParent})
			if err != nil {
				t.Fatal(err)
			}
			kinds, commits := count(ticks)
			if kinds[KindTick] != tt.ticks || commits != tt.commits || kinds[KindUntick] != tt.unticks || kinds[KindBornTicked] != tt.bornTicked {
				t.Errorf("got %d ticks in %d commits, %d unticks, %d born_ticked; want %d in %d, %d, %d",
					kinds[KindTick], commits, kinds[KindUntick], kinds[KindBornTicked], tt.ticks, tt.commits, tt.unticks, tt.bornTicked)
			}
			ambiguous, born := 0, map[string]int{}
			for _, tk := range ticks {
				if len(tk.LineHash) != 64 || tk.TaskID == "" || tk.Unit.Dir == "" {
					t.Fatalf("incomplete tick %+v", tk)
				}
				if tk.LineHash != sha256Hex(openLine(tk.After)) {
					t.Errorf("tick %s %s:%d: LineHash %s is not the line as ticked, read as open", tk.Commit, tk.Path, tk.Line, tk.LineHash)
				}
				if strings.ContainsAny(tk.TaskID, "#\x00") || tk.Derived != strings.HasPrefix(tk.TaskID, "h-") {
					t.Errorf("tick %s %s: task ID %q (derived %v)", tk.Commit, tk.Path, tk.TaskID, tk.Derived)
				}
				if tk.Born != (tk.Before == "") || tk.Born != (tk.OldLine == 0) || (tk.Kind == KindBornTicked) != (tk.Born && tk.OldPath == "") {
					t.Errorf("tick %s %s:%d: Born %v, Before %q, OldLine %d, OldPath %q", tk.Commit, tk.Path, tk.Line, tk.Born, tk.Before, tk.OldLine, tk.OldPath)
				}
				if tk.Born && tk.Kind == KindTick {
					born[string(tk.Commit[:8])]++
				}
				if tk.Ambiguous != "" {
					ambiguous++
					if !strings.Contains(tk.Path, "fix-gauntlet-iteration-tracking") || !strings.Contains(tk.Ambiguous, `"5.3" on lines 45 and 49`) {
						t.Errorf("ambiguous tick %s:%d: %s", tk.Path, tk.Line, tk.Ambiguous)
					}
				}
			}
			if ambiguous != tt.ambiguous {
				t.Errorf("%d ticks marked ambiguous, want %d", ambiguous, tt.ambiguous)
			}
			nborn := 0
			for _, n := range born {
				nborn += n
			}
			if nborn != tt.born {
				t.Errorf("%d Born ticks (%v), want %d", nborn, born, tt.born)
			}
			if tt.born > 0 && (born["1010b573"] != 4 || born["2e401a21"] != 12 || born["1e5bc668"] != 2) {
				t.Errorf("Born ticks per commit %v, want 1010b573:4 2e401a21:12 1e5bc668:2", born)
			}
			crossCheck(t, dir, tt.firstParent, ticks, tt.script)
		})
	}
}

// openLine is the docs/format.md#hash-recipes line_hash input, written here independently of
// specfmt: the first "[x]", "[X]" or "[-]" box read as "[ ]".
func openLine(line string) string {
	for _, box := range []string{"[x]", "[X]", "[-]"} {
		if i := strings.Index(line, box); i >= 0 && (strings.Index(line, "[ ]") < 0 || strings.Index(line, "[ ]") > i) {
			return line[:i] + "[ ]" + line[i+3:]
		}
	}
	return line
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// crossCheck runs testdata/tickcount/tickcount.py (when python3 is installed)
// and compares its per-commit counts with taskproof's: they must agree on every
// commit but 518f31af (see TestTicksCorpora), and its totals must be script.
func crossCheck(t *testing.T, dir string, firstParent bool, ticks []Tick, script [4]int) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not found: skipping the independent tick count")
		return
	}
	args := []string{filepath.Join("testdata", "tickcount", "tickcount.py"), dir}
	if firstParent {
		args = append(args, "--first-parent")
	}
	cmd := exec.Command(py, args...)
	cmd.Env = testenv.GitEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tickcount.py: %v", err)
	}
	var got struct {
		Ticks, Commits, Unticks int
		BornTicked              int               `json:"born_ticked"`
		PerCommit               map[string][3]int `json:"per_commit"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("tickcount.py output: %v\n%s", err, out)
	}
	if [4]int{got.Ticks, got.Commits, got.Unticks, got.BornTicked} != script {
		t.Errorf("tickcount.py: %d ticks in %d commits, %d unticks, %d born_ticked; want %v", got.Ticks, got.Commits, got.Unticks, got.BornTicked, script)
	}
	ours := map[string][3]int{}
	for _, tk := range ticks {
		c := ours[string(tk.Commit)]
		switch tk.Kind {
		case KindTick:
			c[0]++
		case KindUntick:
			c[1]++
		case KindBornTicked:
			c[2]++
		default:
			continue
		}
		ours[string(tk.Commit)] = c
	}
	for c := range ours {
		if _, ok := got.PerCommit[c]; !ok {
			got.PerCommit[c] = [3]int{}
		}
	}
	for c, want := range got.PerCommit {
		if ours[c] == want {
			continue
		}
		if strings.HasPrefix(c, "518f31af") && ours[c] == [3]int{1, 0, 0} && want == [3]int{0, 0, 1} {
			continue // a one-line tasks file moved and ticked: git -M misses the move
		}
		t.Errorf("commit %s: taskproof %v ticks/unticks/born_ticked, tickcount.py %v", c, ours[c], want)
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
	ticks, err := Range(r, base, c2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind          Kind
		commit        gitref.Hash
		path, oldPath string
		id            string
		line          int
	}{
		{KindTick, c1, "specs/001-a/tasks.md", "specs/001-a/tasks.md", "T001", 1},
		{KindUntick, c1, "specs/001-a/tasks.md", "specs/001-a/tasks.md", "T002", 2},
		{KindTick, c2, "openspec/changes/archive/2026-01-01-add-x/tasks.md", "openspec/changes/add-x/tasks.md", "1.1", 2},
		{KindEdit, c2, "openspec/changes/archive/2026-01-01-add-x/tasks.md", "openspec/changes/add-x/tasks.md", "1.3", 4},
		// A new tasks file is not a tick (docs/format.md#units-and-task-lines):
		// its ticked task is born_ticked.
		{KindBornTicked, c2, "specs/002-new/tasks.md", "", "T001", 1},
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
	// line_hash of T001: sha256 of the commit's line read as open, CR dropped.
	// (computed with: printf -- '- [ ] T001 Alpha' | sha256sum)
	if got := ticks[0].LineHash; got != "27592e16a9bd3902122ba9c2d67240c60ad905479d6b45b8c36c045ec6228c5c" {
		t.Errorf("LineHash = %s", got)
	}
	if ticks[0].Before != "- [ ] T001 Alpha" || ticks[0].After != "- [X] T001 Alpha" || ticks[0].Unit.Feature != "001-a" || ticks[0].Born {
		t.Errorf("tick 0 = %+v", ticks[0])
	}
	// printf -- '- [ ] T001 Born ticked' | sha256sum
	if b := ticks[4]; !b.Born || b.Before != "" || b.OldLine != 0 || b.LineHash != "ec002d78aead3bbb53ef959efb8b8920aa4dd5645f73037bd67d2b3658f8aa60" {
		t.Errorf("born_ticked record = %+v", b)
	}
}

// TestTicksBorn: a ticked task with no predecessor in a tasks file the parent
// has (same path, or followed across a move) is a tick with Born set — added
// already ticked, ticked under a new derived ID (an ID-less task reworded), or
// a repeat of an ID that the parent has once. New open tasks are nothing; the
// ticked tasks of a new file are born_ticked. A tick that rewrites the task's
// text has the LineHash of its new text.
func TestTicksBorn(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "start", map[string]string{
		"specs/001-a/tasks.md":            "- [ ] T001 Alpha\n",
		"openspec/changes/add-x/tasks.md": "## 1. Setup\n- [ ] Add the parser\n- [ ] 1.2 Second\n- [ ] 5.3 Once\n",
		"openspec/changes/mv/tasks.md":    "- [ ] 2.1 A\n- [ ] 2.2 B\n- [ ] 2.3 C\n",
	})
	c1 := commitFiles(t, dir, "born", map[string]string{
		"specs/001-a/tasks.md": "- [ ] T001 Alpha\n- [x] T099 Implement auth\n- [ ] T100 Open, new\n",
		// The ID-less task is reworded as it is ticked (its derived ID changes);
		// 1.2 is ticked and reworded (same ID: an ordinary tick, TextChanged);
		// a second 5.3 is added ticked.
		"openspec/changes/add-x/tasks.md": "## 1. Setup\n- [x] Add the lexer\n- [x] 1.2 Second, reworded\n- [ ] 5.3 Once\n- [x] 5.3 Again\n",
		// Moved to the archive with a task added ticked.
		"openspec/changes/mv/tasks.md":                    "",
		"openspec/changes/archive/2026-01-01-mv/tasks.md": "- [ ] 2.1 A\n- [ ] 2.2 B\n- [ ] 2.3 C\n- [x] 2.4 D\n",
		"openspec/changes/new/tasks.md":                   "- [x] 9.1 Done\n- [ ] 9.2 Open\n",
	})
	r := open(t, dir)
	ticks, err := OfCommit(r, c1, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Hashes: printf -- '<line read as open>' | sha256sum; derived ID:
	// python3 -c "import hashlib; print(hashlib.sha256(b'Add the lexer').hexdigest()[:12])"
	want := []struct {
		kind                   Kind
		path, oldPath          string
		line, oldLine          int
		id                     string
		born, textChanged, amb bool
		lineHash               string
	}{
		{KindTick, "openspec/changes/add-x/tasks.md", "openspec/changes/add-x/tasks.md", 2, 0, "h-94ffa0770457", true, false, false,
			"4af84269faca7a7c8bfcc68ded69ae375026c9ad99cbbf4a5c0289bd14771126"},
		{KindTick, "openspec/changes/add-x/tasks.md", "openspec/changes/add-x/tasks.md", 3, 3, "1.2", false, true, false,
			"52932e0681a1439a6695e75f67406314ebfd9edf1a7cd60b133b60cad94da12b"},
		{KindTick, "openspec/changes/add-x/tasks.md", "openspec/changes/add-x/tasks.md", 5, 0, "5.3", true, false, true, ""},
		{KindTick, "openspec/changes/archive/2026-01-01-mv/tasks.md", "openspec/changes/mv/tasks.md", 4, 0, "2.4", true, false, false, ""},
		{KindBornTicked, "openspec/changes/new/tasks.md", "", 1, 0, "9.1", true, false, false, ""},
		{KindTick, "specs/001-a/tasks.md", "specs/001-a/tasks.md", 2, 0, "T099", true, false, false,
			"a7a6e695fe796ba780bca3690c4b227b82d6bd7911abf91a8f47c49c5710b033"},
	}
	if len(ticks) != len(want) {
		t.Fatalf("got %d records, want %d: %+v", len(ticks), len(want), ticks)
	}
	for i, w := range want {
		g := ticks[i]
		if g.Kind != w.kind || g.Path != w.path || g.OldPath != w.oldPath || g.Line != w.line || g.OldLine != w.oldLine ||
			g.TaskID != w.id || g.Born != w.born || g.TextChanged != w.textChanged || (g.Ambiguous != "") != w.amb {
			t.Errorf("record %d = %s %s<-%s:%d<-%d %s born=%v text_changed=%v ambiguous=%q; want %+v",
				i, g.Kind, g.Path, g.OldPath, g.Line, g.OldLine, g.TaskID, g.Born, g.TextChanged, g.Ambiguous, w)
		}
		if g.Born != (g.Before == "") || g.Commit != c1 {
			t.Errorf("record %d: Born %v with Before %q, commit %s", i, g.Born, g.Before, g.Commit)
		}
		if w.lineHash != "" && g.LineHash != w.lineHash {
			t.Errorf("record %d (%s): LineHash %s, want %s", i, g.TaskID, g.LineHash, w.lineHash)
		}
	}
	if a := ticks[2].Ambiguous; a != `specfmt: duplicate task id "5.3" on lines 4 and 5` {
		t.Errorf("repeated 5.3: Ambiguous %q", a)
	}
}

// TestTicksDerivedAndAmbiguous: ID-less tasks tick under their derived IDs
// (repeated titles numbered in file order); a file that repeats a written ID
// still has every changed line reported, with its real ID, and Ambiguous set
// only on the lines of the repeated ID (at the commit or at the parent).
func TestTicksDerivedAndAmbiguous(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "start", map[string]string{
		"openspec/changes/add-x/tasks.md": "## 1. Setup\n- [ ] Add the parser\n- [ ] 1.1 Numbered\n- [ ] Add the parser\n- [x] Write docs\n",
		"openspec/changes/dup/tasks.md":   "## 5. Tests\n- [ ] 5.3 One\n- [ ] 5.4 Other\n### More\n- [x] 5.3 Two\n",
		"openspec/changes/dup2/tasks.md":  "- [ ] 7.1 A\n- [ ] 7.1 B\n- [ ] 7.2 C\n",
	})
	c1 := commitFiles(t, dir, "tick", map[string]string{
		"openspec/changes/add-x/tasks.md": "## 1. Setup\n- [ ] Add the parser\n- [x] 1.1 Numbered\n- [X] Add the parser\n- [ ] Write docs\n",
		"openspec/changes/dup/tasks.md":   "## 5. Tests\n- [x] 5.3 One\n- [x] 5.4 Other\n### More\n- [ ] 5.3 Two\n",
		// 7.1 repeats only at the parent: still ambiguous (which line was ticked?).
		"openspec/changes/dup2/tasks.md": "- [x] 7.1 A\n- [x] 7.2 C\n",
	})
	r := open(t, dir)
	ticks, err := OfCommit(r, c1, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Derived IDs: python3 -c "import hashlib; print(hashlib.sha256(b'Add the parser').hexdigest()[:12])"
	const dupMsg = `specfmt: duplicate task id "5.3" on lines 2 and 5`
	want := []struct {
		kind      Kind
		path      string
		line      int
		id        string
		derived   bool
		ambiguous string
	}{
		{KindTick, "openspec/changes/add-x/tasks.md", 3, "1.1", false, ""},
		{KindTick, "openspec/changes/add-x/tasks.md", 4, "h-44f8786eea03-2", true, ""},
		{KindUntick, "openspec/changes/add-x/tasks.md", 5, "h-345b88bffbe2", true, ""},
		{KindTick, "openspec/changes/dup/tasks.md", 2, "5.3", false, dupMsg},
		// 5.4 is written once: an ordinary tick in a file that repeats 5.3.
		{KindTick, "openspec/changes/dup/tasks.md", 3, "5.4", false, ""},
		{KindUntick, "openspec/changes/dup/tasks.md", 5, "5.3", false, dupMsg},
		{KindTick, "openspec/changes/dup2/tasks.md", 1, "7.1", false, `specfmt: duplicate task id "7.1" on lines 1 and 2`},
		{KindTick, "openspec/changes/dup2/tasks.md", 2, "7.2", false, ""},
	}
	if len(ticks) != len(want) {
		t.Fatalf("got %d records, want %d: %+v", len(ticks), len(want), ticks)
	}
	for i, w := range want {
		g := ticks[i]
		if g.Kind != w.kind || g.Path != w.path || g.Line != w.line || g.TaskID != w.id || g.Derived != w.derived || g.Ambiguous != w.ambiguous {
			t.Errorf("record %d = %s %s:%d %s derived=%v ambiguous=%q; want %+v", i, g.Kind, g.Path, g.Line, g.TaskID, g.Derived, g.Ambiguous, w)
		}
	}
	// Derived IDs name skip records: refs/speccoder/skipped/<feature>/<task>
	// (git check-ref-format judges).
	for _, tk := range ticks {
		name := "refs/speccoder/skipped/" + tk.Unit.Feature + "/" + tk.TaskID
		cmd := exec.Command("git", "check-ref-format", name)
		cmd.Env = testenv.GitEnv()
		if err := cmd.Run(); err != nil {
			t.Errorf("%s is not a valid ref name: %v", name, err)
		}
	}
	// The tick's line_hash is the commit's line read as open (the same bytes
	// as the parent's here):
	// printf -- '- [ ] Add the parser' | sha256sum
	if got := ticks[1].LineHash; got != "930dd2c6bdbdc44efa9b1b839c307af1b27b98b95e7b02649915d2bf746de98d" {
		t.Errorf("LineHash = %s", got)
	}
}
