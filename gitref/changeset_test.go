package gitref

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestFileChanges: the real git's patch of two commits is split into its
// files under their own names — spaces, a tab, a quote, non-ASCII and a
// deleted, a binary and a mode-changed file — ChangedPaths with deleted lists the same paths,
// and the same change made on another base has the same identities.
func TestFileChanges(t *testing.T) {
	dir := testenv.NewRepo(t)
	names := []string{"a b.go", "tab\there.txt", `quo"te.txt`, "é/ü.txt", "gone.txt", "bin.dat", "run.sh", "near.txt"}
	base := map[string]string{}
	for _, n := range names {
		base[n] = "line one\nline two\n"
	}
	c0 := testenv.CommitFiles(t, dir, "base", base)
	change := func() map[string]string {
		return map[string]string{"a b.go": "line one\nline 2\n", "tab\there.txt": "line one\n", `quo"te.txt`: "new\nline one\nline two\n",
			"é/ü.txt": "line one\nline two\nthree\n", "gone.txt": "", "bin.dat": "\x00\x01binary\n", "near.txt": "line one\nline two\nmore\n"}
	}
	c1 := testenv.CommitFiles(t, dir, "change", change())
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, dir, "commit", "-q", "-am", "mode")
	c2 := strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD"))
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.FileChanges(Hash(c0), Hash(c2))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := append([]string{}, names...)
	sort.Strings(want)
	if strings.Join(keys, "|") != strings.Join(want, "|") {
		t.Fatalf("files %q, want %q", keys, want)
	}
	paths, err := r.ChangedPaths(Hash(c0), Hash(c2), true)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(paths, "|") != strings.Join(want, "|") {
		t.Errorf("tree paths %q, want %q", paths, want)
	}

	// The same change on a base that changed other lines (near.txt's first
	// line): the same identities; another binary content differs.
	testenv.Git(t, dir, "switch", "-q", "-c", "other", c0)
	o0 := testenv.CommitFiles(t, dir, "other base", map[string]string{"near.txt": "LINE ONE\nline two\n"})
	ch := change()
	ch["near.txt"] = "LINE ONE\nline two\nmore\n"
	o1 := testenv.CommitFiles(t, dir, "change", ch)
	again, err := r.FileChanges(Hash(o0), Hash(o1))
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.FileChanges(Hash(c0), Hash(c1))
	if err != nil {
		t.Fatal(err)
	}
	for p, id := range first {
		if again[p] != id {
			t.Errorf("%q: the same change on another base reads otherwise", p)
		}
	}
	ch["bin.dat"] = "\x00\x02binary\n"
	o2 := testenv.CommitFiles(t, dir, "other binary", map[string]string{"bin.dat": ch["bin.dat"]})
	if third, err := r.FileChanges(Hash(o0), Hash(o2)); err != nil {
		t.Fatal(err)
	} else if third["bin.dat"] == first["bin.dat"] {
		t.Error("two binary contents read as the same change")
	}
}
