package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

func TestCIGitHubGolden(t *testing.T) {
	for _, c := range ciReports {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteGitHub(&b, c.rep(), c.opts); err != nil {
				t.Fatal(err)
			}
			checkCIGolden(t, "ci-"+c.name+".github", b.Bytes())
			b.Reset()
			if err := WriteGitHubSummary(&b, c.rep(), c.opts); err != nil {
				t.Fatal(err)
			}
			checkCIGolden(t, "ci-"+c.name+".summary.md", b.Bytes())
		})
	}
}

func TestCIGitHubEscape(t *testing.T) {
	tests := []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50%", "50%25", "50%25"},
		{"%0A", "%250A", "%250A"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"file:1,2", "file:1,2", "file%3A1%2C2"},
		{"::error::x\n::set-output name=a::b", "::error::x%0A::set-output name=a::b", "%3A%3Aerror%3A%3Ax%0A%3A%3Aset-output name=a%3A%3Ab"},
		{"日本語 ✓", "日本語 ✓", "日本語 ✓"},
	}
	for _, tt := range tests {
		if got := escapeData(tt.in); got != tt.data {
			t.Errorf("escapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := escapeProperty(tt.in); got != tt.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
}

// parseCommand splits one workflow command line into its name, properties and
// message, undoing the escapes, as the runner does.
func parseCommand(t *testing.T, line string) (string, map[string]string, string) {
	t.Helper()
	if !strings.HasPrefix(line, "::") {
		t.Fatalf("not a workflow command: %q", line)
	}
	rest := line[2:]
	end := strings.Index(rest, "::")
	if end < 0 {
		t.Fatalf("no message separator: %q", line)
	}
	head, msg := rest[:end], rest[end+2:]
	name, propText, _ := strings.Cut(head, " ")
	unProp := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	unData := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%")
	props := map[string]string{}
	if propText != "" {
		for _, kv := range strings.Split(propText, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("property without '=': %q in %q", kv, line)
			}
			props[k] = unProp.Replace(v)
		}
	}
	return name, props, unData.Replace(msg)
}

func TestCIGitHubCommands(t *testing.T) {
	for _, c := range ciReports {
		t.Run(c.name, func(t *testing.T) {
			rep := c.rep()
			var b bytes.Buffer
			if err := WriteGitHub(&b, rep, c.opts); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.HasSuffix(out, "\n") {
				t.Fatalf("output does not end in a newline: %q", out)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			items, err := ciItems(rep, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			var failing []ciItem
			for _, it := range items {
				if it.failing {
					failing = append(failing, it)
				}
			}
			if len(lines) != len(failing)+1 {
				t.Fatalf("%d lines, want %d errors and a conclusion:\n%s", len(lines), len(failing), out)
			}
			for i, it := range failing {
				name, props, msg := parseCommand(t, lines[i])
				if name != "error" {
					t.Errorf("line %d: command %q, want error", i, name)
				}
				if props["file"] != it.path {
					t.Errorf("line %d: file %q, want %q", i, props["file"], it.path)
				}
				wantLine := ""
				if it.path != "" && it.line > 0 {
					wantLine = strconv.Itoa(it.line)
				}
				if props["line"] != wantLine {
					t.Errorf("line %d: line %q, want %q", i, props["line"], wantLine)
				}
				if subject := it.task; subject == "" && !strings.Contains(props["title"], "commit "+printable.Short(string(it.commit))) || subject != "" && !strings.Contains(props["title"], subject) {
					t.Errorf("line %d: title %q does not name %s", i, props["title"], it.task)
				}
				if msg != it.text() {
					t.Errorf("line %d: message round-trips to %q, want %q", i, msg, it.text())
				}
			}
			name, props, msg := parseCommand(t, lines[len(lines)-1])
			want := "notice"
			if rep.Conclusion == verify.Failure {
				want = "error"
			}
			if name != want || len(props) != 0 || !strings.HasPrefix(msg, "taskproof verify: "+rep.Conclusion) {
				t.Errorf("conclusion line = %q, want ::%s:: with %s", lines[len(lines)-1], want, rep.Conclusion)
			}
		})
	}
}

func TestCIGitHubConclusionCounts(t *testing.T) {
	tests := []struct {
		rep  *verify.Report
		want string
	}{
		{ciBranchReport(), "taskproof verify: failure — 5 of 6 ticks failing (evidenced 1, stale 1, unverifiable 3, edited 1)"},
		{ciObjectsReport(), "taskproof verify: failure — 4 of 5 objects failing (ok 1, missing 1, mismatch 1, unsigned 1, malformed 1)"},
		{ciNeutralReport(), "taskproof verify: neutral — nothing to check"},
		{ciSuccessReport(), "taskproof verify: success — 0 of 1 ticks failing (evidenced 1)"},
	}
	for _, tt := range tests {
		items, err := ciItems(tt.rep, ciOpts)
		if err != nil {
			t.Fatal(err)
		}
		if got := conclusionLine(tt.rep, items); got != tt.want {
			t.Errorf("conclusionLine = %q, want %q", got, tt.want)
		}
	}
}

func TestCIMarkdownCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"001-greeting/T004", "001-greeting/T004"},
		{"a|b", `a\|b`},
		{"<img src=x onerror=alert(1)>", `\<img src=x onerror=alert\(1\)\>`},
		{"[link](http://x)", `\[link\]\(http://x\)`},
		{"line\nbreak\r", "line break "},
		{"`code` *em* _u_ ~s~ &amp; $x$", "\\`code\\` \\*em\\* \\_u\\_ \\~s\\~ \\&amp; \\$x\\$"},
		{`back\slash`, `back\\slash`},
	}
	for _, tt := range tests {
		if got := mdCell(tt.in); got != tt.want {
			t.Errorf("mdCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCIGitHubSummaryTable checks the summary's table: a header, a delimiter,
// and one row of six cells per item, whatever the cells hold, the signer cell
// naming the item's credited signers.
func TestCIGitHubSummaryTable(t *testing.T) {
	for _, c := range ciReports {
		t.Run(c.name, func(t *testing.T) {
			rep := c.rep()
			var b bytes.Buffer
			if err := WriteGitHubSummary(&b, rep, c.opts); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.HasPrefix(out, "## ") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "taskproof verify: "+rep.Conclusion) {
				t.Errorf("heading does not give the conclusion: %q", strings.SplitN(out, "\n", 2)[0])
			}
			items, _ := ciItems(rep, c.opts)
			var rows []string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "| ") {
					rows = append(rows, l)
				}
			}
			if len(items) == 0 {
				if len(rows) != 0 {
					t.Errorf("a table for nothing: %q", rows)
				}
				return
			}
			if len(rows) != len(items)+2 || rows[0] != "| status | task | commit | file:line | signer | reason |" {
				t.Fatalf("table rows %q, want header, delimiter and %d rows", rows, len(items))
			}
			for i, row := range rows[2:] {
				// Cells are separated by unescaped pipes only.
				cells := 0
				for j := 0; j < len(row); j++ {
					if row[j] == '\\' {
						j++
						continue
					}
					if row[j] == '|' {
						cells++
					}
				}
				if cells != 7 {
					t.Errorf("row %d has %d unescaped pipes, want 7: %q", i, cells, row)
				}
				if ss := items[i].signers; len(ss) > 0 && !strings.Contains(row, "| "+mdCell(signersText(ss))+" |") {
					t.Errorf("row %d %q does not name its signers %+v", i, row, ss)
				}
				if it := items[i]; !strings.Contains(row, mdCell(it.taskText())) || !strings.Contains(row, printable.Short(string(it.commit))) {
					t.Errorf("row %d %q does not name %s at %s", i, row, it.task, it.commit)
				}
			}
		})
	}
}

// FuzzCIReportText puts arbitrary repository text (a tasks path, a task ID, a
// message, a reason) into a failing tick and checks no format can be broken by
// it: the github output stays one command per line (nothing injected), the
// summary table keeps six cells per row, SARIF stays JSON and JUnit stays
// well-formed XML.
func FuzzCIReportText(f *testing.F) {
	f.Add("specs/001-greeting/tasks.md", "T004", "plain", "line_hash")
	f.Add("specs/a,b:c/tasks.md", "T1\n::error::x", "50%\r\n::warning::injected", "a|b")
	f.Add("specs/<b>/tasks.md", "]]>", "\x00\x07\uFFFE", "`code`\\|")
	f.Fuzz(func(t *testing.T, path, taskID, message, code string) {
		rep := ciBranchReport()
		tk := &rep.Ticks[2]
		tk.Path, tk.TaskID, tk.Task, tk.Message = path, taskID, "001-greeting/"+taskID, message
		tk.Reasons = []verify.Reason{{Code: code, Field: message, Expected: path, Found: taskID}}
		// A signer's principal and certificate identity are text too.
		tlog := int64(7)
		tk.Signers = []trust.Signer{{Kind: signer.KindSSH, KeyID: "SHA256:abc", Principal: message},
			{Kind: signer.KindSigstore, KeyID: taskID, Identity: taskID, Issuer: path, TlogIndex: &tlog}}

		var b bytes.Buffer
		if err := WriteGitHub(&b, rep, ciOpts); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 6 { // five failing ticks and the conclusion
			t.Fatalf("%d lines, want 6:\n%s", len(lines), b.String())
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::error::") {
				t.Fatalf("line is not an error command: %q", l)
			}
			if strings.ContainsAny(l, "\r") {
				t.Fatalf("raw CR in %q", l)
			}
		}
		// The annotation's properties hold no raw ':' or ',' inside a value.
		head := lines[1][len("::error "):]
		head = head[:strings.Index(head, "::")]
		if n := strings.Count(head, ","); n != 2 {
			t.Fatalf("properties %q: %d commas, want 2", head, n)
		}

		b.Reset()
		if err := WriteGitHubSummary(&b, rep, ciOpts); err != nil {
			t.Fatal(err)
		}
		for _, row := range strings.Split(b.String(), "\n") {
			if !strings.HasPrefix(row, "| ") {
				continue
			}
			pipes := 0
			for j := 0; j < len(row); j++ {
				if row[j] == '\\' {
					j++
					continue
				}
				if row[j] == '|' {
					pipes++
				}
			}
			if pipes != 7 {
				t.Fatalf("row %q has %d unescaped pipes", row, pipes)
			}
		}

		b.Reset()
		if err := WriteSARIF(&b, rep, ciOpts); err != nil {
			t.Fatal(err)
		}
		var doc sarifDoc
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("SARIF is not JSON: %v", err)
		}

		b.Reset()
		if err := WriteJUnit(&b, rep, ciOpts); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&b)
		dec.Strict = true
		var jd junitDoc
		if err := dec.Decode(&jd); err != nil {
			t.Fatalf("JUnit is not well-formed: %v\n%s", err, b.String())
		}
	})
}
