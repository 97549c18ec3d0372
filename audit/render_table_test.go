package audit_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// TestReasonTable: the reason × unit table of the text and Markdown reports
// has a row per unit (Markdown: at most MaxMarkdownRows) and a total row, one
// count per reason used, then the row's total.
func TestReasonTable(t *testing.T) {
	rep := &audit.Report{
		Verdicts: map[string]int{"regression_only": 5},
		Totals:   audit.Totals{Statements: 5, RegressionOnly: 5},
		Regression: audit.Regression{
			ByReason: map[string]int{"planning_work": 2, "unrecorded": 3},
			ByUnit: []audit.UnitReasons{
				{Unit: specfmt.Unit{Dir: "specs/a_b"}, Total: 3, Reasons: map[string]int{"planning_work": 1, "unrecorded": 2}},
				{Unit: specfmt.Unit{Dir: "specs/c"}, Total: 2, Reasons: map[string]int{"planning_work": 1, "unrecorded": 1}},
			},
		},
	}
	var text bytes.Buffer
	if err := audit.WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(text.String(), "\n") {
		if f := strings.Fields(l); len(f) == 4 && (strings.HasPrefix(f[0], "specs/") || f[0] == "TOTAL" || f[0] == "UNIT") {
			rows = append(rows, f)
		}
	}
	want := "UNIT PLANNING_WORK UNRECORDED TOTAL|specs/a_b 1 2 3|specs/c 1 1 2|TOTAL 2 3 5"
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r, " "))
	}
	if strings.Join(got, "|") != want {
		t.Errorf("text table rows %q, want %q\n%s", strings.Join(got, "|"), want, text.String())
	}
	var md bytes.Buffer
	if err := audit.WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"| specs/a\\_b | 1 | 2 | 3 |\n", "| specs/c | 1 | 1 | 2 |\n", "| **total** | **2** | **3** | **5** |\n"} {
		if !strings.Contains(md.String(), line) {
			t.Errorf("markdown lacks %q:\n%s", line, md.String())
		}
	}
}
