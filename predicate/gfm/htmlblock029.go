package gfm

import (
	"bytes"
	"reflect"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// GitHub's renderer, cmark-gfm, starts and ends HTML blocks as CommonMark
// 0.29 does, with two departures of its own, where goldmark follows 0.31:
//   - a complete open or closing tag alone on its line (type 7) starts a
//     block whatever its tag name ("</pre>", "<script/>" included), and also
//     right after a paragraph when the line is not that paragraph's
//     continuation but a lazy one ("- [x] T001 …" then "<br>" at column 0):
//     cmark-gfm asks whether the container the line continues is a
//     paragraph, not whether a paragraph is open;
//   - 0.29's block tag names (no "search", "source" among them), no
//     "textarea" block, and "<!" followed by an upper-case letter only.
//
// A block then hides the lines up to its end from cmark-gfm, a fence opener
// or "<!--" among them, which goldmark would read as a code block or comment
// running to the end of the file, hiding every task after it. Read reads
// a tasks file holding "<" a further time with htmlBlock029Parser in place of
// goldmark's HTML block parser, and adds that reading's boxes
// (docs/format.md#task-recognition-follows-goldmark).

// gfm029Parser is gfmParser with CommonMark 0.29's HTML blocks as cmark-gfm
// reads them; gfm029FootnoteParser the same with footnote definitions.
var (
	gfm029Parser         = newGFMParserWith(blockParsers029())
	gfm029FootnoteParser = newGFMParserWith(append(blockParsers029(), footnoteBlockParser()))
)

// blockParsers029 are goldmark's default block parsers with
// htmlBlock029Parser in place of its HTML block parser.
func blockParsers029() []util.PrioritizedValue {
	goldmarks := reflect.TypeOf(parser.NewHTMLBlockParser())
	bps := parser.DefaultBlockParsers()
	for i := range bps {
		if reflect.TypeOf(bps[i].Value) == goldmarks {
			bps[i].Value = htmlBlock029Parser{}
		}
	}
	return bps
}

// htmlBlock029Parser is a goldmark block parser of HTML blocks as cmark-gfm
// (CommonMark 0.29) starts and ends them; its blocks only hide their lines.
type htmlBlock029Parser struct{}

func (htmlBlock029Parser) Trigger() []byte { return []byte{'<'} }

func (htmlBlock029Parser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	at := pc.BlockOffset()
	if at < 0 || at >= len(line) || line[at] != '<' {
		return nil, parser.NoChildren
	}
	rest := line[at:]
	typ := htmlStart029(rest)
	if typ == 0 && isTagLine(rest) {
		// Type 7 cannot interrupt a paragraph the line continues; a lazy
		// line does not continue it (its container does not match).
		if last := pc.LastOpenedBlock().Node; last == nil || !ast.IsParagraph(last) || last.Parent() != parent {
			typ = 7
		}
	}
	if typ == 0 {
		return nil, parser.NoChildren
	}
	node := ast.NewHTMLBlock(ast.HTMLBlockType(typ))
	node.Lines().Append(seg)
	reader.AdvanceToEOL()
	return node, parser.NoChildren
}

func (htmlBlock029Parser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	b := node.(*ast.HTMLBlock)
	typ := int(b.HTMLBlockType)
	lines := b.Lines()
	if first := lines.At(0); lines.Len() == 1 && typ <= 5 && htmlEnd029(typ, first.Value(reader.Source())) {
		return parser.Close // the block ended on its first line
	}
	line, seg := reader.PeekLine()
	if line == nil || (typ >= 6 && util.IsBlank(line)) {
		return parser.Close
	}
	b.Lines().Append(seg)
	reader.AdvanceToEOL()
	if typ <= 5 && htmlEnd029(typ, line) {
		return parser.Close
	}
	return parser.Continue | parser.NoChildren
}

func (htmlBlock029Parser) Close(ast.Node, text.Reader, parser.Context) {}
func (htmlBlock029Parser) CanInterruptParagraph() bool                 { return true }
func (htmlBlock029Parser) CanAcceptIndentedLine() bool                 { return false }

// blockTags029 are CommonMark 0.29's block tag names (HTML block type 6), as
// cmark-gfm lists them.
var blockTags029 = map[string]bool{}

func init() {
	for _, n := range bytes.Fields([]byte(`address article aside base basefont blockquote body caption center col
		colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset
		h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol
		optgroup option p param section source summary table tbody td tfoot th thead title tr track ul`)) {
		blockTags029[string(n)] = true
	}
}

// isSpaceChar is cmark's spacechar, the end of the line included.
func isSpaceChar(s []byte, i int) bool {
	if i >= len(s) {
		return true
	}
	switch s[i] {
	case ' ', '\t', '\v', '\f', '\r', '\n':
		return true
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// htmlStart029 returns the type (1-6) of the HTML block s starts for
// CommonMark 0.29 (s begins with "<"), 0 for none.
func htmlStart029(s []byte) int {
	lower := bytes.ToLower(s[:min(len(s), 12)])
	for _, n := range []string{"script", "pre", "style"} {
		if bytes.HasPrefix(lower[1:], []byte(n)) && (isSpaceChar(s, 1+len(n)) || s[1+len(n)] == '>') {
			return 1
		}
	}
	switch {
	case bytes.HasPrefix(s, []byte("<!--")):
		return 2
	case bytes.HasPrefix(s, []byte("<?")):
		return 3
	case len(s) > 2 && s[1] == '!' && s[2] >= 'A' && s[2] <= 'Z':
		return 4
	case bytes.HasPrefix(s, []byte("<![CDATA[")):
		return 5
	}
	i := 1
	if i < len(s) && s[i] == '/' {
		i++
	}
	j := i
	for j < len(s) && (isASCIILetter(s[j]) || isDigit(s[j])) {
		j++
	}
	if j > i && blockTags029[string(bytes.ToLower(s[i:j]))] &&
		(isSpaceChar(s, j) || s[j] == '>' || bytes.HasPrefix(s[j:], []byte("/>"))) {
		return 6
	}
	return 0
}

// htmlEnd029 reports whether line holds the end of an HTML block of type
// typ (1-5).
func htmlEnd029(typ int, line []byte) bool {
	switch typ {
	case 1:
		l := bytes.ToLower(line)
		return bytes.Contains(l, []byte("</script>")) || bytes.Contains(l, []byte("</pre>")) || bytes.Contains(l, []byte("</style>"))
	case 2:
		return bytes.Contains(line, []byte("-->"))
	case 3:
		return bytes.Contains(line, []byte("?>"))
	case 4:
		return bytes.IndexByte(line, '>') >= 0
	case 5:
		return bytes.Contains(line, []byte("]]>"))
	}
	return false
}

// isTagLine reports whether s (beginning with "<") is a complete open tag or
// closing tag followed only by spaces, tabs or form feeds to the end of the
// line: CommonMark 0.29's HTML block type 7 start, any tag name.
func isTagLine(s []byte) bool {
	i := 1
	closing := i < len(s) && s[i] == '/'
	if closing {
		i++
	}
	if i >= len(s) || !isASCIILetter(s[i]) {
		return false
	}
	for i < len(s) && (isASCIILetter(s[i]) || isDigit(s[i]) || s[i] == '-') {
		i++
	}
	spaces := func() int {
		n := 0
		for i < len(s) && isSpaceChar(s, i) && s[i] != '\n' && s[i] != '\r' {
			i++
			n++
		}
		return n
	}
	if !closing {
		for {
			start := i
			if spaces() == 0 || i >= len(s) || !(isASCIILetter(s[i]) || s[i] == '_' || s[i] == ':') {
				i = start
				break
			}
			for i < len(s) && (isASCIILetter(s[i]) || isDigit(s[i]) || bytes.IndexByte([]byte("_.:-"), s[i]) >= 0) {
				i++
			}
			afterName := i
			spaces()
			if i < len(s) && s[i] == '=' {
				i++
				spaces()
				if !attrValue(s, &i) {
					return false
				}
			} else {
				i = afterName
			}
		}
	}
	spaces()
	if !closing && i < len(s) && s[i] == '/' {
		i++
	}
	if i >= len(s) || s[i] != '>' {
		return false
	}
	i++
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\f':
		case '\r', '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// attrValue reads an attribute value at s[*i:]: unquoted, '…' or "…".
func attrValue(s []byte, i *int) bool {
	if *i >= len(s) {
		return false
	}
	switch q := s[*i]; q {
	case '\'', '"':
		j := bytes.IndexByte(s[*i+1:], q)
		if j < 0 || bytes.IndexByte(s[*i+1:*i+1+j], 0) >= 0 {
			return false
		}
		*i += j + 2
		return true
	}
	start := *i
	for *i < len(s) && bytes.IndexByte([]byte(" \t\r\n\v\f\"'=<>`\x00"), s[*i]) < 0 {
		*i++
	}
	return *i > start
}
