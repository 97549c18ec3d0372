package gfm

import (
	"bytes"
	"sort"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
)

// Read reads a tasks file with goldmark once in full, and with each of the
// other readings of docs/format.md#task-recognition-follows-goldmark —
// footnote definitions, CommonMark 0.29's HTML blocks, cmark-gfm's blanks,
// list items that start empty, tables — only where that reading can differ:
// around the lines holding its trigger. A reading parses the file as the
// first one does up to its first trigger line (a parse reads lines in
// order), and again from a line at which both are back in step. Such a line
// starts a block of the document itself after a blank line, with a letter,
// '#' or a non-ASCII byte (a paragraph or heading, which opens the same way
// whatever came before): every block before it ended there. The first
// reading gives the candidates (syncLines); a window of the other reading
// ends at one only when its own parse of the window, that line included,
// starts a block of the document there too. Between windows the two read
// the same lines from the same state, so their boxes and blocks are the
// same. A file with one trigger among 100,000 tasks thus costs one reading
// and a few lines, not one reading per trigger; a file with triggers
// everywhere costs at most one reading per kind of reading, as before.

// trigger is a kind of line on which a reading may part from goldmark's.
type trigger uint8

const (
	// trigEmpty: the line's last token is a list marker (an item that may
	// start empty: emptyItemTwins).
	trigEmpty trigger = 1 << iota
	// trigFoot: "[^" where a block may start (a footnote definition).
	trigFoot
	// trigTag: "<" where a block may start (an HTML block).
	trigTag
	// trigSpace: a tab, vertical tab or form feed (withSpacedIndents).
	trigSpace
	// trigNewHTML: a "textarea" or "search" tag (withoutNewHTMLBlocks).
	trigNewHTML
	// trigTable: a table delimiter row the tables reading blanks.
	trigTable
)

// transform is how a reading changes the file before parsing it.
type transform uint8

const (
	asIs transform = iota
	spaced
	oldHTML
	noTables
)

// reading is one reading of the file after the first: its parser, how it
// changes the file, the triggers on which it parts from the first reading,
// and whether its documents are lazyChecks'.
type reading struct {
	p    parser.Parser
	tf   transform
	mask trigger
	lazy bool
}

// readings is one file's readings after the first.
type readings struct {
	md     []byte
	starts []int
	out    []Line
	lineOf func(int) int
	// syncs are the lines (ascending) at which a window may start or stop:
	// the first reading starts a block of the document there after a blank
	// line, with a letter, '#' or a non-ASCII byte.
	syncs []int
	// trig holds each line's triggers (trigTable aside).
	trig []trigger
	// checks are every reading's lazy checks, in reading order.
	checks []lazyCheck
}

func identity(off int) int { return off }

// readAll runs the readings the file's triggers call for, in the order their
// boxes were always added (which decides which of two lines checking an item
// is named): each reading's own lines first, then the same with empty list
// items read as cmark-gfm reads them.
func (rd *readings) readAll() error {
	rd.trig = lineTriggers(rd.md, rd.starts)
	var any trigger
	for _, t := range rd.trig {
		any |= t
	}
	var list []reading
	add := func(r reading) {
		list = append(list, r)
		if any&trigEmpty != 0 {
			r.p, r.mask = emptyItemTwins[r.p], r.mask|trigEmpty
			list = append(list, r)
		}
	}
	if any&trigEmpty != 0 {
		list = append(list, reading{p: emptyItemTwins[gfmParser], mask: trigEmpty, lazy: true})
	}
	if any&trigFoot != 0 {
		add(reading{p: gfmFootnoteParser, mask: trigFoot, lazy: true})
	}
	if any&trigTag != 0 {
		// GitHub's HTML blocks (htmlBlock029Parser).
		add(reading{p: gfm029Parser, mask: trigTag, lazy: true})
		if any&trigFoot != 0 {
			add(reading{p: gfm029FootnoteParser, mask: trigTag | trigFoot, lazy: true})
		}
	}
	if any&trigSpace != 0 {
		// GitHub's reading of tabs in indentation, vertical tabs and form
		// feeds (withSpacedIndents).
		add(reading{p: gfmParser, tf: spaced, mask: trigSpace, lazy: true})
		if any&trigTag != 0 {
			add(reading{p: gfm029Parser, tf: spaced, mask: trigSpace | trigTag, lazy: true})
		}
		if any&trigFoot != 0 {
			add(reading{p: gfmFootnoteParser, tf: spaced, mask: trigSpace | trigFoot, lazy: true})
		}
	}
	if any&trigNewHTML != 0 {
		add(reading{p: gfmParser, tf: oldHTML, mask: trigNewHTML, lazy: true})
		if any&trigFoot != 0 {
			add(reading{p: gfmFootnoteParser, tf: oldHTML, mask: trigNewHTML | trigFoot, lazy: true})
		}
	}
	for _, r := range list {
		rd.read(r, nil)
	}
	// Tables last: a delimiter row in code counts only when no reading
	// found a task on its line. Its documents are not lazyChecks': a table
	// row that looks like a task would read as the first line of a
	// paragraph there.
	if rows := tableRows(rd.md, rd.starts, rd.out); len(rows) > 0 {
		rd.read(reading{p: gfmParser, tf: noTables, mask: trigTable}, rows)
		if any&trigFoot != 0 {
			rd.read(reading{p: gfmFootnoteParser, tf: noTables, mask: trigTable | trigFoot}, rows)
		}
	}
	return nil
}

// read runs reading r over windows around its trigger lines (for the tables
// reading, rows: the delimiter rows it blanks, which are its triggers too)
// and adds the boxes it finds, and its lazy checks.
func (rd *readings) read(r reading, rows []int) {
	var lines []int
	for i, t := range rd.trig {
		if t&r.mask != 0 {
			lines = append(lines, i)
		}
	}
	if len(rows) > 0 {
		lines = mergeSorted(lines, rows)
	}
	n := len(rd.starts)
	from := 0 // the readings are in step at this line
	for k := 0; k < len(lines); {
		a := rd.syncAtOrBefore(lines[k], from)
		last := lines[k]
		var b int
		for {
			b = rd.syncAfter(last)
			for k < len(lines) && lines[k] <= b && b < n {
				last = max(last, lines[k])
				k++
			}
			if last >= b && b < n {
				continue // a trigger on the line itself: it is no line to stop at
			}
			for k < len(lines) && b == n {
				k++ // to the end of the file
			}
			boxes, doc, inStep := rd.window(r, a, b, rows)
			if inStep {
				rd.add(r, boxes, doc)
				break
			}
			// Not back in step there: at least twice as far, so that a
			// reading that never comes back costs a few times the rest of
			// the file, not a parse per candidate line.
			want := rd.starts[a] + 2*(rd.starts[b]-rd.starts[a])
			last = sort.Search(n, func(i int) bool { return rd.starts[i] >= want })
			last = min(max(last, b), n-1)
		}
		from = b
	}
}

// window parses the lines a..b of the file (b included; b == number of
// lines: to the end) with r. inStep reports whether r's parse starts a block
// of the document on line b (always at the end of the file). The boxes are
// offsets in the file.
func (rd *readings) window(r reading, a, b int, rows []int) (boxes []int, w windowDoc, inStep bool) {
	n := len(rd.starts)
	lo, hi := rd.starts[a], len(rd.md)
	if b+1 < n {
		hi = rd.starts[b+1]
	}
	src := rd.md[lo:hi]
	at := identity
	switch r.tf {
	case spaced:
		rel := make([]int, 0, min(b, n-1)-a+1)
		for i := a; i < n && i <= b; i++ {
			rel = append(rel, rd.starts[i]-lo)
		}
		if ws, wat, ok := withSpacedIndents(src, rel); ok {
			src, at = ws, wat
		}
	case oldHTML:
		if old, ok := withoutNewHTMLBlocks(src); ok {
			src = old
		}
	case noTables:
		src = blankRows(src, rd.starts, lo, rows)
	}
	bs, doc := parseBoxes(r.p, src)
	for i, off := range bs {
		bs[i] = lo + at(off)
	}
	inStep = b >= n || startsBlockAt(doc, src, b-a)
	return bs, windowDoc{doc: doc, at: func(off int) int { return lo + at(off) }}, inStep
}

// windowDoc is a window's document, with at mapping its offsets to the file's.
type windowDoc struct {
	doc ast.Node
	at  func(int) int
}

// add puts a window's boxes on their lines — also on a line the first
// reading puts in code or HTML — and collects its lazy checks.
func (rd *readings) add(r reading, boxes []int, w windowDoc) {
	for _, b := range boxes {
		if i := rd.lineOf(b); i >= 0 && rd.out[i].Box < 0 {
			rd.out[i].Box, rd.out[i].Hidden = b-rd.starts[i], false
		}
	}
	if r.lazy {
		rd.checks = lazyChecks(w.doc, w.at, rd.lineOf, rd.starts, rd.out, rd.checks)
	}
}

// syncAtOrBefore is the last sync line at or before line i and not before
// from, else from.
func (rd *readings) syncAtOrBefore(i, from int) int {
	k := sort.SearchInts(rd.syncs, i+1) - 1
	if k >= 0 && rd.syncs[k] >= from {
		return rd.syncs[k]
	}
	return from
}

// syncAfter is the first sync line after line i, else the number of lines.
func (rd *readings) syncAfter(i int) int {
	k := sort.SearchInts(rd.syncs, i+1)
	if k < len(rd.syncs) {
		return rd.syncs[k]
	}
	return len(rd.starts)
}

// syncLines are the lines (0-based, ascending) where doc, the first
// reading's document, starts a block of its own after a blank line, the
// line's first byte an ASCII letter, '#' or a non-ASCII byte.
func syncLines(doc ast.Node, out []Line, lineOf func(int) int) []int {
	var syncs []int
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		i := lineOf(blockStart(c))
		if i <= 0 || i >= len(out) || !isSyncLine(out[i-1].Text, out[i].Text) || (len(syncs) > 0 && syncs[len(syncs)-1] >= i) {
			continue
		}
		syncs = append(syncs, i)
	}
	return syncs
}

// isSyncLine reports whether line, after the line prev, may start a block
// that opens the same way in every reading: prev is blank and line starts
// with an ASCII letter, '#' or a non-ASCII byte.
func isSyncLine(prev, line string) bool {
	for i := 0; i < len(prev); i++ {
		if prev[i] != ' ' && prev[i] != '\t' {
			return false
		}
	}
	if line == "" {
		return false
	}
	c := line[0]
	return c == '#' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// blockStart is the offset of block c's first byte: its position, else its
// first line's start; -1 when unknown.
func blockStart(c ast.Node) int {
	if p := c.Pos(); p >= 0 {
		return p
	}
	if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
		return c.Lines().At(0).Start
	}
	return -1
}

// startsBlockAt reports whether doc, the parse of src, starts a block of the
// document itself on line rel of src.
func startsBlockAt(doc ast.Node, src []byte, rel int) bool {
	starts, _ := LineBounds(src)
	if rel >= len(starts) {
		return false
	}
	lo, hi := starts[rel], len(src)
	if rel+1 < len(starts) {
		hi = starts[rel+1]
	}
	for c := doc.LastChild(); c != nil; c = c.PreviousSibling() {
		s := blockStart(c)
		if s >= lo && s < hi {
			return true
		}
		if s >= 0 && s < lo {
			return false
		}
	}
	return false
}

// lineTriggers is each line's triggers (trigTable aside) of md, whose lines
// start at starts.
func lineTriggers(md []byte, starts []int) []trigger {
	trig := make([]trigger, len(starts))
	for i, st := range starts {
		end := len(md)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		line := bytes.TrimRight(md[st:end], "\r\n")
		var t trigger
		if bytes.IndexAny(line, "\t\v\f") >= 0 {
			t |= trigSpace
		}
		if j := bytes.Index(line, []byte("[^")); j >= 0 && containerOnly(line[:j]) {
			t |= trigFoot
		}
		if j := bytes.IndexByte(line, '<'); j >= 0 {
			if containerOnly(line[:j]) {
				t |= trigTag
			}
			if _, ok := withoutNewHTMLBlocks(line[j:]); ok {
				t |= trigNewHTML
			}
		}
		if endsInMarker(line) {
			t |= trigEmpty
		}
		trig[i] = t
	}
	return trig
}

// containerOnly reports whether b holds only what a line's container prefix
// may: blanks, ">", list markers' "-", "+", "*", digits, "." and ")" — so
// that a block may start right after it.
func containerOnly(b []byte) bool {
	for _, c := range b {
		switch {
		case c == ' ', c == '\t', c == '\v', c == '\f', c == '>', c == '-', c == '+', c == '*', c == '.', c == ')', isDigit(c):
		default:
			return false
		}
	}
	return true
}

// endsInMarker reports whether line's last token (after the last blank or
// ">") is a list marker: the line may be a list item that starts empty.
// Lines ending in a number and a full stop ("step 2.") pass too.
func endsInMarker(line []byte) bool {
	line = bytes.TrimRight(line, " \t\r\v\f")
	tok := line[bytes.LastIndexAny(line, " \t>")+1:]
	return len(tok) > 0 && markerLen(tok) == len(tok)
}

// tableRows are the table delimiter rows (0-based lines) under a line that
// is not blank, outside the code and HTML blocks no reading found a task in.
func tableRows(md []byte, starts []int, out []Line) []int {
	if bytes.IndexByte(md, '|') < 0 {
		return nil
	}
	var rows []int
	prevBlank := true
	for i := range out {
		line := []byte(out[i].Text)
		if !prevBlank && !out[i].Hidden && isDelimiterRow(line) {
			rows = append(rows, i)
		}
		prevBlank = len(bytes.TrimSpace(line)) == 0
	}
	return rows
}

// blankRows returns a copy of src, the file's bytes from offset lo, with the
// lines rows (of the file, starting at starts) that lie in it turned into
// blanks (their line endings kept): a blank line ends goldmark's paragraph
// there, as cmark-gfm's table extension ends it.
func blankRows(src []byte, starts []int, lo int, rows []int) []byte {
	var out []byte
	for _, r := range rows {
		s := starts[r] - lo
		if s < 0 || s >= len(src) {
			continue
		}
		if out == nil {
			out = bytes.Clone(src)
		}
		for k := s; k < len(out) && out[k] != '\n' && out[k] != '\r'; k++ {
			out[k] = ' '
		}
	}
	if out == nil {
		return src
	}
	return out
}

// mergeSorted merges two ascending lists, without repeats.
func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var v int
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			v, i = a[i], i+1
		case i >= len(a) || b[j] < a[i]:
			v, j = b[j], j+1
		default:
			v, i, j = a[i], i+1, j+1
		}
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}
