package main

import (
	"os"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestVerifyAmbiguousBaseRef: a tag (or refs/<name> ref) pushed with the base
// branch's name must not stand in for the base and for the trust read from it:
// git would take the tag first. The gate refuses the ambiguous name (exit 4,
// naming the refs); named in full, the base's own trust is read and the
// attacker's key is untrusted (exit 1).
func TestVerifyAmbiguousBaseRef(t *testing.T) {
	bin := os.Getenv("TASKPROOF_BIN")
	dir := t.TempDir()
	ada, _ := sshKeyFile(t, "")
	eve, _ := sshKeyFile(t, "")
	pub := func(key string) string {
		b, err := os.ReadFile(key + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	trust := "ada@example.com namespaces=\"in-toto\" " + pub(ada) + "\n"
	writeCommit(t, dir, "plan", map[string]string{
		"specs/001-x/tasks.md":    "# Tasks\n\n- [ ] T001 a\n- [ ] T002 b\n",
		".github/allowed_signers": trust,
	})
	testenv.Git(t, dir, "checkout", "-q", "-b", "feature")
	writeCommit(t, dir, "add eve", map[string]string{".github/allowed_signers": trust + "eve@example.com namespaces=\"in-toto\" " + pub(eve) + "\n"})
	testenv.Git(t, dir, "tag", "main")
	writeCommit(t, dir, "tick", map[string]string{"specs/001-x/tasks.md": "# Tasks\n\n- [ ] T001 a\n- [x] T002 b\n"})
	if _, stderr, code := runTaskproof(t, bin, "-C", dir, "attest", "tick", "--signer", "ssh", "--key", eve, "--verdict", "regression_only", "--regression-reason", "planning_work"); code != 0 {
		t.Fatalf("attest: exit %d\n%s", code, stderr)
	}
	_, stderr, code := runTaskproof(t, bin, "-C", dir, "verify", "--branch", "--base", "main", "--allowed-signers-rev", "main:.github/allowed_signers")
	if code != ExitGit || !strings.Contains(stderr, "ambiguous") || !strings.Contains(stderr, "refs/tags/main") || !strings.Contains(stderr, "refs/heads/main") {
		t.Errorf("ambiguous base: exit %d, want 4 naming both refs:\n%s", code, stderr)
	}
	stdout, stderr, code := runTaskproof(t, bin, "-C", dir, "verify", "--branch", "--base", "refs/heads/main", "--allowed-signers-rev", "refs/heads/main:.github/allowed_signers")
	if code != ExitFailure || !strings.Contains(stdout, "untrusted_signer") {
		t.Errorf("named in full: exit %d, want 1 with eve untrusted:\n%s%s", code, stdout, stderr)
	}
}
