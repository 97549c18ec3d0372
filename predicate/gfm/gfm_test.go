package gfm

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The differential tests hold Read to goldmark (v1.8, CommonMark with the
// GFM TaskList extension, default options, read with and without the Footnote
// extension's definitions), the reference reading of a tasks file
// (docs/format.md#units-and-task-lines): every checkbox goldmark renders is
// a task at the same line and column, ticked when goldmark checks it, open
// otherwise; every task is such a checkbox (a "[-]" box is one once its "-" is a
// space); and no task's box lies in code (fenced or indented blocks, code spans)
// or raw HTML (blocks, inline HTML and comments) as goldmark reads them.

// gfmReference is goldmark as GitHub-flavoured task lists are read with it.
var gfmReference = goldmark.New(goldmark.WithExtensions(extension.TaskList))

// gfmFootnotes is gfmReference with footnote definitions (GitHub renders
// their blocks). Only the Footnote extension's block parser: its AST
// transformer drops the definitions no link references, whose tasks are
// tasks all the same. A file's tasks are the checkboxes of either reading:
// footnotes make more lines tasks, never fewer.
var gfmFootnotes = goldmark.New(goldmark.WithExtensions(extension.TaskList),
	goldmark.WithParserOptions(parser.WithBlockParsers(util.Prioritized(extension.NewFootnoteBlockParser(), 999))))

// gfm029Reference is gfmReference with HTML blocks as GitHub's renderer
// starts and ends them (htmlBlock029Parser; TestHTMLBlocks029AgainstCmarkGFM
// checks that reading against cmark-gfm itself), and gfm029Footnotes the same
// with footnote definitions.
var (
	gfm029Reference = goldmark.New(goldmark.WithParser(referenceParser(blockParsers029())), goldmark.WithExtensions(extension.TaskList))
	gfm029Footnotes = goldmark.New(goldmark.WithParser(referenceParser(append(blockParsers029(), footnoteBlockParser()))), goldmark.WithExtensions(extension.TaskList))
)

// gfmEmptyItems, gfmFootnotesEmptyItems, gfm029EmptyItems and
// gfm029FootnotesEmptyItems are the readings above with list items that start
// empty read as GitHub's renderer reads them (emptyItemListParser;
// TestHTMLBlocks029AgainstCmarkGFM checks its cases against cmark-gfm).
var (
	gfmEmptyItems             = goldmark.New(goldmark.WithParser(referenceParser(withEmptyItems(parser.DefaultBlockParsers()))), goldmark.WithExtensions(extension.TaskList))
	gfmFootnotesEmptyItems    = goldmark.New(goldmark.WithParser(referenceParser(withEmptyItems(append(parser.DefaultBlockParsers(), footnoteBlockParser())))), goldmark.WithExtensions(extension.TaskList))
	gfm029EmptyItems          = goldmark.New(goldmark.WithParser(referenceParser(withEmptyItems(blockParsers029()))), goldmark.WithExtensions(extension.TaskList))
	gfm029FootnotesEmptyItems = goldmark.New(goldmark.WithParser(referenceParser(withEmptyItems(append(blockParsers029(), footnoteBlockParser())))), goldmark.WithExtensions(extension.TaskList))
)

// referenceParser is goldmark's default parser with the block parsers bps.
func referenceParser(bps []util.PrioritizedValue) parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(bps...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
}

// refBox is a checkbox of goldmark's reading: its source offset ("[") in the
// file without a leading BOM.
type refBox struct {
	off     int
	checked bool
}

// gfmReading is goldmark's reading of content: its checkboxes, and the source
// ranges of code and raw HTML.
type gfmReading struct {
	src    []byte // content without a BOM: offsets are into it
	boxes  []refBox
	hidden [][2]int // [start, stop) of code and raw HTML text
	// also is the reading with footnote definitions (readReference), whose
	// boxes are in boxes too.
	also *gfmReading
}

// hides reports whether off lies in code or raw HTML in r and in r.also.
func (r gfmReading) hides(off int) bool {
	in := false
	for _, h := range r.hidden {
		in = in || (h[0] <= off && off < h[1])
	}
	if in && r.also != nil {
		return r.also.hides(off)
	}
	return in
}

// readReference parses content with gfmReference and gfmFootnotes: boxes are
// the checkboxes of either. CommonMark ends lines at a lone "\r" too and
// readers drop a leading BOM; goldmark does neither, so it is handed the file
// without its BOM and with each lone "\r" as "\n" (same length).
func readReference(content []byte) gfmReading {
	// GitHub's renderer follows CommonMark 0.29, without the HTML blocks of
	// "textarea" and "search": their tags read under unknown names.
	old := content
	for _, re := range cmark029Tags {
		old = re.ReplaceAll(old, []byte("${1}${2}q"))
	}
	var all []*gfmReading
	read := func(gm goldmark.Markdown, b []byte) *gfmReading {
		w := readWith(gm, b)
		all = append(all, &w)
		return &w
	}
	for _, gms := range [][2]goldmark.Markdown{
		{gfmReference, gfmEmptyItems}, {gfmFootnotes, gfmFootnotesEmptyItems},
	} {
		for _, gm := range gms {
			read(gm, content)
			read(gm, old)
		}
	}
	// And with GitHub's HTML blocks.
	for _, gm := range []goldmark.Markdown{gfm029Reference, gfm029Footnotes, gfm029EmptyItems, gfm029FootnotesEmptyItems} {
		read(gm, content)
	}
	// And with blanks as GitHub reads them (withSpacedIndents), offsets
	// mapped back.
	src := bytes.TrimPrefix(content, []byte(bom))
	if ws, at, ok := withSpacedIndents(src, LineStarts(src)); ok {
		for _, gm := range []goldmark.Markdown{gfmReference, gfm029Reference, gfmEmptyItems, gfm029EmptyItems, gfmFootnotes, gfmFootnotesEmptyItems} {
			w := read(gm, ws)
			w.src = src
			for k := range w.boxes {
				w.boxes[k].off = at(w.boxes[k].off)
			}
			for k := range w.hidden {
				w.hidden[k] = [2]int{at(w.hidden[k][0]), at(w.hidden[k][1])}
			}
		}
	}
	for i := 1; i < len(all); i++ {
		all[i-1].also = all[i]
	}
	r := *all[0]
	seen := map[int]bool{}
	for _, b := range r.boxes {
		seen[b.off] = true
	}
	for _, other := range all[1:] {
		for _, b := range other.boxes {
			if !seen[b.off] {
				seen[b.off] = true
				r.boxes = append(r.boxes, b)
			}
		}
	}
	return r
}

// cmark029Tags match a "textarea" or "search" tag name after "<" or "</",
// all of it but its last letter in a group.
var cmark029Tags = []*regexp.Regexp{regexp.MustCompile(`(?i)(</?)(textare)a`), regexp.MustCompile(`(?i)(</?)(searc)h`)}

// readWith is readReference with the goldmark md.
func readWith(gm goldmark.Markdown, content []byte) gfmReading {
	src := bytes.TrimPrefix(content, []byte(bom))
	md := bytes.Clone(src)
	for i, c := range md {
		if c == '\r' && (i+1 == len(md) || md[i+1] != '\n') {
			md[i] = '\n'
		}
	}
	r := gfmReading{src: src}
	doc := gm.Parser().Parse(text.NewReader(md))
	addLines := func(l *text.Segments) {
		for k := 0; k < l.Len(); k++ {
			r.hidden = append(r.hidden, [2]int{l.At(k).Start, l.At(k).Stop})
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *extast.TaskCheckBox:
			r.boxes = append(r.boxes, refBox{off: n.Pos(), checked: n.IsChecked})
		case *ast.FencedCodeBlock:
			addLines(n.Lines())
		case *ast.CodeBlock:
			addLines(n.Lines())
		case *ast.HTMLBlock:
			addLines(n.Lines())
			if n.HasClosure() {
				r.hidden = append(r.hidden, [2]int{n.ClosureLine.Start, n.ClosureLine.Stop})
			}
		case *ast.RawHTML:
			addLines(n.Segments)
		case *ast.CodeSpan:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					r.hidden = append(r.hidden, [2]int{t.Segment.Start, t.Segment.Stop})
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return r
}

// compareGFM fails t unless Read's reading of content agrees with
// goldmark's (see the comment at the top of this file).
func compareGFM(t *testing.T, name string, content []byte) {
	t.Helper()
	ref := readReference(content)
	starts, _ := LineBounds(ref.src)
	lineOf := func(off int) int { return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) }
	tasks, err := tasksOf(content)
	if err != nil {
		var le *LineError
		if errors.As(err, &le) && errors.Is(err, ErrNestingTooDeep) && containerPrefix(taskLinesOracle(content)[le.Line-1]) > MaxContainerPrefix {
			return // refused whole, before parsing
		}
		if errors.As(err, &le) && errors.Is(err, ErrHiddenCheckbox) {
			checkCheckedBy(t, name, content, ref, lineOf, 0, le.Line)
			return // a list item GitHub shows checked is no task: refused whole
		}
		t.Fatalf("%s: Read: %v", name, err)
	}
	type pos struct{ line, col int }
	byPos := map[pos]task{}
	for _, tk := range tasks {
		byPos[pos{tk.LineNo, tk.BoxCol - 1}] = tk
	}
	for _, b := range ref.boxes {
		l := lineOf(b.off)
		p := pos{l, b.off - starts[l-1]}
		tk, ok := byPos[p]
		switch {
		case !ok && b.off+1 < len(content) && content[b.off+1] == '\v' && !b.checked:
			// "[\v]": the reference's reading of blanks as spaces
			// (withSpacedIndents) makes a box of it; goldmark's own pattern
			// and cmark-gfm make none, nor does taskproof.
		case !ok:
			t.Fatalf("%s: goldmark renders a checkbox (checked %v) at line %d column %d that is not a task\n%q", name, b.checked, p.line, p.col, content)
		case (b.checked || strings.Contains(tk.Line, "[x]") || strings.Contains(tk.Line, "[X]") || tk.CheckedBy > 0) != tk.Ticked() || tk.Ticked() == tk.Open():
			// GitHub also checks a line holding "[x]" outside its box, and a
			// task a later line checks (checkCheckedBy).
			t.Fatalf("%s: line %d: goldmark checked %v, task box %q", name, p.line, b.checked, tk.Box)
		}
		if tk.CheckedBy > 0 {
			checkCheckedBy(t, name, content, ref, lineOf, tk.LineNo, tk.CheckedBy)
		}
		delete(byPos, p)
	}
	for p, tk := range byPos {
		if tk.Box != '-' {
			t.Fatalf("%s: task %s at line %d column %d is no checkbox of goldmark's\n%q", name, tk.ID, p.line, p.col, content)
		}
		// A "[-]" box: goldmark must read it as a checkbox once it is "[ ]".
		off := starts[p.line-1] + p.col
		alt := bytes.Clone(ref.src)
		alt[off+1] = ' '
		found := false
		for _, b := range readReference(alt).boxes {
			found = found || b.off == off
		}
		if !found {
			t.Fatalf("%s: task %s at line %d: \"[-]\" is no checkbox of goldmark's as \"[ ]\"\n%q", name, tk.ID, p.line, content)
		}
	}
	for _, tk := range tasks {
		off := starts[tk.LineNo-1] + tk.BoxCol
		if ref.hides(off) {
			t.Fatalf("%s: task %s at line %d lies in code or raw HTML\n%q", name, tk.ID, tk.LineNo, content)
		}
	}
}

// checkCheckedBy fails t unless line by of content (1-based) can make GitHub
// show the item of the task at line task (0: an item without a box) checked:
// a later line, no checkbox of goldmark's, that looks like a checked task
// from its first byte (cmarkTaskLine), in a file with a block quote or
// starting with digits and no list marker.
func checkCheckedBy(t *testing.T, name string, content []byte, ref gfmReading, lineOf func(int) int, task, by int) {
	t.Helper()
	lines := taskLinesOracle(content)
	if by <= task || by > len(lines) {
		t.Fatalf("%s: task at line %d checked by line %d\n%q", name, task, by, content)
	}
	l := lines[by-1]
	if !cmarkTaskLine.MatchString(l) || !(strings.Contains(l, "[x]") || strings.Contains(l, "[X]")) {
		t.Fatalf("%s: line %d, said to check the item at line %d, is no checked task line for cmark-gfm: %q", name, by, task, l)
	}
	for _, b := range ref.boxes {
		if lineOf(b.off) == by {
			t.Fatalf("%s: line %d, said to check the item at line %d, is a checkbox of goldmark's\n%q", name, by, task, content)
		}
	}
	if !bytes.Contains(content, []byte(">")) && !digitNotMarker(l) {
		t.Fatalf("%s: line %d said to check the item at line %d, neither in a file with a block quote nor starting with digits\n%q", name, by, task, content)
	}
}

// gfmFragments are the pieces generated files are made of: every kind of block
// that can hold, hide or look like a task line. "%d" becomes a fresh task number.
var gfmFragments = []string{
	"- [x] T%d before a lazy tag\n<br>\n~~~\n\n",
	"</pre>\n<!--\n\n- [x] T%d after a closing pre\n",
	"p\n<span>\n~~~\n\n- [x] T%d after a tag continuing a paragraph\n",
	"<!x\n- [x] T%d after a lower-case declaration\n>\n",
	"<textarea>\n\n- [x] T%d after a textarea\n",
	"p\n<Search>\n- [x] T%d after a search tag\n</search>\n",
	"<textarea>\n- [x] T%d in a textarea\n</textarea>\n",
	"```\n- [x] T%d in a fence\n```\n",
	"~~~\n- [x] T%d in a tilde fence\n~~~\n",
	"```` \n```\n- [x] T%d still fenced\n````\n",
	"   ```\n- [x] T%d three-space fence\n   ```\n",
	"    ```\n- [x] T%d after a four-space \"fence\"\n",
	"\t```\n- [x] T%d after a tab \"fence\"\n",
	"\t~~~\n- [X] T%d after a tab tilde \"fence\"\n",
	"```js ```\n- [x] T%d after a non-fence\n",
	"```\n- [x] T%d unclosed fence\n",
	"    - [x] T%d indented code\n",
	"\t- [x] T%d tab-indented code\n",
	"<!--\n- [x] T%d in a comment\n-->\n",
	"<!-- a --> <!-- b\n- [x] T%d after a closed comment block\n-->\n",
	"Comments look like `<!--`.\n",
	"Comments look like `<!--`.\n- [x] T%d under a code span\n",
	"`` `<!--` ``\n",
	"text <!--\n- [x] T%d interrupts\n-->\n",
	"<div>\n- [x] T%d in an HTML block\n</div>\n",
	"<div>\n\n- [x] T%d after an HTML block\n",
	"<script>\n- [x] T%d in a script\n</script>\n",
	"<?\n- [x] T%d processing instruction\n?>\n",
	"<![CDATA[\n- [x] T%d\n]]>\n",
	"> - [x] T%d quoted\n> - [ ] T%d quoted open\n",
	"Text[^t%d].\n\n[^t%d]: - [x] T%d in a footnote\n",
	"[^%d]: note\n\n    - [x] T%d indented in a footnote\n",
	"[^u%d]: - [ ] T%d unreferenced footnote\n    - [x] T%d its child\n",
	"- [ ] T%d before\n[^f%d]: - [x] T%d interrupts\n        - [ ] T%d deep in a footnote\n",
	"> quote\n- [x] T%d after a quote\n",
	"> - [x] T%d\nlazy [x] continuation\n",
	"- [ ] T%d parent\n  - [x] T%d child\n    - [X] T%d grandchild\n",
	"- item\n\n      - [x] T%d deep\n",
	"1. [x] T%d ordered\n2) [ ] T%d\n",
	"- [x] T%d\n  lazy continuation\n",
	"para\n    - [x] T%d lazy paragraph continuation\n",
	"\t- [x]\tT%d tab\n",
	"-\t[x] T%d tab after the bullet\n",
	"- [-] T%d in progress\n",
	"-\n  +   [ ] T%d wide, under an empty item\n    + [x] T%d its sibling\n",
	"1)\n   -\n\n      * [x] T%d after a blank under an empty item\n",
	"- \n  \n  - [x] T%d after an indented blank\n",
	"- [ ] T%d opened, its quote continued lazily\n  > quote\n      - [x] more\n",
	"1. item without a box\n   > quote\n        * [ ] more [X]\n",
	"- [ ] T%d then a paragraph\n\n  2024 [x] shipped\n",
	"- [x]: /url\n",
	"- [ ]: /url\n",
	"* [x]T%d glued\n",
	"- \\[x] T%d escaped\n",
	"- `[x]` T%d code\n",
	"- [\t] T%d tab box\n",
	"- [  ] T%d wide box\n",
	"- [x]\n",
	"- # [x] T%d heading item\n",
	"# Heading\n",
	"## 1. Group\n",
	"Setext\n---\n",
	"- [x] T%d setext item\n  ===\n",
	"| a | b |\n|---|---|\n| - [x] T%d | c |\n",
	"- a\n- - [x] T%d nested on one line\n",
	"1. - [x] T%d\n",
	"-\n  - [x] T%d under an empty item\n",
	"\n",
	"  \n",
	"plain text\n",
	"- [x] T%d `<!--`\n- [ ] T%d after it\n",
	"  - _Requirements: 1.2_\n",
}

// genGFM builds a file of n random fragments with random line endings and, now
// and then, the fragment indented or quoted.
func genGFM(rng *rand.Rand, n int, next *int) []byte {
	var b strings.Builder
	endings := []string{"\n", "\r\n", "\r"}
	eol := endings[rng.IntN(3)]
	for range n {
		frag := gfmFragments[rng.IntN(len(gfmFragments))]
		for strings.Contains(frag, "%d") {
			*next++
			frag = strings.Replace(frag, "%d", fmt.Sprint(*next), 1)
		}
		prefix := []string{"", "", "", " ", "  ", "   ", "> ", "\t", "- "}[rng.IntN(9)]
		for _, line := range strings.SplitAfter(frag, "\n") {
			if line == "" {
				continue
			}
			if rng.IntN(8) == 0 {
				eol = endings[rng.IntN(3)] // files mixing endings too
			}
			b.WriteString(prefix + strings.TrimSuffix(line, "\n") + eol)
		}
	}
	return []byte(b.String())
}

// TestGFMTasksGenerated compares the two readings on generated files mixing
// fences, indented code, HTML blocks and comments, code spans, block quotes,
// nested lists, tabs and LF, CRLF and CR line endings.
func TestGFMTasksGenerated(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	next := 0
	tasks := 0
	for i := range 3000 {
		content := genGFM(rng, 1+rng.IntN(10), &next)
		compareGFM(t, fmt.Sprintf("generated file %d", i), content)
		tasks += len(readReference(content).boxes)
	}
	if tasks < 3000 {
		t.Fatalf("generated files hold only %d checkboxes", tasks)
	}
}

// TestGFMHidingTricks: one line above the tasks hid every tick below it from a
// line-by-line reader, while GitHub shows the boxes checked.
func TestGFMHidingTricks(t *testing.T) {
	for _, tt := range []struct{ name, content string }{
		{"code span holding <!--", "# Tasks\n\nComments look like `<!--`.\n\n- [x] T001 Ticked\n- [ ] T002 Open\n"},
		{"four-space fence", "# Tasks\n\n    ```\n\n- [x] T001 Ticked\n- [ ] T002 Open\n"},
		{"tab fence", "# Tasks\n\n\t```\n\n- [x] T001 Ticked\n- [ ] T002 Open\n"},
		{"CR-only line endings", "# Tasks\r\r- [x] T001 Ticked\r- [ ] T002 Open\r"},
	} {
		compareGFM(t, tt.name, []byte(tt.content))
		tasks, err := tasksOf([]byte(tt.content))
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 2 || tasks[0].ID != "T001" || !tasks[0].Ticked() || tasks[1].ID != "T002" || !tasks[1].Open() {
			t.Errorf("%s: tasks %+v, want T001 ticked and T002 open", tt.name, tasks)
		}
	}
}

// TestGFMTasksVectors compares the two readings on the line_hash vectors.
func TestGFMTasksVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(t), "testdata", "vectors", "line_hash", "*.md"))
	if err != nil || len(files) < 7 {
		t.Fatalf("line_hash vectors: %v, %d files", err, len(files))
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		compareGFM(t, filepath.Base(p), b)
	}
}

// TestGFMNestingLimit: a line nested deeper than MaxContainerPrefix columns
// fails the parse, naming the line, before goldmark spends time on it (goldmark
// takes tens of seconds on a 100 KB line of ">" or "- "); thematic breaks and
// text do not count.
func TestGFMNestingLimit(t *testing.T) {
	for _, tt := range []struct {
		content string
		line    int // 0: parses
	}{
		{"- [x] T001 a\n" + strings.Repeat(">", 100000) + " - [x] T002 b\n", 2},
		{"- [x] T001 a\n\n" + strings.Repeat("- ", 50000) + "[x] T002 b\n", 3},
		{"- [x] T001 a\n" + strings.Repeat("\t", 65) + "- [x] T002 b\n", 2},
		{"- [x] T001 a\n" + strings.Repeat("1. ", 86) + "[x] T002 b\n", 2},
		{"- [x] T001 a\n" + strings.Repeat("* ", 300) + "\n" + strings.Repeat("-", 400) + "\n" + strings.Repeat(" ", 300) + "\n", 0},
		{"- [x] T001 a\n" + strings.Repeat(">", 250) + " - [x] T002 b\n" + strings.Repeat("x", 1000) + "\n", 0},
	} {
		lines, err := Read([]byte(tt.content), false)
		var le *LineError
		switch {
		case tt.line == 0 && err != nil:
			t.Errorf("%.40q: %v", tt.content, err)
		case tt.line != 0 && (!errors.As(err, &le) || !errors.Is(err, ErrNestingTooDeep) || le.Line != tt.line || lines != nil):
			t.Errorf("%.40q: %v, want line %d: ErrNestingTooDeep", tt.content, err, tt.line)
		}
	}
}

// TestGFMTasksCorpora compares the two readings on every file named tasks.md
// (any case) at every commit of every shared corpus.
func TestGFMTasksCorpora(t *testing.T) {
	for _, bundle := range []string{"speckit-youbencha", "openspec-agent-validator", "kiro-task-orchestrator",
		"kiro-task-orchestrator-maxspec", "agentos-forgejo-mcp", "specworkflow-statevia-maxspec", "ccsdd-evmtools"} {
		t.Run(bundle, func(t *testing.T) {
			files, boxes := 0, 0
			for id, b := range tasksFileBlobs(t, bundle) {
				compareGFM(t, bundle+":"+id, b)
				files++
				boxes += len(readReference(b).boxes)
			}
			if files == 0 || boxes == 0 {
				t.Fatalf("no tasks files or checkboxes in %s (%d files)", bundle, files)
			}
			t.Logf("%d distinct tasks file versions, %d checkboxes", files, boxes)
		})
	}
}

// FuzzGFMTasks compares Read's reading of any file with goldmark's.
func FuzzGFMTasks(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, s := range gfmFragments {
		f.Add([]byte(strings.ReplaceAll(s, "%d", "1")))
	}
	rng := rand.New(rand.NewPCG(1, 3))
	next := 0
	for range 20 {
		f.Add(genGFM(rng, 6, &next))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		compareGFM(t, "fuzz input", content)
	})
}

// TestFootnoteTasks: a task list in a GFM footnote definition — on the
// definition's line, or indented four spaces below it, referenced or not — is
// read as task lines.
func TestFootnoteTasks(t *testing.T) {
	content := "# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create the skeleton\nMoved to a note[^t113].\n\n" +
		"[^t113]: - [x] T113 [US1] Hidden in a footnote\n\n[^1]:\n    - [ ] T114 Indented below\n\n## Phase 2: Core\n\n[^2]: - [X] T115 Unreferenced\n"
	tasks, err := tasksOf([]byte(content))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range tasks {
		got = append(got, fmt.Sprintf("%s:%d:%v", tk.ID, tk.LineNo, tk.Ticked()))
	}
	if want := "[T001:5:false T113:8:true T114:11:false T115:15:true]"; fmt.Sprint(got) != want {
		t.Errorf("tasks %v, want %s", got, want)
	}
	compareGFM(t, "footnotes", []byte(content))
}

// TestCommonMark029HTMLBlocks: a "textarea" tag starts, in CommonMark 0.30
// and goldmark, an HTML block running to "</textarea>" across blank lines,
// and "search" one that interrupts a paragraph; GitHub's renderer (0.29)
// shows the task list after either as checkboxes, so they are tasks.
func TestCommonMark029HTMLBlocks(t *testing.T) {
	for _, tt := range []struct{ name, content string }{
		{"textarea", "# Tasks\n\n- [x] T001 Ticked\n<textarea>\n\n- [x] T002 Ticked\n- [ ] T003 Open\n"},
		{"TEXTAREA", "# Tasks\n\n- [x] T001 Ticked\n<TEXTAREA>\n\n- [x] T002 Ticked\n- [ ] T003 Open\n"},
		{"textarea unclosed", "# Tasks\n\n- [x] T001 Ticked\n<textarea\n\n- [x] T002 Ticked\n- [ ] T003 Open\n"},
		{"textarea self-closed", "# Tasks\n\n- [x] T001 Ticked\n<textarea/>\n\n- [x] T002 Ticked\n- [ ] T003 Open\n"},
		{"textarea after a paragraph", "# Tasks\n\n- [x] T001 Ticked\n\np\n<textarea>\n- [x] T002 Ticked\n- [ ] T003 Open\n"},
		{"search after a paragraph", "# Tasks\n\n- [x] T001 Ticked\n\np\n<search>\n- [x] T002 Ticked\n- [ ] T003 Open\n"},
		{"Search after a paragraph, closed", "# Tasks\n\n- [x] T001 Ticked\n\np\n<Search>\n- [x] T002 Ticked\n- [ ] T003 Open\n</search>\n"},
	} {
		compareGFM(t, tt.name, []byte(tt.content))
		tasks, err := tasksOf([]byte(tt.content))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tk := range tasks {
			got = append(got, fmt.Sprintf("%s:%v", tk.ID, tk.Ticked()))
		}
		if want := "[T001:true T002:true T003:false]"; fmt.Sprint(got) != want {
			t.Errorf("%s: tasks %v, want %s", tt.name, got, want)
		}
	}
}

// TestGFMWindows compares the two readings on longer generated files whose
// fragments are separated by paragraphs and headings after blank lines: the
// lines where Read's later readings start and stop their windows
// (readings.go), some of them inside blocks a reading never ends.
func TestGFMWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	next := 0
	seps := []string{"\nSection text\n\n", "\n# Heading\n\n", "\n\nÜber\n", "\n", "\nplain\n"}
	for i := range 400 {
		var b []byte
		for range 5 + rng.IntN(25) {
			b = append(b, genGFM(rng, 1+rng.IntN(3), &next)...)
			b = append(b, seps[rng.IntN(len(seps))]...)
		}
		compareGFM(t, fmt.Sprintf("windowed file %d", i), b)
	}
}
