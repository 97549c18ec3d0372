package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// runScript runs one of the Action's scripts in dir with the test's git
// environment plus env, and returns its exit code and combined output.
func runScript(t *testing.T, script, dir string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(testenv.RepoRoot(t), "scripts", script))
	cmd.Dir = dir
	cmd.Env = append(testenv.GitEnv(), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// TestActionAttestScript runs the Action's attest mode against a local bare
// remote: it attests every tick commit of the push (base: the push's previous
// head), pushes the notes, and the verify mode then passes in a fresh
// checkout; a second run skips the commits already attested.
func TestActionAttestScript(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	before := strings.TrimSpace(testenv.Git(t, a, "rev-parse", "HEAD"))
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	c1 := w.tick(a, "T001")
	c2 := w.tick(a, "T002")
	testenv.Git(t, a, "push", "-q", "origin", "feature")

	ci := w.clone("ci")
	testenv.Git(t, ci, "switch", "-q", "feature")
	env := []string{"TASKPROOF_BIN=" + w.bin, "TASKPROOF_SIGNER=ssh", "TASKPROOF_SIGNING_KEY=" + w.key,
		"TASKPROOF_VERDICT=regression_only", "TASKPROOF_ARGS=--regression-reason planning_work", "TASKPROOF_PUSH_BEFORE=" + before}
	code, out := runScript(t, "action-attest.sh", ci, env...)
	if code != 0 {
		t.Fatalf("attest mode: exit %d\n%s", code, out)
	}
	for _, c := range []string{c1, c2} {
		if !strings.Contains(out, "attest tick --commit "+c) {
			t.Errorf("commit %s not attested:\n%s", c, out)
		}
	}
	if refs := testenv.Git(t, w.remote, "for-each-ref", "refs/notes/speccoder"); refs == "" {
		t.Fatalf("no notes pushed to the remote:\n%s", out)
	}

	// The gate in a fresh checkout, with the Action's verify mode.
	gate := w.clone("gate")
	testenv.Git(t, gate, "switch", "-q", "feature")
	if code, out := runScript(t, "action-verify.sh", gate, "TASKPROOF_BIN="+w.bin, "TASKPROOF_ALLOWED_SIGNERS="+w.signers, "GITHUB_BASE_REF=main"); code != 0 {
		t.Fatalf("verify mode after attest mode: exit %d\n%s", code, out)
	}

	// Run again (a re-run of the workflow): nothing new to attest.
	again := w.clone("again")
	testenv.Git(t, again, "switch", "-q", "feature")
	code, out = runScript(t, "action-attest.sh", again, env...)
	if code != 0 || strings.Count(out, "already has a note") != 2 || strings.Contains(out, "attest tick --commit") {
		t.Errorf("second run: exit %d, want both commits skipped\n%s", code, out)
	}
}

// TestActionAttestArguments checks what attest mode hands to taskproof by
// default: keyless Sigstore with the public-good URLs and one --test-report per
// line of the test-report input.
func TestActionAttestArguments(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	c1 := w.tick(a, "T001")
	ci := w.clone("ci")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	testenv.Git(t, ci, "fetch", "-q", "origin")
	testenv.Git(t, ci, "switch", "-q", "feature")
	// A stand-in binary that records the attest and push calls and runs the
	// real taskproof for everything else.
	log := filepath.Join(t.TempDir(), "calls.log")
	fake := filepath.Join(t.TempDir(), "taskproof")
	script := "#!/bin/sh\ncase \"$1 $2\" in\n'attest tick'|'notes push') echo \"$*\" >> " + log + "; exit 0 ;;\nesac\nexec " + w.bin + " \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out := runScript(t, "action-attest.sh", ci, "TASKPROOF_BIN="+fake, "TASKPROOF_BASE=origin/main",
		"TASKPROOF_TEST_REPORTS=red=reports/red.xml\n  green=reports/go-test.json  \n\n")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	calls, _ := os.ReadFile(log)
	want := "attest tick --commit " + c1 + " --notes-ref refs/notes/speccoder --signer sigstore --fulcio-url https://fulcio.sigstore.dev --rekor-url https://rekor.sigstore.dev --test-report red=reports/red.xml --test-report green=reports/go-test.json\nnotes push --notes-ref refs/notes/speccoder origin\n"
	if string(calls) != want {
		t.Errorf("calls:\n%s\nwant:\n%s", calls, want)
	}
}
