package audit

import (
	"bufio"
	"io"
	"iter"
	"strings"
	"unicode/utf8"
)

// tablePadding is the space after a text table's widest cell, as WriteText's
// tabwriter pads its other blocks (minwidth 0, padding 2, padchar ' ').
const tablePadding = 2

// writeTable writes rows (the header first), each a row's cells, as one
// column block exactly as text/tabwriter configured as WriteText's writes a
// block of tab-separated lines with the same number of cells: every cell but
// a row's last padded with spaces to its column's widest cell (in runes) plus
// tablePadding. Unlike tabwriter it does not hold the block: it reads the
// rows twice, once for the widths and once to write them, so a table of every
// tick of a long history costs a buffer, not the history's text. Cells hold
// no tab or newline (clean).
func writeTable(w io.Writer, rows iter.Seq[[]string]) error {
	var widths []int
	for cells := range rows {
		for j, c := range cells[:max(len(cells)-1, 0)] {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(c)+tablePadding)
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for cells := range rows {
		for j, c := range cells {
			bw.WriteString(c)
			if j < len(cells)-1 {
				bw.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)))
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
