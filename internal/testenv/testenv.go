// Package testenv finds what taskproof's tests need outside the module: the shared
// corpora (the directory shared beside the repository) and the real git, ssh-keygen and gpg.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RepoRoot is the directory holding taskproof's go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testenv: cannot locate source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir returns the directory shared beside the repository (or $TASKPROOF_SHARED), and skips
// the test with a clear message when it is absent.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("TASKPROOF_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "corpora")); err != nil {
		t.Skipf("shared corpora not found at %s (set TASKPROOF_SHARED): %v", dir, err)
	}
	return dir
}

// Bundle returns the path of corpora/<name>.bundle in [SharedDir], skipping when absent.
func Bundle(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(SharedDir(t), "corpora", name+".bundle")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus bundle %s not found: %v", p, err)
	}
	return p
}

// CloneBundle clones corpus bundle name into a fresh temporary directory with the real
// git and returns the clone's path.
func CloneBundle(t testing.TB, name string) string {
	t.Helper()
	src := Bundle(t, name)
	dst := filepath.Join(t.TempDir(), name)
	Git(t, "", "clone", "-q", src, dst)
	return dst
}

// LookPath returns the path of the real program name, failing the test when it is
// missing: .ci/run installs git, ssh-keygen and gpg, so a missing one is a broken
// environment, not a reason to skip.
func LookPath(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found on PATH (.ci/run installs it): %v", name, err)
	}
	return p
}

// Git runs the real git in dir with a fixed identity and no user or system config,
// and returns its standard output. It fails the test on a non-zero exit.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(LookPath(t, "git"), args...)
	cmd.Dir = dir
	cmd.Env = GitEnv()
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, stderr)
	}
	return string(out)
}

// GitEnv is the environment tests run git (and the taskproof binary) with: the
// caller's environment without user or system git config, and a fixed identity.
func GitEnv() []string {
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GITHUB_BASE_REF=", // the default base follows it in a pull request run: not the tests' own CI
		"GITHUB_ACTIONS=",  // signing checks the event of a GitHub Actions run: not the tests' own CI
		"GITHUB_EVENT_NAME=", "GITHUB_EVENT_PATH=",
		"ACTIONS_ID_TOKEN_REQUEST_URL=", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Test Author", "GIT_AUTHOR_EMAIL=author@example.invalid",
		"GIT_COMMITTER_NAME=Test Author", "GIT_COMMITTER_EMAIL=author@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
	)
}

// Binary returns the taskproof binary the Makefile built ($TASKPROOF_BIN), building
// one into a temporary directory when it is unset.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TASKPROOF_BIN"); p != "" {
		return p
	}
	out := filepath.Join(t.TempDir(), "taskproof")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/taskproof")
	cmd.Dir = RepoRoot(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building taskproof: %v\n%s", err, b)
	}
	return out
}

// Run runs the real program name with stdin (nil: none) and the caller's
// environment plus env, and returns its combined output; it fails the test on a
// non-zero exit.
func Run(t testing.TB, stdin []byte, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(LookPath(t, name), args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// NewRepo makes a git repository (branch main) in a temporary directory with
// the real git and returns its directory.
func NewRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "-q", "-b", "main")
	return dir
}

// CommitFiles writes files in the repository at dir (path → content; ""
// content deletes the file) and commits them with the real git, returning the
// new commit's id.
func CommitFiles(t testing.TB, dir, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if c == "" {
			Git(t, dir, "rm", "-q", p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		Git(t, dir, "add", p)
	}
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return strings.TrimSpace(Git(t, dir, "rev-parse", "HEAD"))
}

// PackedRepo makes a repository whose objects are all in one pack written by
// the real git (with deltas: each of commits commits changes a line of a long
// file) and returns its directory, the pack index's path and the pack's
// checksum (hex).
func PackedRepo(t testing.TB, commits int) (dir, idxPath, sum string) {
	t.Helper()
	dir = NewRepo(t)
	var body strings.Builder
	for i := range 400 {
		fmt.Fprintf(&body, "line %d of a file long enough to be stored as a delta\n", i)
	}
	text := body.String()
	for i := range commits {
		text = strings.Replace(text, fmt.Sprintf("line %d ", i), fmt.Sprintf("LINE %d ", i), 1)
		CommitFiles(t, dir, fmt.Sprintf("c%d", i), map[string]string{"f.txt": text, fmt.Sprintf("d/%d", i%7): fmt.Sprint(i)})
	}
	Git(t, dir, "repack", "-adq", "--depth=10")
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d pack indexes after repack", len(idxs))
	}
	return dir, idxs[0], strings.TrimSuffix(strings.TrimPrefix(filepath.Base(idxs[0]), "pack-"), ".idx")
}

// GPGHome makes an isolated, empty GNUPGHOME for the real gpg, skipping the
// test with a clear message where gpg is not installed, and removes it (and
// stops the gpg-agent it started) when the test ends. Its path is short:
// gpg-agent's socket path is limited.
func GPGHome(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("gpg not installed (.ci/run installs gnupg): the OpenPGP checks against gpg skip")
	}
	home, err := os.MkdirTemp("", "gpg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("gpgconf", "--homedir", home, "--kill", "all").Run()
		os.RemoveAll(home)
	})
	return home
}
