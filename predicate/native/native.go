// Package native reads the boxes of a tasks file as a spec format's own tool
// reads them, line by line and blind to Markdown: the second reading beside
// GitHub's (docs/format.md#the-formats-own-readings). A box either reading
// calls done is a tick the gate judges.
//
// Each reader follows its tool's documented rules and source, at the version
// named: it splits the file at "\n" only, as the tool does, and counts white
// space as JavaScript's \s does (the tools are written in TypeScript), so
// that "\r", a no-break space or an ideographic space is white space where
// the tool's pattern allows it. It imports nothing but the standard library.
package native

import (
	"unicode/utf8"
)

// Box is one box a tool reads: the offsets, in the content read, of its "["
// and "]", and whether the tool reads it as done.
type Box struct {
	Open, Close int
	Done        bool
}

// Inner is the box's inside: content[b.Open+1 : b.Close].
func (b Box) Inner(content []byte) []byte { return content[b.Open+1 : b.Close] }

// Reader reads the boxes of a tasks file, in file order, at most one per line
// the tool splits.
type Reader func(content []byte) []Box

// OpenSpec is OpenSpec's own reading of a change's tasks file (the task
// counter `openspec list`, `status`, `archive` and `validate --archived`
// share, as of OpenSpec 1.13): a line (split at "\n") whose first
// non-white-space text is a list marker — "-", "*", "+", or one to nine
// digits and "." or ")" — then optional white space (a missing space after
// the marker is tolerated), then a box "[" … "]" is a task, wherever it is: in
// code fences, HTML comments and indented blocks alike; also after "<!--" at
// the line's start ("<!-- - [x] 1.2 … -->", which the brief reports OpenSpec
// counting: read so, as a secure superset). The box holds no "]";
// one followed by "(" is a link bullet ("- [doc](./doc.md)"), not a box. Only
// a box holding "x" or "X" and white space is done ("[ x]", "[x ]"); any
// other ("[ ]", "[]", "[~]", "[-]") is unfinished.
func OpenSpec(content []byte) []Box {
	var out []Box
	eachLine(content, func(start, end int) {
		i := skipJSSpace(content, start, end)
		if end-i >= 4 && string(content[i:i+4]) == "<!--" {
			i = skipJSSpace(content, i+4, end)
		}
		i, ok := listMarker(content, i, end)
		if !ok {
			return
		}
		i = skipJSSpace(content, i, end)
		if i >= end || content[i] != '[' {
			return
		}
		j := i + 1
		for j < end && content[j] != ']' {
			j++
		}
		if j >= end || (j+1 < end && content[j+1] == '(') {
			return
		}
		out = append(out, Box{Open: i, Close: j, Done: holdsOnlyX(content[i+1 : j])})
	})
	return out
}

// SpecWorkflow is spec-workflow-mcp's own reading of a spec's tasks file
// (its task parser, src/core/task-parser.ts, version 2.2.7): a line (split at
// "\n") of optional white space, "-" or "*", white space, a box holding one
// of " ", "x", "-", "~", white space and text is a task when that text starts
// with a task number ("1", "1.2", optionally "." or "\." after it, then white
// space and more text), wherever it is: in code fences and HTML comments
// alike. "[x]" is done; "[ ]" pending, "[-]" in progress and "[~]" blocked
// are open. The tool does not read "[X]" at all; this reader reads it as
// done, as GitHub does, so that which boxes are tasks never depends on what
// a box holds (docs/format.md#the-formats-own-readings).
func SpecWorkflow(content []byte) []Box {
	var out []Box
	eachLine(content, func(start, end int) {
		i := skipJSSpace(content, start, end)
		if i >= end || (content[i] != '-' && content[i] != '*') {
			return
		}
		j := skipJSSpace(content, i+1, end)
		if j == i+1 || j+2 >= end || content[j] != '[' || content[j+2] != ']' {
			return
		}
		switch content[j+1] {
		case ' ', 'x', 'X', '-', '~':
		default:
			return
		}
		k := skipJSSpace(content, j+3, end)
		if k == j+3 || k >= end {
			return
		}
		// (.+) ends at a line terminator; the task number pattern reads it.
		text := k
		for text < end {
			r, n := utf8.DecodeRune(content[text:end])
			if r == '\r' || r == '\u2028' || r == '\u2029' {
				break
			}
			text += n
		}
		if !numberedText(content, k, text) {
			return
		}
		c := content[j+1]
		out = append(out, Box{Open: j, Close: j + 2, Done: c == 'x' || c == 'X'})
	})
	return out
}

// SpecKitAgent is the reading of an agent following spec-kit's prompts
// (/speckit.implement: "mark [X]"), which reads and writes the tasks file as
// raw text, not as GitHub renders it: a line (split at "\n") whose text,
// after white space, any "<!--" and ">" (each followed by optional white
// space) and an optional list marker ("-", "*", "+", or one to nine digits
// and "." or ")") with optional white space, starts with a box "[ ]", "[x]"
// or "[X]", white space and a spec-kit task ID ("T" and a digit, bare or
// bracketed: "[T001]") is a task, wherever it is: a lazy continuation line, a
// paragraph, an HTML comment, a code block. "[x]"/"[X]" is done. Unlike the
// tools' counters it wants a written ID: a line reads as a task to an agent
// when it names one, and "[x]" elsewhere in prose names none.
func SpecKitAgent(content []byte) []Box {
	var out []Box
	eachLine(content, func(start, end int) {
		i := skipJSSpace(content, start, end)
		for {
			switch {
			case end-i >= 4 && string(content[i:i+4]) == "<!--":
				i = skipJSSpace(content, i+4, end)
				continue
			case i < end && content[i] == '>':
				i = skipJSSpace(content, i+1, end)
				continue
			}
			break
		}
		if j, ok := listMarker(content, i, end); ok {
			i = skipJSSpace(content, j, end)
		}
		if end-i < 3 || content[i] != '[' || content[i+2] != ']' {
			return
		}
		c := content[i+1]
		if c != ' ' && c != 'x' && c != 'X' {
			return
		}
		k := skipJSSpace(content, i+3, end)
		if k == i+3 {
			return
		}
		if k < end && content[k] == '[' {
			k++
		}
		if end-k < 2 || content[k] != 'T' || !isDigit(content[k+1]) {
			return
		}
		out = append(out, Box{Open: i, Close: i + 2, Done: c != ' '})
	})
	return out
}

// numberedText reports whether content[i:end], a text holding no line
// terminator, matches the tool's task number pattern,
// ^(\d+(?:\.\d+)*)\s*\\?\.?\s+(.+): a number and its dotted parts, white
// space, an optional "\" and ".", white space and one more character. The
// number is read greedily: giving back a part leaves a digit where the
// pattern wants white space.
func numberedText(content []byte, i, end int) bool {
	d := skipDigits(content, i, end)
	if d == i {
		return false
	}
	for d+1 < end && content[d] == '.' && isDigit(content[d+1]) {
		d = skipDigits(content, d+1, end)
	}
	if spaceThenChar(content, d, end) {
		return true // \s* takes less than all the white space, \\? and \.? nothing
	}
	g := skipJSSpace(content, d, end)
	if g < end && content[g] == '\\' {
		g++
		if spaceThenChar(content, g, end) {
			return true
		}
	}
	if g < end && content[g] == '.' {
		g++
		if spaceThenChar(content, g, end) {
			return true
		}
	}
	return false
}

// spaceThenChar reports whether \s+(.+) matches at i in a text holding no
// line terminator: a white-space character and at least one more character.
func spaceThenChar(content []byte, i, end int) bool {
	if i >= end {
		return false
	}
	r, n := utf8.DecodeRune(content[i:end])
	return isJSSpace(r) && i+n < end
}

// eachLine calls f with the start and end (excluding "\n") of each line of
// content as the tools split it: at "\n" only.
func eachLine(content []byte, f func(start, end int)) {
	start := 0
	for i, c := range content {
		if c == '\n' {
			f(start, i)
			start = i + 1
		}
	}
	if start < len(content) {
		f(start, len(content))
	}
}

// listMarker reads "-", "*", "+" or one to nine digits and "." or ")" at i.
func listMarker(content []byte, i, end int) (int, bool) {
	if i >= end {
		return i, false
	}
	switch content[i] {
	case '-', '*', '+':
		return i + 1, true
	}
	d := skipDigits(content, i, end)
	if d == i || d-i > 9 || d >= end || (content[d] != '.' && content[d] != ')') {
		return i, false
	}
	return d + 1, true
}

// holdsOnlyX reports whether inner is white space and exactly one "x" or "X".
func holdsOnlyX(inner []byte) bool {
	x := 0
	for i := 0; i < len(inner); {
		r, n := utf8.DecodeRune(inner[i:])
		switch {
		case r == 'x' || r == 'X':
			x++
		case !isJSSpace(r):
			return false
		}
		i += n
	}
	return x == 1
}

// skipJSSpace returns the offset of the first character at or after i that
// JavaScript's \s does not match (end when none).
func skipJSSpace(content []byte, i, end int) int {
	for i < end {
		r, n := utf8.DecodeRune(content[i:end])
		if !isJSSpace(r) {
			return i
		}
		i += n
	}
	return end
}

// isJSSpace reports whether JavaScript's \s matches r: ECMAScript's
// WhiteSpace and LineTerminator.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return 0x2000 <= r && r <= 0x200a
}

func skipDigits(content []byte, i, end int) int {
	for i < end && isDigit(content[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
