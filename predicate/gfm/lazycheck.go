package gfm

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// GitHub's renderer, cmark-gfm, decides an item's checkbox while it reads
// the item's lines: whenever a line ends in the item itself (no block inside
// the item continues on it, and the line starts none but a paragraph) and
// the line, from its first byte, looks like a task ("- [x] …": blanks, a list
// marker, blanks, a box, a blank), the item gets a checkbox, checked when the
// line holds "[x]" or "[X]". A task's own first line is one such line. The
// others, in goldmark's reading:
//   - a line continuing a paragraph of a block quote inside the item lazily,
//     without the quote's ">": "1. [ ] T001", "   > text", "        - [x] more";
//     or one of a footnote definition inside the item, indented less than the
//     definition's content (four columns past the item's): "- [ ] T001",
//     "  [^1]: note", "  2024 [x] more";
//   - the first line of a paragraph of the item that does not follow a list
//     in it (after a blank line, a heading, a fence), when it starts with
//     digits and no list marker's "." or ")": "- [ ] T001", "", "  2024 [x] note"
//     (cmark-gfm's pattern takes digits and any one character as a marker).
// So a task is shown checked whatever its box holds, and a list item without
// a box of its own is shown as a checked task. Read finds such lines
// (lazyChecks): a task's item gets the line's number (Task.CheckedBy, a
// tick); an item that is no task fails the parse, as taskproof cannot name
// the task GitHub shows (docs/format.md#task-recognition-follows-goldmark).

// lazyCheck is a line that checks an item's box on GitHub as lazyChecks
// finds it in one reading's document, judged by settle once every reading's
// boxes are known (a line another reading finds a task on checks nothing).
type lazyCheck struct {
	// line is the line (0-based) that looks like a checked task.
	line int
	// owner is the line of the item's first block, -1 when the item has
	// none; unused for an item of its own.
	owner int
	// own: the line starts an item of its own on GitHub (after a table's
	// code), which fails unless a reading has a task on it.
	own bool
}

// cmarkTaskLine is cmark-gfm's task list pattern, matched from a line's
// start: blanks, a list marker ("-", "+", "*", or digits and any one
// character), blanks, "[ ]", "[x]" or "[X]" (its scanners are generated
// case-insensitive), then a blank or the line's end.
var cmarkTaskLine = regexp.MustCompile(`^[ \t\v\f\r]*(?:[-+*]|[0-9]+[^\n])[ \t\v\f\r]+\[[ xX]\](?:[ \t\v\f\r]|$)`)

// lazyChecks appends to checks the lines of doc (one reading's parse of the
// file, its offsets mapped to the file's by toMD; mdLineOf finds their
// lines) that check an item's box on GitHub, as above. It reads the
// document and the lines' text only, so that the document can be dropped
// before the other readings run; settle applies the checks.
func lazyChecks(doc ast.Node, toMD, mdLineOf func(int) int, starts []int, out []Line, checks []lazyCheck) []lazyCheck {
	lineOf := func(off int) int { return mdLineOf(toMD(off)) }
	// check checks seg's line, in item; lazy: a line continuing a paragraph
	// of quote, the outermost block quote or footnote definition of item
	// that holds it.
	check := func(item *ast.ListItem, seg text.Segment, lazy bool, quote ast.Node) {
		i := lineOf(seg.Start)
		if lazy && i >= 0 {
			col, ok := contentColumn(item, toMD, lineOf, starts, out)
			w := Width(out[i].Text)
			if ok && w < col {
				return // less indented than the item's content: the item does not go on there
			}
			if _, note := quote.(*extast.Footnote); note && (!ok || w >= col+4) {
				return // indented to the definition's content: the definition goes on there
			}
		}
		if c, ok := checkLine(item, i, lineOf, out); ok {
			checks = append(checks, c)
		}
	}
	// tableChecks reads lines, a paragraph of item in goldmark's reading, as
	// cmark-gfm's table extension splits it: from a delimiter row ("|---|")
	// on, the paragraph is a table, whose row a line indented four columns
	// past the item's content cannot be: that line starts a code block, and
	// the first line after it indented less, but to the item's content, ends
	// in the item and starts a paragraph ("- [ ] T001", "  |---|",
	// "      code", "  2024 [x] x"). goldmark reads all of them as one
	// paragraph. Any delimiter row is taken to start a table (cmark-gfm also
	// wants the row above to have as many cells): a task line more, not one
	// less.
	tableChecks := func(item *ast.ListItem, lines *text.Segments) {
		col, ok := contentColumn(item, toMD, lineOf, starts, out)
		if !ok {
			return
		}
		const (
			para = iota
			table
			code
		)
		state := para
		for k := 1; k < lines.Len(); k++ {
			i := lineOf(lines.At(k).Start)
			if i < 0 {
				return
			}
			line := out[i].Text
			w := Width(line)
			switch {
			case state == para && isDelimiterRow([]byte(line)):
				state = table
			case state == para:
			case w < col:
				return // no lazy line after a table or code: the item ends here
			case w >= col+4 && state == table:
				state = code
			case w >= col+4:
			case state == code:
				if markerLen([]byte(strings.TrimLeft(line, " \t"))) > 0 && cmarkTaskLine.MatchString(line) && (strings.Contains(line, "[x]") || strings.Contains(line, "[X]")) {
					// An item of its own on GitHub, checked: no reading may
					// lack a task for it.
					checks = append(checks, lazyCheck{line: i, owner: -1, own: true})
				}
				check(item, lines.At(k), false, nil)
				state = para
			}
		}
	}
	var walk func(n ast.Node, quote ast.Node)
	walk = func(n ast.Node, quote ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Blockquote, *extast.Footnote:
				q := quote
				if q == nil {
					// The outermost: a line without ">", or less indented
					// than a footnote definition's content, ends in its parent.
					q = c
				}
				walk(c, q)
			case *ast.Paragraph, *ast.TextBlock, *rawParagraph, *ast.Heading: // a setext heading was a paragraph too
				lines := c.Lines()
				if item, ok := n.(*ast.ListItem); ok && lines.Len() > 0 {
					_, afterList := c.PreviousSibling().(*ast.List)
					first := lines.At(0)
					// Not the item's own first line: a later paragraph, or the
					// first of an item that starts empty ("-", then "  2024 [x] …").
					later := !continuesDefinition(c, lineOf) && (c.PreviousSibling() != nil || (item.Pos() >= 0 && lineOf(item.Pos()) != lineOf(first.Start)))
					if i := lineOf(first.Start); later && !afterList && i >= 0 && digitNotMarker(out[i].Text) {
						check(item, first, false, nil)
					}
					if _, heading := c.(*ast.Heading); !heading {
						tableChecks(item, lines)
					}
				}
				if quote == nil {
					continue
				}
				if item, ok := quote.Parent().(*ast.ListItem); ok {
					from := 1
					if continuesDefinition(c, lineOf) {
						from = 0 // "> [a]: /u", then "1x [x] …" lazily
					}
					for k := from; k < lines.Len(); k++ {
						check(item, lines.At(k), true, quote)
					}
				}
			default:
				if c.Type() == ast.TypeBlock {
					walk(c, quote)
				}
			}
		}
	}
	walk(doc, nil)
	return checks
}

// settle applies checks, in order, to out, whose boxes are every reading's:
// a line with a task of its own, or in code, checks nothing; a line checking
// an item without a task, or an item of its own without one, fails the
// parse with a *LineError (ErrHiddenCheckbox) naming the first such line;
// otherwise the owner's task is checked by the first line found.
func settle(checks []lazyCheck, out []Line) error {
	for _, c := range checks {
		i := c.line
		if c.own {
			if out[i].Box < 0 {
				return &LineError{Line: i + 1, Err: ErrHiddenCheckbox}
			}
			continue
		}
		if out[i].Box >= 0 || out[i].Hidden {
			continue
		}
		if c.owner < 0 || out[c.owner].Box < 0 {
			return &LineError{Line: i + 1, Err: ErrHiddenCheckbox}
		}
		if out[c.owner].CheckedBy == 0 {
			out[c.owner].CheckedBy = i + 1
		}
	}
	return nil
}

// continuesDefinition reports whether paragraph c is the rest of a paragraph
// that goldmark split into link reference definitions and c: its previous
// sibling is a definition ending on the line above c's first. cmark-gfm reads
// that line as a continuation line of one paragraph, not the first line of
// another.
func continuesDefinition(c ast.Node, lineOf func(int) int) bool {
	def, ok := c.PreviousSibling().(*ast.LinkReferenceDefinition)
	if !ok || def.Lines().Len() == 0 || c.Lines().Len() == 0 {
		return false
	}
	last := lineOf(def.Lines().At(def.Lines().Len() - 1).Start)
	return last >= 0 && last+1 == lineOf(c.Lines().At(0).Start)
}

// contentColumn is the column item's content starts at (its first block's
// first line), tabs to multiples of four: cmark-gfm's item goes on only on a
// line indented that far, so only there does a lazy line end in the item.
// ok is false for an item without a block, which continues as far as any
// line.
func contentColumn(item *ast.ListItem, toMD, lineOf func(int) int, starts []int, out []Line) (col int, ok bool) {
	first := item.FirstChild()
	if first == nil || first.Lines().Len() == 0 {
		return 0, false
	}
	off := toMD(first.Lines().At(0).Start)
	i := lineOf(first.Lines().At(0).Start)
	if i < 0 || off < starts[i] || off-starts[i] > len(out[i].Text) {
		return 0, false
	}
	for _, c := range []byte(out[i].Text[:off-starts[i]]) {
		if c == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	return col, true
}

// checkLine is the check of line i (0-based), which ends in item, when the
// line looks like a checked task: ok is false when it does not.
func checkLine(item *ast.ListItem, i int, lineOf func(int) int, out []Line) (lazyCheck, bool) {
	if i < 0 {
		return lazyCheck{}, false
	}
	t := out[i].Text
	if !cmarkTaskLine.MatchString(t) || !(strings.Contains(t, "[x]") || strings.Contains(t, "[X]")) {
		return lazyCheck{}, false
	}
	owner := -1
	if first := item.FirstChild(); first != nil && first.Lines().Len() > 0 {
		owner = lineOf(first.Lines().At(0).Start)
	}
	return lazyCheck{line: i, owner: owner}, true
}

// tableDelimiterRow is a GFM table's delimiter row: cells of dashes, each
// with an optional colon on either side, between pipes, at least one pipe.
var tableDelimiterRow = regexp.MustCompile(`^[ \t]*(?:\|[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?|:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?)[ \t]*\r?$`)

// isDelimiterRow reports whether line is a table delimiter row
// (tableDelimiterRow), the pattern matched only on a line with "|" and "-".
func isDelimiterRow(line []byte) bool {
	return bytes.IndexByte(line, '|') >= 0 && bytes.IndexByte(line, '-') >= 0 && tableDelimiterRow.Match(line)
}

// digitNotMarker reports whether line, after its leading blanks, starts with
// a digit but not with an ordered list marker (one to nine digits, "." or ")",
// then a blank or the line's end), which would start a list item of its own.
func digitNotMarker(line string) bool {
	t := strings.TrimLeft(line, " \t\v\f\r")
	return t != "" && t[0] >= '0' && t[0] <= '9' && markerLen([]byte(t)) == 0
}
