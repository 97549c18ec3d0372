package gfm

import (
	"bytes"
	"reflect"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Line is one line of a tasks file as GitHub's reading sees it.
type Line struct {
	// Text is the line without its ending.
	Text string
	// Box is the byte offset in Text of the inner character of the task
	// checkbox that starts on this line, -1 when none.
	Box int
	// Level is the level (1-6) of the ATX or setext heading that starts on
	// this line, else 0; Heading is its text, trimmed.
	Level   int
	Heading string
	// Hidden: the line lies in a code block (fenced or indented) or an HTML
	// block (comments included), in goldmark's reading.
	Hidden bool
	// CheckedBy is the number (1-based) of a later line that checks this
	// line's task on GitHub (lazyChecks), 0 when none.
	CheckedBy int
}

// boxesKey holds, during one parse, the source offsets of the boxes found.
var boxesKey = parser.NewContextKey()

// gfmParser is goldmark's CommonMark block parsing and paragraph transforms
// (link reference definitions) with one inline parser, boxParser. Other inline
// parsers cannot matter: a task checkbox is the first inline of its block, and
// goldmark tries the parsers of "[" before any other at a block's start. The
// parser holds configuration only; each Parse has its own context.
var gfmParser = newGFMParserWith(parser.DefaultBlockParsers())

// gfmFootnoteParser is gfmParser with GFM footnote definitions (the block
// parser of goldmark's Footnote extension): GitHub renders a definition's
// blocks, a task list among them. A definition is read whether or not a link
// references it. Its checkboxes are added to gfmParser's, never put in their
// place: a definition can end a block that gfmParser's reading continues, so
// either reading may hold boxes the other has not
// (docs/format.md#task-recognition-follows-goldmark).
var gfmFootnoteParser = newGFMParserWith(append(parser.DefaultBlockParsers(), footnoteBlockParser()))

// footnoteBlockParser is the block parser of goldmark's Footnote extension,
// its definitions left where they are read (footnoteInPlace).
func footnoteBlockParser() util.PrioritizedValue {
	return util.Prioritized(footnoteInPlace{extension.NewFootnoteBlockParser()}, 999)
}

// footnoteInPlace is goldmark's footnote definition parser without its
// Close, which moves every definition of the document into the list of the
// first one: the blocks around a definition (the list item holding it) are
// what lazyChecks reads.
type footnoteInPlace struct{ parser.BlockParser }

func (footnoteInPlace) Close(ast.Node, text.Reader, parser.Context) {}

// newGFMParserWith is a parser of the block parsers bps with goldmark's
// paragraph transforms and boxParser as its only inline parser.
func newGFMParserWith(bps []util.PrioritizedValue) parser.Parser {
	bps = append([]util.PrioritizedValue(nil), bps...)
	for i := range bps {
		switch t := reflect.TypeOf(bps[i].Value); t {
		case listItemType, emptyItemItemType:
			bps[i].Value = itemParser{BlockParser: bps[i].Value.(parser.BlockParser)}
		}
	}
	return parser.NewParser(
		parser.WithBlockParsers(bps...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
		parser.WithInlineParsers(util.Prioritized(boxParser{}, 0)),
	)
}

// The types of goldmark's list item parser and of its twin for items that
// start empty, which itemParser wraps.
var (
	listItemType      = reflect.TypeOf(parser.NewListItemParser())
	emptyItemItemType = reflect.TypeOf(emptyItemItemParser{})
)

// itemParser is a list item parser that, when an item closes (its blocks
// closed before it), reads the box of its first paragraph as boxParser
// would and makes each of its paragraphs a rawParagraph: goldmark parses no
// inline content of a raw block, and no reading needs a list item's (a task
// list's paragraphs are most of a tasks file, and their inline nodes most
// of goldmark's document of it). A paragraph outside list items, and a
// heading, keeps its inline parsing, and boxParser reads a heading's box.
type itemParser struct{ parser.BlockParser }

func (p itemParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	p.BlockParser.Close(node, reader, pc)
	first := node.FirstChild()
	if para, ok := first.(*ast.Paragraph); ok && para.Lines().Len() > 0 {
		seg := para.Lines().At(0)
		line := seg.Value(reader.Source())
		if seg.Padding == 0 && len(line) >= 3 && line[0] == '[' && line[2] == ']' && isBoxByte(line[1]) {
			if boxes, ok := pc.Get(boxesKey).(*[]int); ok {
				*boxes = append(*boxes, seg.Start+1)
			}
		}
	}
	for c := first; c != nil; {
		next := c.NextSibling()
		if para, ok := c.(*ast.Paragraph); ok {
			raw := &rawParagraph{}
			raw.SetLines(para.Lines())
			raw.SetPos(para.Pos())
			raw.SetBlankPreviousLines(para.HasBlankPreviousLines())
			node.ReplaceChild(node, c, raw)
		}
		c = next
	}
}

// rawParagraph is a list item's paragraph whose inline content is not parsed
// (itemParser): Lines and Pos are the paragraph's.
type rawParagraph struct{ ast.BaseBlock }

// kindRawParagraph is rawParagraph's node kind.
var kindRawParagraph = ast.NewNodeKind("RawParagraph")

func (n *rawParagraph) Kind() ast.NodeKind { return kindRawParagraph }
func (n *rawParagraph) IsRaw() bool        { return true }
func (n *rawParagraph) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, nil, nil)
}

// isBoxByte reports whether c between "[" and "]" makes a box: GFM's space,
// tab, form feed, "x" and "X", and "[-]".
func isBoxByte(c byte) bool {
	switch c {
	case ' ', '\t', '\f', 'x', 'X', '-':
		return true
	}
	return false
}

// boxParser recognises a task checkbox exactly where goldmark's TaskList
// extension (v1.8) does — "[", one of space, tab, form feed, "x" or "X", "]"
// at the start of the first block of a list item — and also "[-]", Kiro's "in
// progress" box (docs/format.md#units-and-task-lines). It records the source
// offset of the box's inner character in the parse context.
type boxParser struct{}

func (boxParser) Trigger() []byte { return []byte{'['} }

func (boxParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	item := parent.Parent()
	if item == nil || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := item.(*ast.ListItem); !ok {
		return nil
	}
	line, seg := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' || seg.Padding != 0 {
		return nil
	}
	switch line[1] {
	case ' ', '\t', '\f', 'x', 'X', '-':
	default:
		return nil
	}
	if boxes, ok := pc.Get(boxesKey).(*[]int); ok {
		*boxes = append(*boxes, seg.Start+1)
	}
	block.Advance(3)
	return extast.NewTaskCheckBox(line[1] == 'x' || line[1] == 'X')
}

// LineBounds returns the start and end (excluding the line ending) of each line
// of src: lines end at "\n", "\r\n" or a lone "\r"; a final line ending does not
// make an empty last line.
func LineBounds(src []byte) (starts, ends []int) {
	n := bytes.Count(src, []byte{'\n'}) + bytes.Count(src, []byte{'\r'}) + 1
	starts, ends = make([]int, 0, n), make([]int, 0, n)
	for i := 0; i < len(src); {
		j := bytes.IndexAny(src[i:], "\r\n")
		if j < 0 {
			starts, ends = append(starts, i), append(ends, len(src))
			break
		}
		e := i + j
		next := e + 1
		if src[e] == '\r' && next < len(src) && src[next] == '\n' {
			next++
		}
		starts, ends = append(starts, i), append(ends, e)
		i = next
	}
	return starts, ends
}

// LineStarts returns the byte offset in content of the start of each line as
// ParseTasks numbers lines (Task.LineNo is the index plus one): after a leading
// UTF-8 BOM, lines end at "\n", "\r\n" or a lone "\r".
func LineStarts(content []byte) []int {
	off := 0
	if bytes.HasPrefix(content, []byte(bom)) {
		off = len(bom)
	}
	starts, _ := LineBounds(content[off:])
	for i := range starts {
		starts[i] += off
	}
	return starts
}

// MaxContainerPrefix is the widest run of indentation, block quote markers
// (">") and list markers ("-", "*", "+", "1.", "1)" with the blanks after
// them) a line of a tasks file may start with, in columns (a tab to the next
// multiple of four). CommonMark parsers spend time growing with the nesting
// depth on every line (goldmark: quadratic in a line's markers), and the depth
// is at most this width; real tasks files stay far below it
// (docs/format.md#units-and-task-lines).
const MaxContainerPrefix = 256

// containerPrefix returns the width in columns of line's leading run of
// blanks, ">" and list markers followed by a blank (counted up to just past
// MaxContainerPrefix). A run of one bullet character and blanks to the end of
// the line (a thematic break, "* * *") ends it; a blank line is 0 wide.
func containerPrefix(line string) int {
	// line[tail:] is blanks and at most one other character, tc: where a
	// thematic break can start.
	tail, tc := len(line), byte(0)
	for ; tail > 0; tail-- {
		c := line[tail-1]
		if c != ' ' && c != '\t' && tc != 0 && c != tc {
			break
		}
		if c != ' ' && c != '\t' {
			tc = c
		}
	}
	if strings.Trim(line, " \t") == "" {
		return 0 // a blank line opens nothing
	}
	w, i := 0, 0
	for i < len(line) && w <= MaxContainerPrefix {
		switch c := line[i]; {
		case c == ' ':
			w++
			i++
		case c == '\t':
			w += 4 - w%4
			i++
		case c == '>':
			w++
			i++
		case c == '-' || c == '*' || c == '+':
			if i+1 >= len(line) || (line[i+1] != ' ' && line[i+1] != '\t') ||
				(i >= tail && c == tc && strings.Count(line[i:], string(c)) >= 3) {
				return w
			}
			w++
			i++
		case isDigit(c):
			d := skipDigits(line, i)
			if d-i > 9 || d+1 >= len(line) || (line[d] != '.' && line[d] != ')') || (line[d+1] != ' ' && line[d+1] != '\t') {
				return w
			}
			w += d + 1 - i
			i = d + 1
		default:
			return w
		}
	}
	return w
}

// Read reads the lines of a tasks file with their CommonMark block context.
// A leading UTF-8 BOM is not part of line 1 (CommonMark readers drop it).
// goldmark splits lines at "\n" only, so it is handed a copy with every lone
// "\r" replaced by "\n": the same length, so its offsets are the file's.
//
// goldmark reads the whole file once; the other readings read only the
// windows around their triggers (readings.go), and no document is kept past
// its use, so a file costs one reading whatever it holds. A line wider than
// MaxContainerPrefix before its text fails with a *LineError
// (ErrNestingTooDeep) before anything is parsed.
//
// force reads the file's blocks even when it holds no GFM box (the format's
// own tool reads one there).
func Read(content []byte, force bool) ([]Line, error) {
	src := bytes.TrimPrefix(content, []byte(bom))
	if len(src) == 0 {
		return nil, nil
	}
	starts, ends := LineBounds(src)
	whole := string(src)
	out := make([]Line, len(starts))
	for i := range starts {
		out[i] = Line{Text: whole[starts[i]:ends[i]], Box: -1}
	}
	if !force && !MayHoldBox(src) {
		return out, nil // no task, so neither headings nor code matter
	}
	if err := CheckNesting(whole, starts, ends); err != nil {
		return nil, err
	}
	md := src
	if hasLoneCR(src) {
		md = bytes.Clone(src)
		for i, c := range md {
			if c == '\r' && (i+1 == len(md) || md[i+1] != '\n') {
				md[i] = '\n'
			}
		}
	}
	lineOf := func(off int) int {
		return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	}
	boxes, doc := parseBoxes(gfmParser, md)
	for _, b := range boxes {
		if i := lineOf(b); i >= 0 && out[i].Box < 0 {
			out[i].Box = b - starts[i]
		}
	}
	hideSeg := func(s text.Segment) {
		for i := max(lineOf(s.Start), 0); i < len(out) && starts[i] < max(s.Stop, s.Start+1); i++ {
			out[i].Hidden = true
		}
	}
	hide := func(lines *text.Segments) {
		for k := 0; k < lines.Len(); k++ {
			hideSeg(lines.At(k))
		}
	}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Heading:
				var sb strings.Builder
				for k := 0; k < c.Lines().Len(); k++ {
					s := c.Lines().At(k)
					sb.Write(s.Value(md))
				}
				if i := lineOf(c.Pos()); c.Pos() >= 0 && i >= 0 && out[i].Level == 0 {
					out[i].Level, out[i].Heading = c.Level, strings.Trim(strings.TrimRight(sb.String(), "\r\n"), " \t")
				}
			case *ast.FencedCodeBlock, *ast.CodeBlock:
				if i := lineOf(c.Pos()); c.Pos() >= 0 && i >= 0 {
					out[i].Hidden = true
				}
				hide(c.Lines())
			case *ast.HTMLBlock:
				hide(c.Lines())
				if c.HasClosure() {
					hideSeg(c.ClosureLine)
				}
			case *ast.Paragraph, *ast.TextBlock, *rawParagraph:
				// inline content only
			default:
				if c.Type() == ast.TypeBlock {
					walk(c)
				}
			}
		}
	}
	walk(doc)
	// The lines a later reading may start or stop a window at, and the first
	// reading's lazy checks: then its document is dropped (a file of 100,000
	// tasks makes a document of hundreds of megabytes).
	rd := &readings{md: md, starts: starts, out: out, lineOf: lineOf}
	rd.syncs = syncLines(doc, out, lineOf)
	rd.checks = lazyChecks(doc, identity, lineOf, starts, out, nil)
	doc = nil
	if err := rd.readAll(); err != nil {
		return nil, err
	}
	// Last, as a line another reading finds a task on is none of lazyChecks'.
	if err := settle(rd.checks, out); err != nil {
		return nil, err
	}
	return out, nil
}

// newHTMLBlockTags are the tag names whose HTML blocks CommonMark 0.30 and
// 0.31 added (goldmark follows 0.31): "textarea" starts a block that runs
// to "</textarea>" across blank lines, "search" one that may interrupt a
// paragraph. GitHub's renderer (cmark-gfm, CommonMark 0.29) knows neither,
// so a task list after such a tag is a task list on GitHub, hidden from
// goldmark's reading (docs/format.md#task-recognition-follows-goldmark).
var newHTMLBlockTags = []string{"textarea", "search"}

// withoutNewHTMLBlocks returns a copy of md, the same length, with each
// newHTMLBlockTags name after "<" or "</" (in any case) given an unknown
// name, so that goldmark reads such a tag as CommonMark 0.29 does (an HTML
// block only alone on its line, up to a blank line); ok is false when md
// holds none.
func withoutNewHTMLBlocks(md []byte) (out []byte, ok bool) {
	for i := bytes.IndexByte(md, '<'); i >= 0; {
		name := i + 1
		if name < len(md) && md[name] == '/' {
			name++
		}
		for _, tag := range newHTMLBlockTags {
			// Byte lengths equal: an ASCII name matches only ASCII letters.
			if name+len(tag) <= len(md) && bytes.EqualFold(md[name:name+len(tag)], []byte(tag)) {
				if out == nil {
					out = bytes.Clone(md)
				}
				out[name+len(tag)-1] = 'q' // "textareq", "searcq": no tag CommonMark names
			}
		}
		j := bytes.IndexByte(md[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return out, out != nil
}

// CheckNesting refuses the first line of src (as LineBounds splits it) wider
// than MaxContainerPrefix before its text.
func CheckNesting(src string, starts, ends []int) error {
	for i := range starts {
		if containerPrefix(src[starts[i]:ends[i]]) > MaxContainerPrefix {
			return &LineError{Line: i + 1, Err: ErrNestingTooDeep}
		}
	}
	return nil
}

// parseBoxes parses md with p and returns the source offsets of the boxes
// boxParser found, and the document.
func parseBoxes(p parser.Parser, md []byte) ([]int, ast.Node) {
	var boxes []int
	pc := parser.NewContext()
	pc.Set(boxesKey, &boxes)
	doc := p.Parse(text.NewReader(md), parser.WithContext(pc))
	return boxes, doc
}

// hasLoneCR reports whether src holds a "\r" not followed by "\n".
func hasLoneCR(src []byte) bool {
	for i := bytes.IndexByte(src, '\r'); i >= 0; {
		if i+1 == len(src) || src[i+1] != '\n' {
			return true
		}
		j := bytes.IndexByte(src[i+1:], '\r')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// MayHoldBox reports whether src holds a "[", a box character, "]" anywhere:
// without one no line is a task.
func MayHoldBox(src []byte) bool {
	for i := bytes.IndexByte(src, '['); i >= 0 && i+2 < len(src); {
		if src[i+2] == ']' {
			switch src[i+1] {
			case ' ', '\t', '\f', 'x', 'X', '-':
				return true
			}
		}
		j := bytes.IndexByte(src[i+1:], '[')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// withSpacedIndents returns a copy of md read as GitHub's renderer reads its
// blanks, where goldmark does otherwise: each tab in a line's container
// prefix (its leading blanks, block quote markers and list markers) expanded
// to the next multiple of four columns (cmark-gfm reads "  \t- [x]" under an
// item as a nested item, goldmark as text; goldmark counts a tab after a
// nested item's marker from the item's start, not from the line's, so
// "+", "    2)\t[x] T005", "        *   [x] T007" holds one task for it and
// two for cmark-gfm), and each vertical tab and form feed a space
// (cmark-gfm's task list item allows them between the list marker and the
// box: "- \v[x]" is a checked task). at maps an offset in the copy after a
// line's container prefix back to md's. ok is false when md holds no such
// blank; starts are md's line starts.
func withSpacedIndents(md []byte, starts []int) (out []byte, at func(int) int, ok bool) {
	if bytes.IndexByte(md, '\v') < 0 && bytes.IndexByte(md, '\f') < 0 && bytes.IndexByte(md, '\t') < 0 {
		return nil, nil, false
	}
	out = make([]byte, 0, len(md)+len(md)/8)
	outStarts := make([]int, len(starts))
	delta := make([]int, len(starts)) // bytes the line's container prefix grew by
	for i, st := range starts {
		end := len(md)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		outStarts[i] = len(out)
		col, j := 0, st
		for j < end {
			switch c := md[j]; {
			case c == ' ':
				out = append(out, ' ')
				col++
				j++
				continue
			case c == '\t':
				n := 4 - col%4
				for range n {
					out = append(out, ' ')
				}
				col += n
				ok = true // even one column wide: goldmark reads "   \t- [x]" under an item otherwise
				j++
				continue
			case c == '>':
				out = append(out, c)
				col++
				j++
				continue
			}
			m := markerLen(md[j:end])
			if m == 0 {
				break
			}
			out = append(out, md[j:j+m]...)
			col += m
			j += m
		}
		delta[i] = len(out) - outStarts[i] - (j - st)
		for ; j < end; j++ {
			c := md[j]
			if c == '\v' || c == '\f' {
				c, ok = ' ', true
			}
			out = append(out, c)
		}
	}
	if !ok {
		return nil, nil, false
	}
	at = func(off int) int {
		i := sort.Search(len(outStarts), func(k int) bool { return outStarts[k] > off }) - 1
		if i < 0 {
			return off
		}
		return starts[i] + off - outStarts[i] - delta[i]
	}
	return out, at, true
}

// markerLen is the length of the list marker b starts with ("-", "+", "*", or
// one to nine digits and "." or ")") when a blank or the line's end follows
// it, else 0.
func markerLen(b []byte) int {
	n := 0
	for n < len(b) && n < 9 && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	switch {
	case len(b) == 0:
		return 0
	case n == 0 && (b[0] == '-' || b[0] == '+' || b[0] == '*'):
		n = 1
	case n > 0 && n < len(b) && (b[n] == '.' || b[n] == ')'):
		n++
	default:
		return 0
	}
	if n < len(b) && b[n] != ' ' && b[n] != '\t' && b[n] != '\n' && b[n] != '\r' {
		return 0
	}
	return n
}
