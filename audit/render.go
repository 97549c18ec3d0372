package audit

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/taskproof/taskproof/internal/printable"
)

// ErrReport is matched by the renderers' errors for a report they cannot write
// (nil).
var ErrReport = errors.New("audit: cannot write report")

// MaxMarkdownRows bounds the rows of each Markdown table: a job summary
// ($GITHUB_STEP_SUMMARY) is limited to 1 MiB. Further rows are counted, not shown.
const MaxMarkdownRows = 500

// WriteJSON writes the report as indented JSON (schema_version 1, docs/audit.md).
func WriteJSON(w io.Writer, rep *Report) error {
	if rep == nil {
		return ErrReport
	}
	return streamJSON(w, rep)
}

// Details is a one-line summary of a regression reason's details, as the text,
// CSV and Markdown reports show them: "story US2", "detail: …", "red_class
// build_error", "implemented_by T003@abc1234", "not collected: tests/x.py (why;
// fixes: a | b)". Text from the predicate is returned as written: each renderer
// escapes it for its format.
func (r *Reason) Details() string {
	if r == nil {
		return ""
	}
	var parts []string
	if r.Missing {
		parts = append(parts, "no reason recorded (revision 3)")
	}
	if r.Story != "" {
		parts = append(parts, "story "+r.Story)
	}
	if r.Detail != "" {
		parts = append(parts, "detail: "+r.Detail)
	}
	if r.RedClass != "" {
		parts = append(parts, "red_class "+r.RedClass)
	}
	if r.Reason == "already_passing" {
		parts = append(parts, "implemented_by "+r.ImplementedBy.String())
	}
	for _, f := range r.NotCollected {
		s := "not collected: " + f.Path
		var in []string
		if f.Why != "" {
			in = append(in, f.Why)
		}
		if len(f.Fixes) > 0 {
			in = append(in, "fixes: "+strings.Join(f.Fixes, " | "))
		}
		if len(in) > 0 {
			s += " (" + strings.Join(in, "; ") + ")"
		}
		parts = append(parts, s)
	}
	if r.Reason == "tests_not_collected" && len(r.NotCollected) == 0 {
		parts = append(parts, "no not-collected file recorded")
	}
	return strings.Join(parts, "; ")
}

// clean makes repository text safe for a terminal: control characters (C0, DEL,
// C1), line and paragraph separators and bidirectional formatting characters are
// written as \uXXXX, so a title cannot move the cursor, recolour the terminal or
// reorder what follows.
func clean(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeRune(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f,
		r == unicode.ReplacementChar:
		return true
	}
	return false
}

func pct(n, of int) string {
	if of == 0 {
		return "0.0%"
	}
	return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
}

// usedReasons are the reasons with a non-zero count, in Reasons order.
func usedReasons(rep *Report) []string {
	var out []string
	for _, r := range allReasons {
		if rep.Regression.ByReason[string(r)] > 0 {
			out = append(out, string(r))
		}
	}
	return out
}

// verdictOrder is the four verdicts, then any unknown ones found, sorted.
func verdictOrder(rep *Report) []string {
	var out []string
	known := map[string]bool{}
	for _, v := range allVerdicts {
		out = append(out, string(v))
		known[string(v)] = true
	}
	var extra []string
	for v := range rep.Verdicts {
		if !known[v] {
			extra = append(extra, v)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

func scopeLine(rep *Report) string {
	var b strings.Builder
	if rep.Mode == ModeAll {
		fmt.Fprintf(&b, "every note of %s", rep.NotesRef)
		if rep.Head != "" {
			fmt.Fprintf(&b, ", ticks of %s's history", printable.Short(string(rep.Head)))
		}
	} else {
		base := "(root)"
		if rep.Base != "" {
			base = printable.Short(string(rep.Base))
		}
		fmt.Fprintf(&b, "ticks of %s..%s, notes of %s", base, printable.Short(string(rep.Head)), rep.NotesRef)
	}
	if rep.Filters.Unit != "" {
		fmt.Fprintf(&b, ", unit %s", rep.Filters.Unit)
	}
	if rep.Filters.Since != "" {
		fmt.Fprintf(&b, ", since %s", rep.Filters.Since)
	}
	if rep.Signatures == "checked" {
		b.WriteString("; signatures checked")
	} else {
		b.WriteString("; signatures not checked (give trust flags to check them)")
	}
	return b.String()
}

// WriteText writes the report for people: totals, verdict counts, the reason ×
// unit table, one row per regression_only tick with its details, the weekly trend,
// the ticks without evidence, problems, and the gate. Repository text is escaped
// for the terminal (control and bidi characters as \uXXXX).
func WriteText(w io.Writer, rep *Report) error {
	if rep == nil {
		return ErrReport
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format, a...) }
	p("taskproof audit: %s\n", clean(scopeLine(rep)))
	t := rep.Totals
	p("ticks %d: %d evidenced, %d without evidence; %d statements, %d regression_only (%s)\n\n",
		t.Ticks, t.Evidenced, t.WithoutEvidence, t.Statements, t.RegressionOnly, pct(t.RegressionOnly, t.Statements))
	p("VERDICT\tSTATEMENTS\tSHARE\n")
	for _, v := range verdictOrder(rep) {
		p("%s\t%d\t%s\n", clean(v), rep.Verdicts[v], pct(rep.Verdicts[v], t.Statements))
	}
	if reasons := usedReasons(rep); len(reasons) > 0 {
		p("\nregression_only by reason and unit\n")
		p("UNIT\t%s\tTOTAL\n", strings.Join(upper(reasons), "\t"))
		reasonRows(p, rep, reasons, 0, clean, rowFormat{"%s", "\t%d", "\t%d\n"}, rowFormat{"TOTAL", "\t%d", "\t%d\n"})

		p("\nregression_only ticks\n")
		if err := tw.Flush(); err != nil {
			return err
		}
		if err := writeTable(w, regressionRows(rep)); err != nil {
			return err
		}
	}
	if len(rep.Weeks) > 0 {
		p("\ntrend per ISO week\n")
		order := verdictOrder(rep)
		p("WEEK\t%s\tTOTAL\n", strings.Join(upper(order), "\t"))
		for _, wk := range rep.Weeks {
			p("%s", wk.Week)
			for _, v := range order {
				p("\t%d", wk.Verdicts[v])
			}
			p("\t%d\n", wk.Total)
		}
	}
	if len(rep.WithoutEvidence) > 0 {
		p("\nticks without evidence (%d)\n", len(rep.WithoutEvidence))
		if err := tw.Flush(); err != nil {
			return err
		}
		if err := writeTable(w, withoutEvidenceRows(rep)); err != nil {
			return err
		}
	}
	if len(rep.Problems) > 0 {
		p("\nproblems (%d)\n", len(rep.Problems))
		for _, pr := range rep.Problems {
			p("%s\tline %d\t%s\n", printable.Short(string(pr.Commit)), pr.NoteLine, clean(pr.Message))
		}
	}
	if rep.Gate != nil {
		verdict := "passed"
		if rep.Gate.Failed {
			verdict = "FAILED"
		}
		p("\ngate %s: %s\n", verdict, clean(rep.Gate.Message))
	}
	return tw.Flush()
}

// regressionRows are the rows of WriteText's table of regression_only
// ticks, its header first.
func regressionRows(rep *Report) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		if !yield([]string{"TIME", "COMMIT", "UNIT", "TASK", "REASON", "SIGNATURE", "DETAILS"}) {
			return
		}
		for _, r := range rep.Ticks {
			if r.Regression == nil {
				continue
			}
			if !yield([]string{clean(r.Time), printable.Short(string(r.Commit)), clean(r.Unit.Dir), clean(r.TaskLabel()),
				clean(r.Regression.Reason), clean(r.Signature.Status), clean(r.Regression.Details())}) {
				return
			}
		}
	}
}

// withoutEvidenceRows are the rows of WriteText's table of ticks without
// evidence, its header first.
func withoutEvidenceRows(rep *Report) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		if !yield([]string{"COMMIT", "UNIT", "TASK", "FILE", "WHY"}) {
			return
		}
		for _, u := range rep.WithoutEvidence {
			if !yield([]string{printable.Short(string(u.Commit)), clean(u.Unit.Dir), clean(u.TaskID), fmt.Sprintf("%s:%d", clean(u.Path), u.Line), u.Why}) {
				return
			}
		}
	}
}

func upper(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strings.ToUpper(clean(x))
	}
	return out
}

// csvHeader is the header row of WriteCSV.
var csvHeader = []string{"commit", "unit_format", "unit_dir", "feature", "task_id", "title", "evidence",
	"verdict", "revision", "time", "week", "reason", "details", "story", "detail", "red_class", "implemented_by",
	"not_collected", "signature", "signers", "path", "line", "commit_time"}

// WriteCSV writes one record per statement (evidence "statement") and per tick
// without evidence (evidence "none: <why>"), under csvHeader. Cells a spreadsheet
// would read as a formula (starting with =, +, -, @, tab or carriage return) are
// prefixed with a single quote.
func WriteCSV(w io.Writer, rep *Report) error {
	if rep == nil {
		return ErrReport
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, r := range rep.Ticks {
		var reason, details, story, detail, redClass, impl, nc string
		if g := r.Regression; g != nil {
			reason, details, story, detail, redClass = g.Reason, g.Details(), g.Story, g.Detail, g.RedClass
			if g.Reason == "already_passing" {
				impl = g.ImplementedBy.String()
			}
			var files []string
			for _, f := range g.NotCollected {
				files = append(files, f.Path)
			}
			nc = strings.Join(files, " ")
		}
		var signers []string
		for _, s := range r.Signature.Signers {
			signers = append(signers, s.Principal+" "+s.KeyID)
		}
		line := ""
		if r.Line > 0 {
			line = strconv.Itoa(r.Line)
		}
		rec := []string{string(r.Commit), string(r.Unit.Format), r.Unit.Dir, r.Unit.Feature, r.TaskID, r.Title, "statement",
			r.Verdict, strconv.FormatUint(uint64(r.Revision), 10), r.Time, r.Week, reason, details, story, detail, redClass, impl,
			nc, r.Signature.Status, strings.Join(signers, "; "), r.Path, line, r.CommitTime}
		if err := cw.Write(safeCells(rec)); err != nil {
			return err
		}
	}
	for _, u := range rep.WithoutEvidence {
		rec := make([]string, len(csvHeader))
		rec[0], rec[1], rec[2], rec[3], rec[4] = string(u.Commit), string(u.Unit.Format), u.Unit.Dir, u.Unit.Feature, u.TaskID
		rec[6] = "none: " + u.Why
		rec[20], rec[21] = u.Path, strconv.Itoa(u.Line)
		if err := cw.Write(safeCells(rec)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func safeCells(rec []string) []string {
	for i, c := range rec {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			rec[i] = "'" + c
		}
	}
	return rec
}

// md escapes text for a Markdown table cell: the characters that start inline
// syntax (\ ` * _ [ ] < > | ! ~ & @ # $ :) are backslash-escaped, so no link,
// image, emphasis, code span, HTML, mention, math, pipe or autolink survives; line
// breaks and other control characters become spaces.
const mdSpecial = "\\`*_[]<>|!~&@#$:"

func md(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unsafeRune(r):
			b.WriteByte(' ')
		case strings.ContainsRune(mdSpecial, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteMarkdown writes the report as GitHub-flavoured Markdown for PR comments and
// $GITHUB_STEP_SUMMARY: a heading, the totals, the verdict table, the reason ×
// unit table, the regression_only ticks with details, the weekly trend and the
// ticks without evidence. Each table shows at most MaxMarkdownRows rows. Repository
// text is escaped (md). It is written with one Write call.
func WriteMarkdown(w io.Writer, rep *Report) error {
	if rep == nil {
		return ErrReport
	}
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	t := rep.Totals
	p("## taskproof audit\n\n%s\n\n", md(scopeLine(rep)))
	p("**%d** ticks: **%d** evidenced, **%d** without evidence · **%d** statements, **%d** regression\\_only (%s)\n\n",
		t.Ticks, t.Evidenced, t.WithoutEvidence, t.Statements, t.RegressionOnly, md(pct(t.RegressionOnly, t.Statements)))
	if rep.Gate != nil {
		mark := "passed"
		if rep.Gate.Failed {
			mark = "**failed**"
		}
		p("Gate %s: %s\n\n", mark, md(rep.Gate.Message))
	}
	p("| verdict | statements | share |\n|---|---:|---:|\n")
	for _, v := range verdictOrder(rep) {
		p("| %s | %d | %s |\n", md(v), rep.Verdicts[v], md(pct(rep.Verdicts[v], t.Statements)))
	}
	more := func(n int) {
		if n > MaxMarkdownRows {
			p("\n%d more rows not shown (see `--format json`)\n", n-MaxMarkdownRows)
		}
	}
	if reasons := usedReasons(rep); len(reasons) > 0 {
		p("\n### regression\\_only by reason and unit\n\n| unit |")
		for _, r := range reasons {
			p(" %s |", md(r))
		}
		p(" total |\n|---|%s---:|\n", strings.Repeat("---:|", len(reasons)))
		reasonRows(p, rep, reasons, MaxMarkdownRows, md, rowFormat{"| %s |", " %d |", " %d |\n"}, rowFormat{"| **total** |", " **%d** |", " **%d** |\n"})
		more(len(rep.Regression.ByUnit))

		p("\n### regression\\_only ticks\n\n| time | commit | unit | task | reason | signature | details |\n|---|---|---|---|---|---|---|\n")
		n := 0
		for _, r := range rep.Ticks {
			if r.Regression == nil {
				continue
			}
			n++
			if n > MaxMarkdownRows {
				continue
			}
			p("| %s | %s | %s | %s | %s | %s | %s |\n", md(r.Time), md(printable.Short(string(r.Commit))), md(r.Unit.Dir), md(r.TaskLabel()),
				md(r.Regression.Reason), md(r.Signature.Status), md(r.Regression.Details()))
		}
		more(n)
	}
	if len(rep.Weeks) > 0 {
		order := verdictOrder(rep)
		p("\n### trend per ISO week\n\n| week |")
		for _, v := range order {
			p(" %s |", md(v))
		}
		p(" total |\n|---|%s---:|\n", strings.Repeat("---:|", len(order)))
		for i, wk := range rep.Weeks {
			if i == MaxMarkdownRows {
				break
			}
			p("| %s |", md(wk.Week))
			for _, v := range order {
				p(" %d |", wk.Verdicts[v])
			}
			p(" %d |\n", wk.Total)
		}
		more(len(rep.Weeks))
	}
	if len(rep.WithoutEvidence) > 0 {
		p("\n### ticks without evidence (%d)\n\n| commit | unit | task | file | why |\n|---|---|---|---|---|\n", len(rep.WithoutEvidence))
		for i, u := range rep.WithoutEvidence {
			if i == MaxMarkdownRows {
				break
			}
			p("| %s | %s | %s | %s | %s |\n", md(printable.Short(string(u.Commit))), md(u.Unit.Dir), md(u.TaskID), md(fmt.Sprintf("%s:%d", u.Path, u.Line)), md(u.Why))
		}
		more(len(rep.WithoutEvidence))
	}
	if len(rep.Problems) > 0 {
		p("\n### problems (%d)\n\n| commit | note line | message |\n|---|---:|---|\n", len(rep.Problems))
		for i, pr := range rep.Problems {
			if i == MaxMarkdownRows {
				break
			}
			p("| %s | %d | %s |\n", md(printable.Short(string(pr.Commit))), pr.NoteLine, md(pr.Message))
		}
		more(len(rep.Problems))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// rowFormat is how a row of the reason × unit table is written: first its
// label (a unit row's holds %s for the unit dir), a count per reason, then the
// row's total and the line's end.
type rowFormat struct {
	label, count, total string
}

// reasonRows writes the reason × unit table's body with p: a row per unit of
// rep.Regression.ByUnit (at most max; 0 for all), its dir escaped with esc,
// then the total row.
func reasonRows(p func(string, ...any), rep *Report, reasons []string, max int, esc func(string) string, unit, total rowFormat) {
	for i, u := range rep.Regression.ByUnit {
		if i == max && max > 0 {
			break
		}
		p(unit.label, esc(u.Unit.Dir))
		for _, r := range reasons {
			p(unit.count, u.Reasons[r])
		}
		p(unit.total, u.Total)
	}
	p(total.label)
	for _, r := range reasons {
		p(total.count, rep.Regression.ByReason[r])
	}
	p(total.total, rep.Totals.RegressionOnly)
}
