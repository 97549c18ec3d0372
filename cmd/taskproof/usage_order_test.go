package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestEmptyTrustFileSaysSo runs the real binary's verify with an allowed
// signers file that holds no keys: still exit 3, saying the file holds none
// rather than asking for the flag it was given.
func TestEmptyTrustFileSaysSo(t *testing.T) {
	r := newCLIRepo(t)
	testenv.Git(t, r.dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "unrelated", r.c0)
	empty := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(empty, []byte("# no keys yet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := r.taskproof(t, nil, "verify", r.c1, "--allowed-signers", empty)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, stderr)
	}
	if !strings.Contains(stderr, empty+" holds no keys") || strings.Contains(stderr, "pass --allowed-signers") || strings.Contains(stderr, "no trust input") {
		t.Errorf("stderr does not say the file holds no keys:\n%s", stderr)
	}
}

// TestBadVerdictBeforeKeys runs the real binary's attest decide and attest
// tick with a verdict they do not write and no signing key configured: the
// typo is exit 2, found before the missing key (exit 3).
func TestBadVerdictBeforeKeys(t *testing.T) {
	r := newCLIRepo(t)
	for _, args := range [][]string{
		{"attest", "decide", "--commit", r.c1, "--task", "T001", "--verdict", "maybe", "--by", "ada", "--reason", "checked"},
		{"attest", "tick", "--commit", r.c1, "--verdict", "maybe"},
	} {
		_, stderr, code := r.taskproof(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, `"maybe"`) {
			t.Errorf("%s: exit %d, want 2 naming the verdict\n%s", strings.Join(args[:2], " "), code, stderr)
		}
	}
}
