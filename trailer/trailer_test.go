package trailer

import (
	"os/exec"
	"strings"
	"testing"
)

var trailerMessages = []string{
	"tick T001\n\nSpec-Task: 001-greet/T001\nVerdict: verified\n",
	"tick T001\n\nbody text\n\nSpec-Task: 001-greet/T001\nVerdict: verified",
	"Spec-Task: 001-greet/T001\n",                                  // the title is never trailers
	"tick\n\nSpec-Task: a/T1\nnot a trailer\n",                     // a block with a non-trailer line
	"tick\n\nSpec-Task: a/T1\nSigned-off-by: A <a@b>\nfree text\n", // git's own trailer: a quarter suffices
	"tick\n\nSpec-Task:   a/T1  \nRegression-Only: planning_work\n  key=value more\n",
	"tick\n\nSpec-Task : a/T1\n",
	"tick\n\nspec-task: a/T1\r\nVERDICT: attested\r\n",
	"tick\n\nSpec-Task: a/T1\n# a comment\nVerdict: skipped\n\n# trailing comment\n",
	"tick\n\nSpec-Task: a/T1\n---\n diff --git a b\n",
	"tick\n\nSpec-Task: a/T1\n\n\n",
	"tick\n\nSpec-Task: a/T1\n# c\n# ------------------------ >8 ------------------------\ndiff\n\nX: y\n",
	"tick\n\nSpec Task: a/T1\n",
	"tick\n\n  Spec-Task: a/T1\n",
	"tick\n\nSpec-Task: a/bug:crash-on-empty\nVerdict: verified\n",
	"",
	"tick",
	"tick\n\n",
}

// TestParseAgainstGit compares Parse with the real `git
// interpret-trailers --parse` on messages that exercise each rule.
func TestParseAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	for _, msg := range trailerMessages {
		cmd := exec.Command("git", "-c", "trailer.separators=:", "interpret-trailers", "--parse")
		cmd.Stdin = strings.NewReader(msg)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git interpret-trailers: %v", err)
		}
		var got strings.Builder
		for _, tr := range Parse(msg) {
			got.WriteString(tr.Key + ": " + tr.Value + "\n")
		}
		if got.String() != strings.ReplaceAll(string(out), "\r", "") {
			t.Errorf("message %q:\n Parse %q\n git           %q", msg, got.String(), out)
		}
	}
	if v := Values(Parse(trailerMessages[7]), "Spec-Task"); len(v) != 1 || v[0] != "a/T1" {
		t.Errorf("Values = %q", v)
	}
}

func FuzzParse(f *testing.F) {
	for _, m := range trailerMessages {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		for _, tr := range Parse(msg) {
			if tr.Key == "" || strings.ContainsAny(tr.Key, ": \t\n") || strings.Contains(tr.Value, "\n") {
				t.Fatalf("trailer %q from %q", tr, msg)
			}
		}
	})
}
