package audit

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
)

// tabwriterTable is what writeTable replaces: the rows written through
// WriteText's tabwriter.
func tabwriterTable(rows [][]string) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, tablePadding, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\n", strings.Join(r, "\t"))
	}
	tw.Flush()
	return b.String()
}

func checkTable(t *testing.T, rows [][]string) {
	t.Helper()
	var got bytes.Buffer
	if err := writeTable(&got, slices.Values(rows)); err != nil {
		t.Fatal(err)
	}
	if want := tabwriterTable(rows); got.String() != want {
		t.Fatalf("writeTable(%q):\n%q\ntabwriter:\n%q", rows, got.String(), want)
	}
}

func TestWriteTableAsTabwriter(t *testing.T) {
	for _, rows := range [][][]string{
		{{"TIME", "COMMIT", "DETAILS"}},
		{{"A", "B"}, {"", ""}, {"ccc", "d"}},
		{{"UNIT", "TASK", "WHY"}, {"specs/001-é", "T1", "x"}, {"", "", ""}, {clean("ü\xffz"), "T-22", "why not"}},
		{{"only"}, {"one column"}},
		{{"", "", ""}, {"", "", ""}},
	} {
		checkTable(t, rows)
	}
}

// FuzzWriteTable checks writeTable against tabwriter on rows of three cells,
// cleaned as WriteText's are (clean: no control character, no invalid UTF-8,
// so neither a tab nor tabwriter's Escape byte).
func FuzzWriteTable(f *testing.F) {
	f.Add("a|b|c", "dd||é", "\xff|x|")
	f.Fuzz(func(t *testing.T, r1, r2, r3 string) {
		var rows [][]string
		for _, r := range []string{r1, r2, r3} {
			cells := strings.SplitN(r, "|", 3)
			for i := range cells {
				cells[i] = clean(cells[i])
			}
			for len(cells) < 3 {
				cells = append(cells, "")
			}
			rows = append(rows, cells)
		}
		checkTable(t, rows)
	})
}
