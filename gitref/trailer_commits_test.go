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

// TestWithTrailer keeps the listed commits whose trailers name the key, in
// the listing's order, whatever the key's case in the message, their
// trailers as trailer.Parse reads the message: commits made by the real git
// with each message kept verbatim.
func TestWithTrailer(t *testing.T) {
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
	got := l.WithTrailer("spec-task")
	var want []Hash
	for i, m := range listingMessages {
		if len(trailer.Values(trailer.Parse(m), "Spec-Task")) > 0 {
			want = append(want, l.ID(i+1))
		}
	}
	if len(want) < 5 || len(want) == len(listingMessages) {
		t.Fatalf("%d of %d messages carry the trailer: the fixture no longer tells kept from dropped", len(want), len(listingMessages))
	}
	if len(got) != len(want) {
		t.Fatalf("WithTrailer kept %d commits, want %d", len(got), len(want))
	}
	for i := range got {
		c, err := r.Commit(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if got[i].ID != want[i] || !slices.Equal(got[i].Trailers, trailer.Parse(c.Message)) {
			t.Errorf("commit %d: got %s with trailers %v, want %s", i, got[i].ID, got[i].Trailers, want[i])
		}
	}
	if none := (&Listing{}).WithTrailer("Spec-Task"); none != nil {
		t.Errorf("an empty listing has no trailer commits: %v", none)
	}
}
