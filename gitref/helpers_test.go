package gitref

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// newRepo makes a git repository in a temporary directory with the real git.
func newRepo(t testing.TB) string {
	t.Helper()
	return testenv.NewRepo(t)
}

// commitFiles writes files (path → content; "" content deletes) and commits them,
// returning the new commit id.
func commitFiles(t testing.TB, dir, msg string, files map[string]string) Hash {
	t.Helper()
	return Hash(testenv.CommitFiles(t, dir, msg, files))
}

func open(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func gitOut(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testenv.Git(t, dir, args...))
}

// gitAt runs git in dir with author and committer dates set to when (git's
// date formats), returning its output.
func gitAt(t testing.TB, dir, when string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(testenv.GitEnv(), "GIT_AUTHOR_DATE="+when, "GIT_COMMITTER_DATE="+when)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
