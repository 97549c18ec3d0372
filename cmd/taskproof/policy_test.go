package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestPolicyCommands: policy default/lint, verify --policy and --policy-rev
// end to end with the real binary: exit 0 without a policy, 1 when a policy
// rule fails a tick, 3 when the policy does not load; policy explain lists
// every rule's result.
func TestPolicyCommands(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "checkout", "-q", "-b", "feature")
	c := w.tick(a, "T001")
	w.attest(a, c) // regression_only, planning_work

	out, _ := w.run(a, 0, "policy", "default")
	if !strings.Contains(out, "version = 1") {
		t.Errorf("policy default:\n%s", out)
	}
	deny := filepath.Join(w.dir, "deny.toml")
	if err := os.WriteFile(deny, []byte("version = 1\n[regression_only]\ndenied_reasons = [\"planning_work\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(w.dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.verdikt == 'x'\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ = w.run(a, 0, "policy", "lint", deny); !strings.Contains(out, "regression_only.reason") {
		t.Errorf("lint:\n%s", out)
	}
	if _, errOut := w.run(a, 3, "policy", "lint", bad); !strings.Contains(errOut, "undefined field 'verdikt'") {
		t.Errorf("lint bad:\n%s", errOut)
	}

	base := []string{"verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers}
	w.run(a, 0, base...)
	out, _ = w.run(a, 1, append(base, "--policy", deny, "--format", "json")...)
	if !strings.Contains(out, `"rule": "regression_only.reason"`) || !strings.Contains(out, `"status": "rejected"`) {
		t.Errorf("verify --policy json:\n%s", out)
	}
	out, _ = w.run(a, 1, append(base, "--policy", deny, "--format", "sarif")...)
	if !strings.Contains(out, `"ruleId": "policy/regression_only.reason"`) {
		t.Errorf("verify --policy sarif:\n%s", out)
	}
	w.run(a, 3, append(base, "--policy", bad)...)
	w.run(a, 3, append(base, "--policy", filepath.Join(w.dir, "none.toml"))...)
	w.run(a, 3, append(base, "--policy", deny, "--policy-rev", "main:p.toml")...)

	// --policy-rev reads the policy from main, not from the head.
	testenv.Git(t, a, "checkout", "-q", "main")
	if err := os.WriteFile(filepath.Join(a, "policy.toml"), []byte("version = 1\n[regression_only]\ndenied_reasons = [\"planning_work\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "add", "policy.toml")
	testenv.Git(t, a, "commit", "-q", "-m", "policy")
	testenv.Git(t, a, "checkout", "-q", "feature")
	w.run(a, 1, append(base, "--policy-rev", "main:policy.toml")...)
	w.run(a, 3, append(base, "--policy-rev", "feature:policy.toml")...) // not on the head's side

	out, _ = w.run(a, 0, "policy", "explain", c, "--policy", deny, "--allowed-signers", w.signers)
	if !strings.Contains(out, "violated") || !strings.Contains(out, "regression_only.reason") {
		t.Errorf("explain:\n%s", out)
	}
}

// TestGateInputsInWorkTree: a trust or policy file given to verify by a path
// inside the work tree that HEAD holds is the head's own copy (a pull request
// adds its author's key to .github/allowed_signers, or allows born-ticked
// tasks): the gate refuses it (exit 3), through a symbolic link from outside
// too, and names the file; the base branch's copy (REV:PATH), or one the head
// does not hold, is read.
func TestGateInputsInWorkTree(t *testing.T) {
	const path = "specs/001-face/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	signers, err := os.ReadFile(r.allowed)
	if err != nil {
		t.Fatal(err)
	}
	r.commit(t, "trust and policy in the project", map[string]string{".github/allowed_signers": string(signers), ".taskproof/policy.toml": "version = 1\n"})
	r.git(t, "branch", "-f", "main")
	r.attest(t, r.tick(t, []string{path}, "T001"))
	inTree := filepath.Join(r.dir, ".github", "allowed_signers")
	link := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.Symlink(inTree, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--allowed-signers", inTree},
		{"--allowed-signers", ".github/allowed_signers"},
		{"--allowed-signers", link},
		{"--allowed-signers", r.allowed, "--policy", ".taskproof/policy.toml"},
		{"--allowed-signers", r.allowed, "--key", filepath.Join(r.dir, path)},
	} {
		out, errOut := r.run(t, 3, append([]string{"verify", "--branch", "--base", "main"}, args...)...)
		if !strings.Contains(errOut, "a file of the work tree being verified") {
			t.Errorf("verify %v: want the file refused as the head's:\n%s\n%s", args, out, errOut)
		}
	}
	// A file the head does not hold, in the work tree (the base branch's copy
	// checked out into a subdirectory by CI, untracked), is the verifier's.
	base := filepath.Join(r.dir, "base-checkout")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "allowed_signers"), signers, 0o644); err != nil {
		t.Fatal(err)
	}
	r.run(t, 0, "verify", "--branch", "--base", "main", "--allowed-signers", filepath.Join(base, "allowed_signers"))
	// Under a submodule HEAD pins (a gitlink in its tree, the submodule's
	// files checked out), the file is the head's choice: refused.
	sub := filepath.Join(r.dir, "trust")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "allowed_signers"), signers, 0o644); err != nil {
		t.Fatal(err)
	}
	r.git(t, "update-index", "--add", "--cacheinfo", "160000,"+r.git(t, "rev-parse", "HEAD")+",trust")
	r.git(t, "commit", "-qm", "trust as a submodule")
	_, errOut := r.run(t, 3, "verify", "--branch", "--base", "main", "--allowed-signers", filepath.Join(sub, "allowed_signers"))
	if !strings.Contains(errOut, "a file of the work tree being verified") {
		t.Errorf("verify with a submodule's file: want it refused:\n%s", errOut)
	}
	r.run(t, 0, "verify", "--branch", "--base", "main", "--allowed-signers-rev", "main:.github/allowed_signers", "--policy-rev", "main:.taskproof/policy.toml")
	r.run(t, 0, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
}
