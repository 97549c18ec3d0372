package specfmt

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// GitHub's renderer, cmark-gfm, decides an item's checkbox while it reads
// the item's lines: whenever a line ends in the item itself (no block inside
// the item continues on it) and the line, from its first byte, looks like a
// task ("- [x] …": blanks, a list marker, blanks, "[ ]" or "[x]", a blank),
// the item gets a checkbox, checked when the line holds "[x]" or "[X]".
// A task's own first line is one such line. The other is a line continuing
// a paragraph of a block quote inside the item lazily, without the quote's
// ">": it ends in the item, and cmark-gfm re-reads the item's box from it.
// So "1. [ ] T001", "   > text", "        - [x] more" is T001 shown checked,
// and a list item without a box of its own is shown as a checked task.
// readGFM finds such lines in goldmark's reading (lazyChecks): a task's
// item gets the line's number (Task.CheckedBy, a tick); an item that is no
// task fails the parse, as taskproof cannot name the task GitHub shows
// (docs/format.md#task-recognition-follows-goldmark).

// cmarkTaskLine is cmark-gfm's task list pattern, matched from a line's
// start: blanks, a list marker ("-", "+", "*", or digits and any one
// character), blanks, "[ ]", "[x]" or "[X]" (its scanners are generated
// case-insensitive), then a blank or the line's end.
var cmarkTaskLine = regexp.MustCompile(`^[ \t\v\f\r]*(?:[-+*]|[0-9]+[^\n])[ \t\v\f\r]+\[[ xX]\](?:[ \t\v\f\r]|$)`)

// lazyChecks sets checkedBy on the task lines of out whose items a lazy line
// checks on GitHub, as above, reading doc (goldmark's parse of the file, whose
// lines lineOf finds). It returns a *LineError (ErrHiddenCheckbox) naming the
// first such line whose item is no task.
func lazyChecks(doc ast.Node, lineOf func(int) int, out []gfmLine) error {
	var err error
	var walk func(n ast.Node, quote ast.Node)
	walk = func(n ast.Node, quote ast.Node) {
		for c := n.FirstChild(); c != nil && err == nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Blockquote:
				q := quote
				if q == nil {
					q = c // the outermost: a line without ">" ends in its parent
				}
				walk(c, q)
			case *ast.Paragraph, *ast.TextBlock:
				if quote != nil {
					err = lazyCheck(c, quote, lineOf, out)
				}
			default:
				if c.Type() == ast.TypeBlock {
					walk(c, quote)
				}
			}
		}
	}
	walk(doc, nil)
	return err
}

// lazyCheck applies lazyChecks to the lines of paragraph p, in block quote
// quote (the outermost around p).
func lazyCheck(p ast.Node, quote ast.Node, lineOf func(int) int, out []gfmLine) error {
	item, ok := quote.Parent().(*ast.ListItem)
	if !ok {
		return nil
	}
	lines := p.Lines()
	for k := 1; k < lines.Len(); k++ {
		i := lineOf(lines.At(k).Start)
		if i < 0 || out[i].box >= 0 || out[i].hidden {
			continue
		}
		t := out[i].text
		if !cmarkTaskLine.MatchString(t) || !(strings.Contains(t, "[x]") || strings.Contains(t, "[X]")) {
			continue
		}
		owner := -1
		if first := item.FirstChild(); first != nil && first.Lines().Len() > 0 {
			owner = lineOf(first.Lines().At(0).Start)
		}
		if owner < 0 || out[owner].box < 0 {
			return &LineError{Line: i + 1, Err: ErrHiddenCheckbox}
		}
		if out[owner].checkedBy == 0 {
			out[owner].checkedBy = i + 1
		}
	}
	return nil
}
