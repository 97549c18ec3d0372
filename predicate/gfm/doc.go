// Package gfm reads a Markdown file's task list items as GitHub renders them
// (docs/format.md#task-recognition-follows-goldmark): CommonMark with GFM task
// lists, github.com/yuin/goldmark being the reference reading of the block
// structure — lists, block quotes, fenced and indented code, HTML blocks,
// headings, lazy continuation — with the readings of GitHub's own renderer
// (cmark-gfm) added where the two differ: footnote definitions, CommonMark
// 0.29's HTML blocks, blanks, list items that start empty, tables, and the
// lines that re-read an item's box. It says which lines hold a box, where,
// and in what block context; package specfmt reads the tasks on those lines.
//
// It has no git in it and keeps no document past one reading.
package gfm

import (
	"errors"
	"fmt"
)

// Errors of a reading; test with errors.Is.
var (
	// ErrHiddenCheckbox: a line of a tasks file makes GitHub show a checked
	// task that taskproof reads no task for: a later line of an item that is
	// no task, which looks like a checked task and re-reads the item's box,
	// or a checked item GitHub starts where goldmark continues a paragraph.
	ErrHiddenCheckbox = errors.New("specfmt: a line makes GitHub show a checked task that taskproof reads no task for")
	// ErrNestingTooDeep: a line of a tasks file opens or continues more
	// containers (block quotes, list items) than taskproof reads: over
	// MaxContainerPrefix columns of indentation and markers before its text.
	ErrNestingTooDeep = errors.New("specfmt: tasks file nested too deep")
)

// LineError is a failure tied to one line of a tasks file (1-based). Err is
// the kind (ErrNestingTooDeep, ErrHiddenCheckbox, and specfmt's kinds).
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the kind of failure.
func (e *LineError) Unwrap() error { return e.Err }

// bom is the UTF-8 byte order mark; at the start of a file it is not part of line 1.
const bom = "\ufeff"

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skipDigits returns the offset of the first byte of s at or after i that is not
// an ASCII digit (len(s) when none).
func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// Width is the indentation width of line in columns, a tab counting to the
// next multiple of four, as CommonMark counts it.
func Width(line string) int {
	w := 0
	for _, c := range []byte(line) {
		switch c {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return w
		}
	}
	return w
}
