package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestActionScript runs the GitHub Action's script against a local bare remote,
// with a pre-built binary (no network, no go install).
func TestActionScript(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	w.attest(a, w.tick(a, "T001"))
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "action-verify.sh")

	run := func(dir string, env ...string) (int, string, string) {
		summary := filepath.Join(t.TempDir(), "summary.md")
		cmd := exec.Command("bash", script)
		cmd.Dir = dir
		cmd.Env = append(testenv.GitEnv(), append([]string{"TASKPROOF_BIN=" + w.bin,
			"TASKPROOF_ALLOWED_SIGNERS=" + w.signers, "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_BASE_REF=main"}, env...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		s, _ := os.ReadFile(summary)
		return code, out.String(), errb.String() + "\n--- summary:\n" + string(s)
	}

	// A checkout of the pushed branch, as actions/checkout makes it (no notes).
	ci := w.clone("ci")
	testenv.Git(t, ci, "switch", "-q", "feature")
	if code, out, errs := run(ci); code != 4 {
		t.Fatalf("before the notes are pushed: exit %d, want 4\n%s\n%s", code, out, errs)
	}
	w.run(a, 0, "notes", "push")
	code, out, errs := run(ci)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "taskproof") || !strings.Contains(errs+out, "T001") {
		t.Errorf("no report of T001:\n%s\n%s", out, errs)
	}
	// A tick without evidence fails the job.
	w.tick(ci, "T002")
	if code, out, errs := run(ci); code != 1 {
		t.Fatalf("unattested tick: exit %d, want 1\n%s\n%s", code, out, errs)
	}
}
