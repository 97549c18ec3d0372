package specfmt

import "strings"

// bom is the UTF-8 byte order mark; at the start of a file it is not part of line 1.
const bom = "\ufeff"

// splitLines splits content into lines as Rust's str::lines does
// (docs/format.md#hash-recipes): on "\n", one "\r" before it dropped, a final
// "\n" not making an empty last line. A leading UTF-8 BOM is removed first. A
// lone "\r" is not a line break.
func splitLines(content []byte) []string {
	s := strings.TrimPrefix(string(content), bom)
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// mdLine is one line of a Markdown document with the block context it sits in.
type mdLine struct {
	text string
	// inFence: the line opens, closes or lies inside a fenced code block
	// (``` or ~~~, three or more, any indentation).
	inFence bool
	// inComment: an HTML comment is open at the start of the line, or the line
	// (after indentation) starts one.
	inComment bool
	// level is the ATX heading level (1-6) when the line is a heading outside
	// any code fence and HTML comment, else 0; heading is the heading's text,
	// trimmed. A heading inside an HTML comment is hidden like a task inside one:
	// a commented-out example heading must neither open nor end a section nor
	// bind a task to the wrong text (the most secure reading of docs/format.md#hash-recipes, which
	// names only code fences).
	level   int
	heading string
}

// hidden reports whether the line is in a code fence or an HTML comment: such lines
// never hold section headings.
func (l mdLine) hidden() bool { return l.inFence || l.inComment }

// scanMarkdown classifies the lines of a spec document for its sections (the
// section_hash recipe; tasks files are read with goldmark, predicate/gfm). One state machine tracks
// fenced code blocks and HTML comments: inside a comment a fence marker is text, and
// inside a fence a comment marker is text. An unclosed fence or comment runs to the
// end of the document (as in CommonMark).
func scanMarkdown(content []byte) []mdLine {
	raw := splitLines(content)
	out := make([]mdLine, len(raw))
	var (
		fenceChar byte
		fenceLen  int
		inComment bool
	)
	for i, text := range raw {
		l := mdLine{text: text}
		trimmed := strings.TrimLeft(text, " \t")
		switch {
		case inComment:
			l.inComment = true
			inComment = commentOpenAfter(text, true)
		case fenceLen > 0:
			l.inFence = true
			if c, n, info := fenceMarker(trimmed); c == fenceChar && n >= fenceLen && strings.TrimSpace(info) == "" {
				fenceLen = 0
			}
		default:
			if c, n, info := fenceMarker(trimmed); n > 0 && (c == '~' || !strings.Contains(info, "`")) {
				l.inFence = true
				fenceChar, fenceLen = c, n
				break
			}
			l.inComment = strings.HasPrefix(trimmed, "<!--")
			inComment = commentOpenAfter(text, false)
			l.level, l.heading = atxHeading(text)
		}
		out[i] = l
	}
	return out
}

// fenceMarker returns the fence character, the run length (0 when the line does not
// start with three or more backticks or tildes) and the rest of the line.
func fenceMarker(trimmed string) (c byte, n int, rest string) {
	if len(trimmed) < 3 || (trimmed[0] != '`' && trimmed[0] != '~') {
		return 0, 0, ""
	}
	c = trimmed[0]
	for n < len(trimmed) && trimmed[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0, ""
	}
	return c, n, trimmed[n:]
}

// commentOpenAfter reports whether an HTML comment is open at the end of line, given
// whether one was open at its start.
func commentOpenAfter(line string, open bool) bool {
	for {
		if open {
			i := strings.Index(line, "-->")
			if i < 0 {
				return true
			}
			line, open = line[i+3:], false
			continue
		}
		i := strings.Index(line, "<!--")
		if i < 0 {
			return false
		}
		line, open = line[i+4:], true
	}
}

// atxHeading parses an ATX heading: up to three spaces, one to six '#', then a
// space, a tab or the end of the line. It returns the level (0 when line is not a
// heading) and the text after the '#'s, trimmed of spaces and tabs.
func atxHeading(line string) (int, string) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(line) && line[i+n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, ""
	}
	rest := line[i+n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, ""
	}
	return n, strings.Trim(rest, " \t")
}

// block returns the lines from index start through the line before the next
// heading of level ≤ maxLevel (or the end), joined with "\n" and no trailing
// newline (docs/format.md#hash-recipes).
func block(lines []mdLine, start, maxLevel int) string {
	end := len(lines)
	for j := start + 1; j < len(lines); j++ {
		if lv := lines[j].level; lv > 0 && lv <= maxLevel {
			end = j
			break
		}
	}
	texts := make([]string, 0, end-start)
	for _, l := range lines[start:end] {
		texts = append(texts, l.text)
	}
	return strings.Join(texts, "\n")
}
