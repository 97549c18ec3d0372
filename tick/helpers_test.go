package tick

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

// newRepo makes a git repository in a temporary directory with the real git.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	return dir
}

// commitFiles writes files (path → content; "" content deletes) and commits them,
// returning the new commit id.
func commitFiles(t *testing.T, dir, msg string, files map[string]string) gitref.Hash {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if c == "" {
			testenv.Git(t, dir, "rm", "-q", p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		testenv.Git(t, dir, "add", p)
	}
	testenv.Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitref.Hash(strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD")))
}

func open(t *testing.T, dir string) *gitref.Repo {
	t.Helper()
	r, err := gitref.Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
