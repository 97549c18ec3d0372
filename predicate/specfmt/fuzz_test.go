package specfmt

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

var fuzzSeeds = []string{
	"",
	"- [ ] T001 Create project\n* [x] T002 [P] [US1] Tests\r\n",
	"\ufeff# Tasks\r\n\r\n## 1. Setup\r\n- [X] 1.1 Do\r\n  - [-] 1.1.1 Sub\r\n",
	"```\n- [ ] T001 fenced\n```\n<!--\n- [ ] 1.1 commented\n-->\n~~~~\n",
	"- [ ] 1. 親\n  - _Requirements: 1.2, 3.4_\n  - [x] 1.1 子\n- [ ] 1.2 flat\n",
	"- [P] tasks = x\n- [ ] no id\n- [ ]\n1) [x] 2.3.1. deep\n\t+ [ ]\tT9\ttab\n",
	"- [ ] T001 a\n- [ ] T001 b\n",
	"- [ ] T001 \xff\n",
	"<!-- a --> <!-- b\n- [ ] 1 x\n--> - [ ] 2 y\n",
}

// checkTasks asserts what must hold of any successful parse.
func checkTasks(t *testing.T, u Unit, content []byte, f *TasksFile, err error) {
	t.Helper()
	if err != nil {
		if f != nil || !(errors.Is(err, ErrDuplicateTask) || errors.Is(err, ErrInvalidUTF8)) {
			t.Fatalf("ParseTasks = %v, %v", f, err)
		}
		return
	}
	lines := splitLines(content)
	ids := map[string]bool{}
	for _, tk := range f.Tasks {
		if tk.LineNo < 1 || tk.LineNo > len(lines) || lines[tk.LineNo-1] != tk.Line {
			t.Fatalf("task %s: line %d %q is not the file's", tk.ID, tk.LineNo, tk.Line)
		}
		if tk.BoxCol < 1 || tk.BoxCol+1 >= len(tk.Line) || tk.Line[tk.BoxCol-1] != '[' || tk.Line[tk.BoxCol+1] != ']' || tk.Line[tk.BoxCol] != tk.Box {
			t.Fatalf("task %s: box %q at %d in %q", tk.ID, tk.Box, tk.BoxCol, tk.Line)
		}
		if !tk.Open() && !tk.Ticked() {
			t.Fatalf("task %s: box %q neither open nor ticked", tk.ID, tk.Box)
		}
		ol := tk.OpenLine()
		if len(ol) != len(tk.Line) || ol[tk.BoxCol] != ' ' || strings.Contains(ol, "\n") {
			t.Fatalf("task %s: open line %q", tk.ID, ol)
		}
		if tk.ID == "" || ids[tk.ID] {
			t.Fatalf("task ID %q empty or repeated", tk.ID)
		}
		if tk.Parent != "" && !ids[tk.Parent] {
			t.Fatalf("task %s: parent %q does not precede it", tk.ID, tk.Parent)
		}
		ids[tk.ID] = true
		// The open line alone (with a CRLF ending: a line may itself end in a lone
		// "\r") is the same task.
		g, err := ParseTasks(u, []byte(ol+"\r\n"))
		if err != nil || len(g.Tasks) != 1 || g.Tasks[0].ID != tk.ID || g.Tasks[0].Title != tk.Title || g.Tasks[0].OpenLine() != ol {
			t.Fatalf("task %s: line %q alone parses as %+v, %v", tk.ID, ol, g, err)
		}
	}
}

func fuzzParse(f *testing.F, u Unit) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		tf, err := ParseTasks(u, content)
		checkTasks(t, u, content, tf, err)
	})
}

func FuzzParseSpeckit(f *testing.F)  { fuzzParse(f, skUnit) }
func FuzzParseOpenSpec(f *testing.F) { fuzzParse(f, osUnit) }
func FuzzParseKiro(f *testing.F)     { fuzzParse(f, kiUnit) }

// FuzzSection parses tasks and a spec document for every format and computes each
// task's section: it must not panic, and a spec-kit or OpenSpec section is always a
// run of whole lines of its document.
func FuzzSection(f *testing.F) {
	f.Add([]byte("- [ ] T001 [US1] x\n- [ ] 1.1 log clean process\n  - _Requirements: 1.1, 2_\n"),
		[]byte("# S\n### User Story 1 - a\nx\n### Requirement: Log Clean Process\ny\n### Requirement 1\nz\n### Requirement 2\n"))
	f.Add([]byte("## 1. Run lock\n- [x] 1.1 a\n"), []byte("```\n### Requirement: Run Lock\n```\n## User Story 1\n"))
	f.Fuzz(func(t *testing.T, tasks, doc []byte) {
		for _, u := range []Unit{skUnit, osUnit, kiUnit} {
			fsys := fstest.MapFS{
				u.Dir + "/spec.md":         {Data: doc},
				u.Dir + "/specs/x/spec.md": {Data: doc},
				u.Dir + "/requirements.md": {Data: doc},
			}
			tf, err := ParseTasks(u, tasks)
			if err != nil {
				continue
			}
			whole := strings.Join(splitLines(doc), "\n")
			for _, tk := range tf.Tasks {
				s, err := Section(fsys, u, tk)
				if err != nil {
					if !errors.Is(err, ErrSectionNotFound) {
						t.Fatalf("%s task %s: %v", u.Format, tk.ID, err)
					}
					continue
				}
				if s != nil && u.Format != Kiro && !strings.Contains(whole, string(s.Text)) {
					t.Fatalf("%s task %s: section %q not a run of the document's lines", u.Format, tk.ID, s.Text)
				}
			}
		}
	})
}
