package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// GitHub renders tasks files with cmark-gfm, whose reading differs from
// goldmark's in places; a task GitHub shows checked is a tick wherever the
// two differ (docs/format.md#task-recognition-follows-goldmark). The tests
// below build each repository with the real git.

// TestGateCheckedOutsideBox: cmark-gfm checks a task item whose line holds
// "[x]" or "[X]" anywhere, whatever its box holds. Adding one to an open
// task's line, or writing a task with one in its title, is a tick: without
// evidence the gate fails; attested, it passes.
func TestGateCheckedOutsideBox(t *testing.T) {
	const path = "specs/001-face/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	r.attest(t, r.tick(t, []string{path}, "T001"))
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	ticked := string(b)
	ticked = strings.Replace(ticked, "- [ ] T002 Write the test\n", "- [ ] T002 Write the test [X]\n", 1)
	ticked += "- [ ] T003 Parse `[x]` boxes\n"
	c := r.commit(t, "T002 and T003 shown done", map[string]string{path: ticked})
	out, _ := r.run(t, 0, "ticks", "main..HEAD")
	for _, id := range []string{"T002", "T003"} {
		if !strings.Contains(out, id) {
			t.Errorf("ticks does not list %s:\n%s", id, out)
		}
	}
	rep := r.gate(t, 1)
	checkTicksFail(t, rep, path, "T002", "T003")
	checkFails(t, rep, path+" ticked_without_evidence")
	r.attest(t, c)
	if rep := r.gate(t, 0); rep.Conclusion != "success" {
		t.Errorf("gate after attesting: %s (%s), want success", rep.rows(), rep.Conclusion)
	}
	// Taking the "[X]" away again is an untick, as unchecking the box is.
	unticked := strings.Replace(ticked, "T002 Write the test [X]", "T002 Write the test", 1)
	r.commit(t, "T002 reopened", map[string]string{path: unticked})
	out, _ = r.run(t, 0, "ticks", "HEAD~1..HEAD")
	if !strings.Contains(out, "T002") {
		t.Errorf("ticks HEAD~1..HEAD does not list T002's untick:\n%s", out)
	}
}

// TestGateCmarkGFMHTMLBlocks: a tag alone on a line after a ticked task (a
// lazy line: cmark-gfm starts an HTML block there, goldmark continues the
// item's paragraph), or a stray "</pre>", followed by a fence opener or
// "<!--", hid every later task from goldmark's reading while GitHub renders
// them ticked: they are ticks, and without evidence the gate fails.
func TestGateCmarkGFMHTMLBlocks(t *testing.T) {
	for _, tt := range []struct{ name, before, after string }{
		{"lazy br", "", "<br>\n~~~\n\n"},
		{"lazy span", "", "<span>\n<!--\n\n"},
		{"closing pre", "</pre>\n~~~\n\n", ""},
		{"closing script", "</script>\n<!--\n\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkHiddenTicks(t, func(tasks string) string {
				tasks = strings.Replace(tasks, "- [x] T001 Create the skeleton\n", tt.before+"- [x] T001 Create the skeleton\n"+tt.after, 1)
				tasks = strings.Replace(tasks, "- [ ] T002", "- [x] T002", 1)
				return strings.Replace(tasks, "- [ ] T003", "- [x] T003", 1)
			})
		})
	}
}

// TestGateHiddenTicks: sub-tasks cmark-gfm renders checked where goldmark's
// reading saw no task (before taskproof's GitHub readings) are ticks: without
// evidence the gate fails on both. Each case rewrites the "- [ ] T002" and
// "- [ ] T003" lines of the fixture.
func TestGateHiddenTicks(t *testing.T) {
	for _, tt := range []struct{ name, t002, t003 string }{
		// A vertical tab between the marker and the box; two spaces and a tab
		// before a sub-task.
		{"blanks", "- \v[x] T002", "  \t- [x] T003"},
		// Three spaces and a tab: column four, a tab one column wide.
		{"three spaces and a tab", "   \t- [x] T002", "   \t1. [x] T003"},
		// Under an item that starts empty: after a blank line, and after a
		// sub-task of another marker with a wide gap.
		{"items that start empty", "1)\n   -\n\n      * [x] T002", "-\n  +   [ ] T004 Bench it\n    + [x] T003"},
		// A tab after a nested item's marker, counted from the line's start.
		{"tab after a nested marker", "+\n    2)\t[ ] T004 Bench it\n        *   [x] T002", "- Later\n  1)\t[ ] T005 Document it\n        * [x] T003"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkHiddenTicks(t, func(tasks string) string {
				tasks = strings.Replace(tasks, "- [ ] T002", tt.t002, 1)
				return strings.Replace(tasks, "- [ ] T003", tt.t003, 1)
			})
		})
	}
}

// TestGateItemBoxReRead: GitHub re-reads a task item's box from a later
// line that ends in the item and looks like a checked task, and shows the
// task checked whatever its box holds: it is a tick, and without evidence the
// gate fails. Such lines: one continuing a paragraph of a block quote in the
// item without the quote's ">"; the first line of a later paragraph of the
// item starting "2024 [x]"; and, with GitHub's footnotes and tables, one
// continuing a footnote definition less indented than its content, or the
// first after code that a table's over-indented row started. In an item
// without a box GitHub shows a checked task taskproof cannot name: the gate
// fails on the tasks file, naming the line; a checked item GitHub starts
// under a table's code is a task, ticked without evidence.
func TestGateItemBoxReRead(t *testing.T) {
	for _, tt := range []struct{ name, t002, t003 string }{
		{"quote and paragraph", "  > a note\n      - [x] see above\n", "\n  2024 [x] wired\n"},
		{"footnote and table", "  [^1]: see the notes\n  2024 [x] written\n", "  |---|\n      wired in main.go\n  2024 [x] wired\n"},
		{"link reference definitions", "  > [spec]: ../spec.md\n  2024 [x] written\n", "  [^1]:\n      [plan]: ../plan.md\n  2024 [x] wired\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkHiddenTicks(t, func(tasks string) string {
				tasks = strings.Replace(tasks, "- [ ] T002 Write the test\n", "- [ ] T002 Write the test\n"+tt.t002, 1)
				return strings.Replace(tasks, "- [ ] T003 Wire it up\n", "- [ ] T003 Wire it up\n"+tt.t003, 1)
			})
		})
	}
	const path = "specs/001-face/tasks.md"
	for _, tt := range []struct{ add, want string }{
		{"- Notes\n  > shipped\n      - [x] T009 Ship it\n", "line 9: specfmt"},
		{"-\n  2024 [x] T009 Ship it\n", "line 8: specfmt"}, // an item that starts empty
		{"- Notes\n  |---|\n      code\n  2. [x] shipped\n", path + ":10 "},
	} {
		// A repository each: the range holds the one change.
		r := newGateRepo(t, map[string]string{path: gateTasks})
		r.attest(t, r.tick(t, []string{path}, "T001"))
		b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		r.commit(t, "a note", map[string]string{path: string(b) + tt.add})
		out, errOut := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
		if !strings.Contains(out+errOut, path) || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("verify: want the gate failing on %s naming %q:\n%s\n%s", path, tt.want, out, errOut)
		}
	}
}

// TestGateLFSPointer: a tasks file replaced by a Git LFS pointer (the ticked
// file in LFS storage, which clones with git-lfs check out) fails the gate,
// naming the file, instead of reading as a file without tasks.
func TestGateLFSPointer(t *testing.T) {
	const path = "specs/001-face/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	r.attest(t, r.tick(t, []string{path}, "T001"))
	r.commit(t, "tasks in LFS", map[string]string{
		".gitattributes": "specs/**/tasks.md filter=lfs diff=lfs merge=lfs -text\n",
		path:             "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 120\n",
	})
	out, errOut := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(out+errOut, path) || !strings.Contains(out+errOut, "LFS pointer") {
		t.Errorf("verify: want the gate failing on %s as an LFS pointer:\n%s\n%s", path, out, errOut)
	}
}
