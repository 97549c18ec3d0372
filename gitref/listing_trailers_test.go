package gitref

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/taskproof/taskproof/trailer"
)

// listingMessages are commit messages of which some carry a Spec-Task
// trailer block and some do not (the trailer package's tests hold the rules).
var listingMessages = []string{
	"tick T001\n\nSpec-Task: 001-greet/T001\nVerdict: verified\n",
	"tick T001\n\nbody text\n\nSpec-Task: 001-greet/T001\nVerdict: verified",
	"Spec-Task: 001-greet/T001\n",                                  // the title is never trailers
	"tick\n\nSpec-Task: a/T1\nnot a trailer\n",                     // a block with a non-trailer line
	"tick\n\nSpec-Task: a/T1\nSigned-off-by: A <a@b>\nfree text\n", // git's own trailer: a quarter suffices
	"tick\n\nSpec-Task : a/T1\n",
	"tick\n\nspec-task: a/T1\r\nVERDICT: attested\r\n",
	"tick\n\nSpec Task: a/T1\n",
	"tick\n\nSpec-Task: a/bug:crash-on-empty\nVerdict: verified\n",
	"",
}

// TestListingTrailers: each listed commit's trailers are its message's as
// trailer.Parse reads it, whatever the key's case: commits made by the real
// git with each message kept verbatim.
func TestListingTrailers(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "start", map[string]string{"a": "a"})
	msgFile := filepath.Join(t.TempDir(), "msg")
	for _, m := range listingMessages {
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
	if l.Len() != len(listingMessages)+1 {
		t.Fatalf("listed %d commits, want %d", l.Len(), len(listingMessages)+1)
	}
	with := 0
	for i, m := range listingMessages {
		got := l.Trailers(i + 1)
		if want := trailer.Parse(m); !slices.Equal(got, want) {
			t.Errorf("commit %d (%q): trailers %v, want %v", i, m, got, want)
		}
		if len(trailer.Values(got, "spec-task")) > 0 {
			with++
		}
	}
	if with < 5 || with == len(listingMessages) {
		t.Fatalf("%d of %d messages carry a Spec-Task trailer: the fixture no longer tells the two apart", with, len(listingMessages))
	}
}
