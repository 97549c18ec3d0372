package specfmt

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// bigKiroTasks is a Kiro tasks file of n top-level tasks, each with four
// sub-tasks and a _Requirements_ line.
func bigKiroTasks(n int) []byte {
	var b strings.Builder
	b.WriteString("# 実装計画\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [x] %d. タスク %d\n  - 説明\n  - _Requirements: %d.1, %d.2_\n\n", i, i, i%7+1, i%5+1)
		for j := 1; j <= 4; j++ {
			fmt.Fprintf(&b, "  - [ ] %d.%d サブタスク\n", i, j)
		}
	}
	return []byte(b.String())
}

// BenchmarkParseTasks parses a 5,000-task Kiro file (about 300 KB).
func BenchmarkParseTasks(b *testing.B) {
	content := bigKiroTasks(1000)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := ParseTasks(kiUnit, content); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTasksFootnote is BenchmarkParseTasks on the file with a
// footnote definition at its end: a file holding "[^" is read a second time,
// with footnote definitions (compare the two for the cost).
func BenchmarkParseTasksFootnote(b *testing.B) {
	content := append(bigKiroTasks(1000), "\n[^1]: - [x] 1001. in a footnote\n"...)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := ParseTasks(kiUnit, content); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseTasksFlat parses 20,000 unindented tasks under one heading: the
// parent search must stay linear.
func BenchmarkParseTasksFlat(b *testing.B) {
	var sb strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&sb, "- [ ] T%05d task\n", i)
	}
	content := []byte(sb.String())
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := ParseTasks(skUnit, content); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSectionKiro computes a Kiro section citing seven requirements.
func BenchmarkSectionKiro(b *testing.B) {
	var sb strings.Builder
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&sb, "### Requirement %d\n\n%s\n", i, strings.Repeat("1. WHEN x THEN y SHALL z\n", 40))
	}
	fsys := fstest.MapFS{".kiro/specs/auth/requirements.md": {Data: []byte(sb.String())}}
	t := Task{Requirements: []string{"1.1", "2.1", "3.1", "4.1", "5.1", "6.1", "7.1"}}
	for b.Loop() {
		if _, err := Section(fsys, kiUnit, t); err != nil {
			b.Fatal(err)
		}
	}
}

// bigTriggerTasks is a spec-kit tasks file of n one-line tasks whose header
// holds one trigger of each of readGFM's later readings: a footnote ("[^"),
// a "<textarea" tag, a tab, a table delimiter row and an item that starts
// empty ("-" alone). With n = 120,000 it is 1.8 MB.
func bigTriggerTasks(n int, triggers bool) []byte {
	var b strings.Builder
	b.WriteString("# Tasks\n\n")
	if triggers {
		b.WriteString("See the note[^1] and <textarea>x</textarea>.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n-\n\n\tindented\n\n[^1]: a footnote\n\n")
	}
	b.WriteString("## Phase 1\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] T%d x\n", i)
	}
	return []byte(b.String())
}

// BenchmarkParseTasksTriggers parses the 1.8 MB file of 120,000 tasks with
// and without its header of triggers: each later reading reads only the
// lines around its triggers, so the two cost the same
// (docs/benchmarks.md#bounded-input).
func BenchmarkParseTasksTriggers(b *testing.B) {
	for _, tc := range []struct {
		name     string
		triggers bool
	}{{"plain", false}, {"triggers", true}} {
		b.Run(tc.name, func(b *testing.B) {
			content := bigTriggerTasks(120000, tc.triggers)
			b.SetBytes(int64(len(content)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := ParseTasks(skUnit, content, AllowDuplicateIDs())
				if err != nil || len(f.Tasks) != 120000 {
					b.Fatalf("%d tasks, %v", len(f.Tasks), err)
				}
			}
		})
	}
}
