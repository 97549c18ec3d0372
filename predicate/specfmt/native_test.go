package specfmt

import (
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/predicate/gfm"
)

// TestUnionReadings: a box either reading — GitHub's, or the format's own
// tool's — sees done is a ticked task; a box either sees open is an open
// task (docs/format.md#the-formats-own-readings).
func TestUnionReadings(t *testing.T) {
	for _, tt := range []struct {
		format  Format
		content string
		// want lists each task: ID, ticked, reading.
		want []string
	}{
		{OpenSpec, "- [ x] 1.1 Padded\n- [x ] 1.2 Padded\n+ [x] 1.3 Plus\n1) [x] 1.4 Paren\n",
			[]string{"1.1 ticked tool", "1.2 ticked tool", "1.3 ticked github+tool", "1.4 ticked github+tool"}},
		{OpenSpec, "```\n- [x] 1.3 Fenced\n```\n<!--\n- [x] 1.4 Commented\n-->\n<!-- - [x] 1.5 One line -->\n",
			[]string{"1.3 ticked tool", "1.4 ticked tool", "1.5 ticked tool"}},
		{OpenSpec, "- [ ] 1.1 Open\n-[ ] 1.2 Glued\n- [~] 1.3 Deferred\n- [A](https://example.com)\n- [] 1.4 Empty\n",
			[]string{"1.1 open github+tool", "1.2 open tool", "1.3 open tool"}},
		// GitHub's [x]-anywhere rule is GitHub's: a box only the tool reads
		// is ticked by what it holds.
		{OpenSpec, "```\n- [ ] 1.1 Parse [x] marks\n```\n- [ ] 1.2 Parse [x] marks\n",
			[]string{"1.1 open tool", "1.2 ticked github+tool"}},
		{SpecWorkflow, "- [ ] 1. Pending\n- [-] 2. Going\n- [x] 3. Done\n- [~] 4. Blocked\n- [X] 5. Upper\n```\n- [x] 6. Fenced\n```\n",
			[]string{"1 open github+tool", "2 open github+tool", "3 ticked github+tool", "4 open tool", "5 ticked github+tool", "6 ticked tool"}},
		{SpecWorkflow, "- [x] **P3.0** — unnumbered\n",
			[]string{"h-" + DeriveID("**P3.0** — unnumbered")[2:] + " ticked github"}},
		// Kiro's optional tasks: goldmark reads "- [x]*" as a task, as Kiro does.
		{Kiro, "- [ ]* 1. Optional\n- [x]* 2. Optional done\n", []string{"1 open github", "2 ticked github"}},
		{CCSDD, "- [x] 1.1 (P) Parallel\n- [ ]* 1.2 Optional (P)\n", []string{"1.1 ticked github", "1.2 open github"}},
		// Formats without a reading of their own read GitHub's boxes only.
		{Speckit, "```\n- [x] T001 Fenced\n```\n- [ ] [T002] Bracketed\n", []string{"T001 ticked tool", "T002 open github"}},
		{AgentOS, "- [ x] 1. Padded\n- [x] 2. Done\n", []string{"2 ticked github"}},
	} {
		f, err := ParseTasks(Unit{tt.format, "v", "v"}, []byte(tt.content), AllowDuplicateIDs())
		if err != nil {
			t.Fatalf("%s %q: %v", tt.format, tt.content, err)
		}
		var got []string
		for _, tk := range f.Tasks {
			state := "open"
			if tk.Ticked() {
				state = "ticked"
			}
			if tk.Open() == tk.Ticked() {
				t.Errorf("%s %q: task %s open %v ticked %v", tt.format, tt.content, tk.ID, tk.Open(), tk.Ticked())
			}
			got = append(got, tk.ID+" "+state+" "+tk.Reading.String())
		}
		if strings.Join(got, "; ") != strings.Join(tt.want, "; ") {
			t.Errorf("%s %q:\n got %v\nwant %v", tt.format, tt.content, got, tt.want)
		}
	}
}

// TestUnionUnreadable: a box the tool reads whose brackets span lines (a lone
// "\r" inside them, which the tool does not end lines at) fails closed.
func TestUnionUnreadable(t *testing.T) {
	for _, c := range []string{"- [\rx] 1.1 split\n", "- [ \r] 1.1 split\n"} {
		_, err := ParseTasks(Unit{OpenSpec, "v", "v"}, []byte(c))
		var le *LineError
		if !errors.Is(err, ErrUnreadableBox) || !errors.As(err, &le) || le.Line != 1 {
			t.Errorf("%q: %v", c, err)
		}
		if err := CheckTasks(Unit{OpenSpec, "v", "v"}, []byte(c)); !errors.Is(err, ErrUnreadableBox) {
			t.Errorf("CheckTasks(%q) = %v", c, err)
		}
	}
}

// FuzzUnion holds ParseTasks to the union of the two readings: every box
// GitHub's reading or the format's tool's sees is a task on its line (a box
// the tool reads with no character to read as the box aside), ticked when
// either sees it done; every task is one of them.
func FuzzUnion(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range []string{
		"- [ x] 1.1 a\n```\n- [x] 1.2 b\n```\n<!-- - [x] 1.3 -->\n+ [x] 1.4\n1) [x] 1.5\n-[x] 1.6\n",
		"- [-] 1. a\n- [~] 2. b\n- [x] 3\\. c\n* [x] 4. d\n",
		"- [ ] 1.1 a\r- [x] 1.2 b\n- [\rx] 1.3\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		content := []byte(s)
		for _, format := range []Format{OpenSpec, SpecWorkflow, Speckit} {
			file, err := ParseTasks(Unit{format, "v", "v"}, content, AllowDuplicateIDs())
			if err != nil {
				if !(errors.Is(err, ErrUnreadableBox) || errors.Is(err, ErrInvalidUTF8) || errors.Is(err, ErrNestingTooDeep) ||
					errors.Is(err, ErrHiddenCheckbox) || errors.Is(err, ErrNotText) || errors.Is(err, ErrLFSPointer)) {
					t.Fatalf("%s: ParseTasks: %v", format, err)
				}
				continue
			}
			github, err := gfm.Read(content, false)
			if err != nil {
				t.Fatalf("%s: ParseTasks read what readGFM refuses: %v", format, err)
			}
			lines := LineStarts(content)
			byLine := map[int]Task{}
			for _, tk := range file.Tasks {
				byLine[tk.LineNo-1] = tk
			}
			seen := map[int]bool{}
			for i, l := range github {
				if l.Box < 0 {
					continue
				}
				tk, ok := byLine[i]
				if !ok || tk.BoxCol != l.Box || tk.Reading == ReadByTool {
					t.Fatalf("%s: GitHub's box on line %d: task %+v", format, i+1, tk)
				}
				if c := l.Text[l.Box]; (c == 'x' || c == 'X' || l.CheckedBy > 0) && !tk.Ticked() {
					t.Fatalf("%s: line %d: GitHub's done box is not ticked", format, i+1)
				}
				seen[i] = true
			}
			bom := 0
			if strings.HasPrefix(s, "\ufeff") {
				bom = 3
			}
			boxes := nativeBoxes(format, content)
			if format == Speckit {
				all, err := gfm.Read(content, true)
				if err != nil {
					t.Fatal(err)
				}
				boxes = agentHidden(Unit{format, "v", "v"}, all, content, boxes)
			}
			for _, b := range boxes {
				col, ok := nativeBoxCol([]byte(s[bom:]), b)
				if !ok {
					continue
				}
				i := 0
				for i+1 < len(lines) && lines[i+1]-bom <= b.Open {
					i++
				}
				tk, found := byLine[i]
				if !found || tk.BoxCol != col-(lines[i]-bom) || (tk.Reading == ReadByGitHub) {
					t.Fatalf("%s: the tool's box at %d (line %d): task %+v", format, b.Open, i+1, tk)
				}
				if b.Done && !tk.Ticked() {
					t.Fatalf("%s: line %d: the tool's done box is not ticked", format, i+1)
				}
				seen[i] = true
			}
			for _, tk := range file.Tasks {
				if !seen[tk.LineNo-1] {
					t.Fatalf("%s: task %s on line %d is no reading's box", format, tk.ID, tk.LineNo)
				}
				if tk.Ticked() == tk.Open() {
					t.Fatalf("%s: task %s is ticked and open", format, tk.ID)
				}
			}
		}
	})
}
