package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestAttestTickSafely: a bare `attest tick` names the verdicts instead of
// claiming verified; attesting a task whose statements the note already holds
// is refused, naming them (verdict, signer), unless --force; a tick made in
// the work tree but not committed is named.
func TestAttestTickSafely(t *testing.T) {
	r := newCLIRepo(t)
	key, fp := sshKeyFile(t, "")
	_, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--task", "T001")
	if code != 2 || !strings.Contains(stderr, "needs --verdict") || !strings.Contains(stderr, "verified") || !strings.Contains(stderr, "regression_only") {
		t.Fatalf("no --verdict: exit %d, stderr %q; want exit 2 listing the verdicts", code, stderr)
	}
	if r.note(t, r.c1) != "" {
		t.Fatal("a refused attest tick wrote a note")
	}

	first := []string{"attest", "tick", "--commit", r.c1, "--task", "T001", "--verdict", "regression_only",
		"--regression-reason", "planning_work", "--signer", "ssh", "--key", key}
	if _, stderr, code := r.taskproof(t, nil, first...); code != 0 {
		t.Fatalf("first attest: exit %d: %s", code, stderr)
	}
	before := r.note(t, r.c1)
	_, stderr, code = r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--task", "T001", "--verdict", "verified", "--signer", "ssh", "--key", key)
	for _, want := range []string{"already holds statements for 001-cli/T001", "verdict regression_only", "signed by ", "--force"} {
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("second attest: exit %d, stderr %q; want exit 2 mentioning %q", code, stderr, want)
		}
	}
	if !strings.Contains(stderr, "signed by "+fp) {
		t.Errorf("the refusal does not name the signer %s: %s", fp, stderr)
	}
	if r.note(t, r.c1) != before {
		t.Fatal("a refused attest tick changed the note")
	}
	// Another task of the same commit is not refused.
	if _, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--task", "T002", "--verdict", "verified", "--signer", "ssh", "--key", key); code != 0 {
		t.Fatalf("other task: exit %d: %s", code, stderr)
	}
	mid := r.note(t, r.c1)
	if _, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--task", "T001", "--verdict", "verified", "--force", "--signer", "ssh", "--key", key); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if after := r.note(t, r.c1); after == mid || strings.Count(after, "\n") != strings.Count(mid, "\n") || strings.Contains(after, strings.SplitN(before, "\n", 2)[0]) {
		t.Errorf("--force: T001's statements not replaced (T002's kept):\nbefore\n%s\nafter\n%s", mid, after)
	}

	// A tick in the work tree, not committed.
	p := filepath.Join(r.dir, "specs/001-cli/tasks.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), "- [ ] T004", "- [x] T004", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, r.dir, "commit", "-q", "--allow-empty", "-m", "nothing ticked")
	_, stderr, code = r.taskproof(t, nil, "attest", "tick", "--verdict", "verified", "--signer", "ssh", "--key", key)
	if code != 2 || !strings.Contains(stderr, "not committed") || !strings.Contains(stderr, "specs/001-cli/tasks.md:") || !strings.Contains(stderr, "T004") {
		t.Errorf("uncommitted tick: exit %d, stderr %q; want exit 2 naming the work tree's tick", code, stderr)
	}
}
