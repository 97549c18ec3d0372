package gitref

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestParseTrailersAgainstGit compares ParseTrailers with the real `git
// interpret-trailers --parse` on messages that exercise each rule.
func TestParseTrailersAgainstGit(t *testing.T) {
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
		for _, tr := range ParseTrailers(msg) {
			got.WriteString(tr.Key + ": " + tr.Value + "\n")
		}
		if got.String() != strings.ReplaceAll(string(out), "\r", "") {
			t.Errorf("message %q:\n ParseTrailers %q\n git           %q", msg, got.String(), out)
		}
	}
	if v := TrailerValues(ParseTrailers(trailerMessages[7]), "Spec-Task"); len(v) != 1 || v[0] != "a/T1" {
		t.Errorf("TrailerValues = %q", v)
	}
}

func FuzzParseTrailers(f *testing.F) {
	for _, m := range trailerMessages {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		for _, tr := range ParseTrailers(msg) {
			if tr.Key == "" || strings.ContainsAny(tr.Key, ": \t\n") || strings.Contains(tr.Value, "\n") {
				t.Fatalf("trailer %q from %q", tr, msg)
			}
		}
	})
}

// TestWithTrailer keeps the listed commits whose trailers name the key, in
// the listing's order, whatever the key's case in the message, their
// trailers as ParseTrailers reads the message: commits made by the real git
// with each message kept verbatim.
func TestWithTrailer(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "start", map[string]string{"a": "a"})
	msgFile := filepath.Join(t.TempDir(), "msg")
	for _, m := range trailerMessages {
		if err := os.WriteFile(msgFile, []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
		gitOut(t, dir, "commit", "-q", "--allow-empty", "--allow-empty-message", "--cleanup=verbatim", "-F", msgFile)
	}
	r := open(t, dir)
	head, err := r.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	l, err := r.List("", head, false)
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != len(trailerMessages)+1 {
		t.Fatalf("listed %d commits, want %d", l.Len(), len(trailerMessages)+1)
	}
	got := l.WithTrailer("spec-task")
	var want []Hash
	for i, m := range trailerMessages {
		if len(TrailerValues(ParseTrailers(m), "Spec-Task")) > 0 {
			want = append(want, l.ID(i+1))
		}
	}
	if len(want) < 5 || len(want) == len(trailerMessages) {
		t.Fatalf("%d of %d messages carry the trailer: the fixture no longer tells kept from dropped", len(want), len(trailerMessages))
	}
	if len(got) != len(want) {
		t.Fatalf("WithTrailer kept %d commits, want %d", len(got), len(want))
	}
	for i := range got {
		c, err := r.Commit(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if got[i].ID != want[i] || !slices.Equal(got[i].Trailers, ParseTrailers(c.Message)) {
			t.Errorf("commit %d: got %s with trailers %v, want %s", i, got[i].ID, got[i].Trailers, want[i])
		}
	}
	if none := (&Listing{}).WithTrailer("Spec-Task"); none != nil {
		t.Errorf("an empty listing has no trailer commits: %v", none)
	}
}
