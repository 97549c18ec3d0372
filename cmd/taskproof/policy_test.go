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
