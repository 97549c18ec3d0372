package gfm

import (
	"reflect"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// A list item whose first line holds only its marker ("-", "1.") takes the
// lines that follow it, indented to its content column, as its content
// (CommonMark, "List items", rule 3), blank ones too as cmark-gfm reads them;
// a blank line less indented ends it, and after that only a sibling item
// continues the list. goldmark differs in two ways:
//   - it ends the list when such a line starts a list item of another kind
//     ("-" then "  + [x] T001", "*" then "  1. [x] T001"): the line starts a
//     list of its own at the outer level, and the lines after it, indented for
//     the item they are in, become a paragraph's continuation ("-",
//     "  +   [ ] T013", "    + [x] T016" is two tasks on GitHub, one for
//     goldmark, T016 being text);
//   - it records a blank line after an empty item for the whole parse, not
//     for the item's list, so an outer list ends at its next line ("1)",
//     "   -", "", "   * [x] T004" in an item that goes on).
//
// Read reads a file that may hold an item that starts empty a further time
// with emptyItemListParser and emptyItemItemParser in place of goldmark's list
// and list item parsers, and adds that reading's boxes
// (docs/format.md#task-recognition-follows-goldmark).

// emptyItemTwins are the parsers Read reads with, each with its twin that
// reads empty list items as cmark-gfm does.
var emptyItemTwins = map[parser.Parser]parser.Parser{
	gfmParser:            newGFMParserWith(withEmptyItems(parser.DefaultBlockParsers())),
	gfmFootnoteParser:    newGFMParserWith(withEmptyItems(append(parser.DefaultBlockParsers(), footnoteBlockParser()))),
	gfm029Parser:         newGFMParserWith(withEmptyItems(blockParsers029())),
	gfm029FootnoteParser: newGFMParserWith(withEmptyItems(append(blockParsers029(), footnoteBlockParser()))),
}

// withEmptyItems returns bps with goldmark's list and list item parsers
// wrapped in emptyItemListParser and emptyItemItemParser.
func withEmptyItems(bps []util.PrioritizedValue) []util.PrioritizedValue {
	lists, items := reflect.TypeOf(parser.NewListParser()), reflect.TypeOf(parser.NewListItemParser())
	for i := range bps {
		switch reflect.TypeOf(bps[i].Value) {
		case lists:
			bps[i].Value = emptyItemListParser{BlockParser: bps[i].Value.(parser.BlockParser)}
		case items:
			bps[i].Value = emptyItemItemParser{BlockParser: bps[i].Value.(parser.BlockParser)}
		}
	}
	return bps
}

// endedItems keys the parse context's set of empty list items a less indented
// blank line has ended.
var endedItems = parser.NewContextKey()

func ended(pc parser.Context) map[*ast.ListItem]bool {
	m, _ := pc.Get(endedItems).(map[*ast.ListItem]bool)
	if m == nil {
		m = map[*ast.ListItem]bool{}
		pc.Set(endedItems, m)
	}
	return m
}

// emptyItemListParser is goldmark's list parser, reading the lines after an
// empty last item as cmark-gfm does. It handles every blank line after an
// empty item itself, so goldmark's parse-wide record of one is never set.
type emptyItemListParser struct{ parser.BlockParser }

// Open is goldmark's, which keeps its own state (it moves no position), but
// never opens a list in a list: where an ended item's list goes on, the line
// starts a sibling item (emptyItemItemParser).
func (p emptyItemListParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	n, st := p.BlockParser.Open(parent, reader, pc)
	if _, inList := parent.(*ast.List); inList && n != nil {
		return nil, parser.NoChildren
	}
	return n, st
}

func (p emptyItemListParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	item, ok := node.LastChild().(*ast.ListItem)
	if !ok || item.ChildCount() > 0 {
		return p.BlockParser.Continue(node, reader, pc)
	}
	line, _ := reader.PeekLine()
	indent, _ := util.IndentWidth(line, reader.LineOffset())
	blank := util.IsBlank(line)
	switch {
	case ended(pc)[item]:
		if blank {
			return parser.Continue | parser.HasChildren
		}
		if indent >= 4 || !startsListItem(line) {
			return parser.Close
		}
		// goldmark's: the list goes on for an item of its kind, not for
		// another kind or a thematic break.
		return p.BlockParser.Continue(node, reader, pc)
	case indent >= item.Offset:
		return parser.Continue | parser.HasChildren
	case blank:
		ended(pc)[item] = true
		return parser.Continue | parser.HasChildren
	}
	return p.BlockParser.Continue(node, reader, pc)
}

// emptyItemItemParser is goldmark's list item parser, except that an item
// emptyItemListParser has ended takes no further line.
type emptyItemItemParser struct{ parser.BlockParser }

func (p emptyItemItemParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	if item, ok := node.(*ast.ListItem); ok && ended(pc)[item] {
		line, _ := reader.PeekLine()
		if util.IsBlank(line) {
			// Kept open through blank lines: the block opened last is then
			// the item, not its list, when a line of another kind ends the
			// list, and goldmark's list parser opens that line's list.
			reader.AdvanceToEOL()
			return parser.Continue | parser.HasChildren
		}
		return parser.Close
	}
	return p.BlockParser.Continue(node, reader, pc)
}

// startsListItem reports whether line, after at most three spaces, starts
// with a list marker followed by a blank or the line's end.
func startsListItem(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	return markerLen(line[i:]) > 0
}
