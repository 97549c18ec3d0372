package tick

import (
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

// newRepo makes a git repository in a temporary directory with the real git.
func newRepo(t *testing.T) string {
	t.Helper()
	return testenv.NewRepo(t)
}

// commitFiles writes files (path → content; "" content deletes) and commits them,
// returning the new commit id.
func commitFiles(t *testing.T, dir, msg string, files map[string]string) gitref.Hash {
	t.Helper()
	return gitref.Hash(testenv.CommitFiles(t, dir, msg, files))
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
