package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestVerifyObjectHintNamesTicks runs the real binary's `verify REV` on
// commits without a note: for a tick commit the fix names the tasks it ticks
// (and the attest command it gives works), for a commit that ticks no task it
// says there is nothing to attest.
func TestVerifyObjectHintNamesTicks(t *testing.T) {
	r := newCLIRepo(t)
	testenv.Git(t, r.dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "unrelated", r.c0)
	key, _ := sshKeyFile(t, "")
	line, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(signers, append([]byte("dev@example.com "), line...), 0o644); err != nil {
		t.Fatal(err)
	}
	hint := func(rev string) string {
		t.Helper()
		stdout, stderr, code := r.taskproof(t, nil, "verify", rev, "--allowed-signers", signers, "--format", "json")
		if code != 1 {
			t.Fatalf("verify %s: exit %d, want 1\n%s", rev, code, stderr)
		}
		var rep struct {
			Objects []struct{ Outcome, Hint string }
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Objects) != 1 || rep.Objects[0].Outcome != "missing" {
			t.Fatalf("verify %s: want one missing object, got %v\n%s", rev, err, stdout)
		}
		return rep.Objects[0].Hint
	}

	h := hint(r.c1)
	if strings.Contains(h, "(none)") || !strings.Contains(h, "--task T001 --task T002") {
		t.Errorf("the fix for a commit ticking T001 and T002 does not name them: %s", h)
	}
	// The attest command the fix gives runs.
	if _, stderr, code := r.taskproof(t, nil, "attest", "tick", "--commit", r.c1, "--task", "T001", "--task", "T002",
		"--verdict", "regression_only", "--regression-reason", "planning_work", "--unsigned"); code != 0 {
		t.Fatalf("the fix's attest tick: exit %d\n%s", code, stderr)
	}

	h = hint(r.c2)
	if strings.Contains(h, "attest tick") || !strings.Contains(h, "ticks no task") {
		t.Errorf("the fix for a commit that ticks no task: %s", h)
	}
}
