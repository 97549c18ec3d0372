package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/verify"
)

// WriteGitHub writes the report as GitHub Actions workflow commands:
// one `::error file=PATH,line=N,title=TITLE::MESSAGE` per failing tick (branch
// mode) or failing object (objects mode; file is the unit's tasks.md when known,
// line omitted), then one `::notice::` (success, neutral) or `::error::`
// (failure) line with the conclusion and counts. Every value is escaped by the
// workflow-command rules (escapeData, escapeProperty), so text from the
// repository cannot end a command or start another. Errors wrap ErrReport for a
// nil report or unknown mode, or are w's.
func WriteGitHub(w io.Writer, rep *verify.Report, opts CIOptions) error {
	items, err := ciItems(rep, opts)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, it := range items {
		if !it.failing {
			continue
		}
		fmt.Fprintf(&b, "::error %s::%s\n", githubProperties(it, it.statusText()), escapeData(it.text()))
	}
	writeGitHubWarnings(&b, items)
	cmd := "notice"
	if rep.Conclusion != verify.Success && rep.Conclusion != verify.Neutral {
		cmd = "error"
	}
	fmt.Fprintf(&b, "::%s::%s\n", cmd, escapeData(conclusionLine(rep, items)))
	_, err = io.WriteString(w, b.String())
	return err
}

// conclusionLine is "taskproof verify: <conclusion> — F of N ticks failing
// (status counts)". A conclusion other than success or neutral (an unknown
// value included) is reported as written and treated as failing by callers.
func conclusionLine(rep *verify.Report, items []ciItem) string {
	noun := "ticks"
	if rep.Mode == "objects" {
		noun = "objects"
	}
	total, failing := 0, 0
	var order []string
	counts := map[string]int{}
	for _, it := range items {
		if it.unticked {
			continue
		}
		total++
		if it.failing {
			failing++
		}
		if counts[it.status] == 0 {
			order = append(order, it.status)
		}
		counts[it.status]++
	}
	if total == 0 {
		return fmt.Sprintf("taskproof verify: %s — nothing to check", rep.Conclusion)
	}
	parts := make([]string, 0, len(order))
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s %d", s, counts[s]))
	}
	return fmt.Sprintf("taskproof verify: %s — %d of %d %s failing (%s)", rep.Conclusion, failing, total, noun, strings.Join(parts, ", "))
}

// escapeData escapes a workflow command's message: % → %25, CR → %0D, LF → %0A
// (GitHub Actions toolkit's escapeData).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value: as escapeData,
// and also : → %3A, , → %2C (GitHub Actions toolkit's escapeProperty).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// WriteGitHubSummary writes the report as Markdown for a job summary (the file
// $GITHUB_STEP_SUMMARY names; the caller opens it for appending and passes it
// as w): a heading with the conclusion, the counts, and a table with one row
// per tick, untick (branch mode) or object: status | task | commit | file:line |
// signer | reason (signer: the credited signers as the text report writes them,
// "-" when none). Cells are escaped so repository text cannot break the table or inject
// HTML or links. It is written with one Write call. Errors wrap ErrReport for a
// nil report or unknown mode, or are w's.
func WriteGitHubSummary(w io.Writer, rep *verify.Report, opts CIOptions) error {
	items, err := ciItems(rep, opts)
	if err != nil {
		return err
	}
	var b strings.Builder
	icon := "✅"
	switch rep.Conclusion {
	case verify.Success:
	case verify.Neutral:
		icon = "⚪"
	default:
		icon = "❌"
	}
	fmt.Fprintf(&b, "## %s taskproof verify: %s\n\n", icon, mdCell(rep.Conclusion))
	fmt.Fprintf(&b, "%s\n\n", mdCell(strings.TrimPrefix(conclusionLine(rep, items), "taskproof verify: ")))
	switch rep.Mode {
	case "branch":
		fmt.Fprintf(&b, "Range `%s..%s`, notes ref `%s`.\n\n", printable.Short(string(rep.Base)), printable.Short(string(rep.Head)), mdCode(rep.NotesRef))
	default:
		fmt.Fprintf(&b, "Objects, notes ref `%s`.\n\n", mdCode(rep.NotesRef))
	}
	if len(items) > 0 {
		b.WriteString("| status | task | commit | file:line | signer | reason |\n| --- | --- | --- | --- | --- | --- |\n")
		for _, it := range items {
			mark := "✓"
			switch {
			case it.failing:
				mark = "✗"
			case it.unticked:
				mark = "–"
			}
			fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %s | %s |\n", mark, mdCell(it.status), mdCell(it.taskText()),
				mdCell(printable.Short(string(it.commit))), mdCell(orDash(it.location())), mdCell(orDash(signersText(it.signers))),
				mdCell(orDash(summaryReason(&it))))
		}
		b.WriteByte('\n')
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// summaryReason is the reason cell: the tick's sub-reason or rule, then the
// codes of its reasons, and same_tree_as.
func summaryReason(it *ciItem) string {
	var parts []string
	head := it.reason
	if head == "" && it.failing {
		head = it.rule
	}
	if head != "" && head != it.status {
		parts = append(parts, head)
	}
	seen := map[string]bool{}
	var codes []string
	for _, r := range it.reasons {
		if !seen[r.Code] {
			seen[r.Code] = true
			codes = append(codes, r.Code)
		}
	}
	if len(codes) > 0 {
		parts = append(parts, strings.Join(codes, ", "))
	}
	if it.sameTree != "" {
		parts = append(parts, "same_tree_as "+printable.Short(string(it.sameTree)))
	}
	return strings.Join(parts, ": ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdCell escapes s for a GitHub-flavoured Markdown table cell: control
// characters become spaces, and the characters that could end the cell, open a
// code span, emphasis, link, autolink, HTML tag, entity, strikethrough or math
// are backslash-escaped (CommonMark allows escaping any ASCII punctuation).
func mdCell(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case strings.ContainsRune("\\`*_{}[]()<>|~&!$#", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode makes s safe inside a single-backtick code span: backticks and
// control characters become spaces (a code span has no escapes).
func mdCode(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '`' || r < 0x20 || r == 0x7f || r == '|' {
			return ' '
		}
		return r
	}, s)
}

// githubProperties are a workflow command's properties for item: its file and
// line, and a title naming its task (else its commit) and what is said of it.
func githubProperties(it ciItem, what string) string {
	var props []string
	if it.path != "" {
		props = append(props, "file="+escapeProperty(it.path))
		if it.line > 0 {
			props = append(props, fmt.Sprintf("line=%d", it.line))
		}
	}
	subject := it.task
	if subject == "" {
		subject = "commit " + printable.Short(string(it.commit))
	}
	props = append(props, "title="+escapeProperty("taskproof: "+subject+" "+what))
	return strings.Join(props, ",")
}
