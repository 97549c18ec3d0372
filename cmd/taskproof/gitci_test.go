package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// runFull runs the taskproof binary in the repository and returns its stdout,
// stderr and exit code.
func (r *ciRepo) runFull(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(r.bin, append([]string{"-C", r.dir}, args...)...)
	for _, kv := range testenv.GitEnv() {
		if !strings.HasPrefix(kv, "GITHUB_STEP_SUMMARY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// gitIn runs the real git in dir with stdin and returns its trimmed stdout.
func gitIn(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command(testenv.LookPath(t, "git"), args...)
	cmd.Dir, cmd.Env = dir, testenv.GitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("git %v: %v\n%s", args, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// TestVerifyNoteBomb: a note whose blob inflates to 64 MiB (a loose object of
// a few KiB, as `git hash-object -w` or a fetch leaves it) on a tick of the
// range, and another on a commit outside it, are refused as note_malformed
// (over the 4 MiB note limit); the attested tick beside them is evidenced.
func TestVerifyNoteBomb(t *testing.T) {
	r := newCIRepo(t)
	bomb := gitIn(t, r.dir, make([]byte, 64<<20), "hash-object", "-w", "--stdin")
	testenv.Git(t, r.dir, "notes", "--ref", "speccoder", "add", "-f", "-C", bomb, r.t004)
	testenv.Git(t, r.dir, "notes", "--ref", "speccoder", "add", "-f", "-C", bomb, "main")

	out, stderr, code := r.runFull(t, nil, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "json")
	if code != 1 {
		t.Fatalf("verify --branch: exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{`"note_malformed"`, "over the limit of 4194304", r.t004, `"evidenced"`, r.t001} {
		if !strings.Contains(out, want) {
			t.Errorf("verify --branch report lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code = r.runFull(t, nil, "verify", "--allowed-signers", r.allowed, r.t004)
	if code != 1 || !strings.Contains(out, "malformed") || !strings.Contains(out, "over the limit") {
		t.Fatalf("verify %s: exit %d, want 1 and a malformed note over the limit\n%s\n%s", r.t004, code, out, stderr)
	}
}
