package specfmt

import (
	"bytes"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"",
	"- [ ] T001 Create project\n* [x] T002 [P] [US1] Tests\r\n",
	"\ufeff# Tasks\r\n\r\n## 1. Setup\r\n- [X] 1.1 Do\r\n  - [-] 1.1.1 Sub\r\n",
	"```\n- [ ] T001 fenced\n```\n<!--\n- [ ] 1.1 commented\n-->\n~~~~\n",
	"- [ ] 1. 親\n  - _Requirements: 1.2, 3.4_\n  - [x] 1.1 子\n- [ ] 1.2 flat\n",
	"- [P] tasks = x\n- [ ] no id\n- [ ]\n1) [x] 2.3.1. deep\n\t+ [ ]\tT9\ttab\n",
	"- [x] Add the parser\n- [ ] [P] Add the parser\n  - [ ] Add the parser\n- [ ] 1.1 sub\n",
	"## 5.\n- [x] 5.3 One\n### A\n- [ ] 5.3 Two\n- [ ] 5.3 Three\n",
	"- [ ] T001 a\n- [ ] T001 b\n",
	"- [ ] T001 \xff\n",
	"<!-- a --> <!-- b\n- [ ] 1 x\n--> - [ ] 2 y\n",
}

// checkTasks asserts what must hold of any successful parse.
func checkTasks(t *testing.T, u Unit, content []byte, f *TasksFile, err error) {
	t.Helper()
	if err != nil {
		if f != nil || !(errors.Is(err, ErrDuplicateTask) || errors.Is(err, ErrInvalidUTF8) || errors.Is(err, ErrNestingTooDeep) || errors.Is(err, ErrHiddenCheckbox) || (errors.Is(err, ErrNotText) && !isText(content))) {
			t.Fatalf("ParseTasks = %v, %v", f, err)
		}
		return
	}
	lines := taskLinesOracle(content)
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
		// A derived ID is DeriveID(Title), "-n" appended for the n-th repeat.
		wantID := tk.ID
		if tk.Derived {
			if !derivedIDRE.MatchString(tk.ID) || !strings.HasPrefix(tk.ID, DeriveID(tk.Title)) {
				t.Fatalf("task %s: derived ID of title %q is not ref-safe DeriveID", tk.ID, tk.Title)
			}
			wantID = DeriveID(tk.Title)
		} else if strings.HasPrefix(tk.ID, "h-") {
			t.Fatalf("task %s: written ID looks derived", tk.ID)
		}
		// The open line read alone at the same box is the same task: ticking
		// the box changes neither the ID nor the title.
		if g := parseTaskAt(u.Format, ol, tk.BoxCol, 0); g.ID != wantID || g.Title != tk.Title || g.OpenLine() != ol {
			t.Fatalf("task %s: open line %q reads as %+v", tk.ID, ol, g)
		}
	}
}

// taskLinesOracle splits content into lines as ParseTasks numbers them: a
// leading BOM dropped, lines ending at "\n", "\r\n" or a lone "\r", a final
// ending not making an empty line.
func taskLinesOracle(content []byte) []string {
	s := strings.TrimPrefix(string(content), bom)
	if s == "" {
		return nil
	}
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// derivedIDRE is the form of every derived task ID: ref-safe by construction.
var derivedIDRE = regexp.MustCompile(`^h-[0-9a-f]{12}(-[1-9][0-9]*)?$`)

// checkLenient asserts that AllowDuplicateIDs only relaxes the duplicate rule:
// it fails exactly when the strict parse fails for another reason, otherwise
// holds every task line the strict parse holds, on the same lines, and Lookup
// refuses exactly the IDs listed in Duplicates, naming their first two lines.
func checkLenient(t *testing.T, u Unit, content []byte, strict *TasksFile, strictErr error) {
	t.Helper()
	f, err := ParseTasks(u, content, AllowDuplicateIDs())
	if errors.Is(strictErr, ErrDuplicateTask) {
		if err != nil {
			if !errors.Is(err, ErrInvalidUTF8) && !errors.Is(err, ErrNestingTooDeep) && !errors.Is(err, ErrHiddenCheckbox) {
				t.Fatalf("lenient parse: %v", err)
			}
			return
		}
		if len(f.Duplicates) == 0 || f.Duplicates[0].Error() != strictErr.Error() {
			t.Fatalf("lenient parse of a file with a repeated ID: Duplicates %v, strict error %v", f.Duplicates, strictErr)
		}
		lines := map[string][]int{}
		for _, tk := range f.Tasks {
			lines[tk.ID] = append(lines[tk.ID], tk.LineNo)
		}
		repeated := map[string]bool{}
		for _, d := range f.Duplicates {
			if repeated[d.ID] || len(lines[d.ID]) < 2 || d.FirstLine != lines[d.ID][0] || d.SecondLine != lines[d.ID][1] {
				t.Fatalf("Duplicates entry %v: lines of %q are %v", d, d.ID, lines[d.ID])
			}
			repeated[d.ID] = true
		}
		for id, ls := range lines {
			tk, err := f.Lookup(id)
			var de *DuplicateTaskError
			switch {
			case len(ls) > 1 && (!repeated[id] || !errors.As(err, &de) || de.FirstLine != ls[0] || de.SecondLine != ls[1]):
				t.Fatalf("Lookup(%q) on lines %v = %v, want a *DuplicateTaskError", id, ls, err)
			case len(ls) == 1 && (repeated[id] || err != nil || tk.LineNo != ls[0]):
				t.Fatalf("Lookup(%q) on line %d = line %d, %v", id, ls[0], tk.LineNo, err)
			}
			if _, ok := f.Find(id); ok != (len(ls) == 1) {
				t.Fatalf("Find(%q) = %v with %d lines", id, ok, len(ls))
			}
		}
		return
	}
	if (err == nil) != (strictErr == nil) {
		t.Fatalf("lenient parse err = %v, strict %v", err, strictErr)
	}
	if err != nil {
		return
	}
	if f.Duplicates != nil || len(f.Tasks) != len(strict.Tasks) {
		t.Fatalf("lenient parse of a clean file: Duplicates %v, %d tasks (strict %d)", f.Duplicates, len(f.Tasks), len(strict.Tasks))
	}
	for i := range f.Tasks {
		if !reflect.DeepEqual(f.Tasks[i], strict.Tasks[i]) {
			t.Fatalf("lenient task %d = %+v, strict %+v", i, f.Tasks[i], strict.Tasks[i])
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
		checkLenient(t, u, content, tf, err)
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

// isText is the oracle of checkText: UTF-8 with no NUL byte, within the size limit.
func isText(content []byte) bool {
	return len(content) <= MaxTasksFileSize && utf8.Valid(content) && !bytes.Contains(content, []byte{0})
}
