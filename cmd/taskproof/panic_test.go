package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// panicBinary builds taskproof with the taskproof_panic build tag, in which
// panics.Inject panics where $TASKPROOF_PANIC names its site.
func panicBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "taskproof-panic")
	cmd := exec.Command(testenv.LookPath(t, "go"), "build", "-tags", "taskproof_panic", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags taskproof_panic: %v\n%s", err, out)
	}
	return bin
}

// runWith runs bin in dir with extra environment and returns its stdout,
// stderr and exit code.
func runWith(t *testing.T, bin, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(testenv.GitEnv(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	}
	t.Fatalf("taskproof %v: %v", args, err)
	return "", "", 0
}

// TestPanicIsInternalError: a panic on the main goroutine or in any goroutine
// taskproof starts (the tick walk's, its fan-out workers, the gate's object
// checks) is exit 5, never Go's exit 2: "internal error" and the stack where it
// panicked on stderr, and, for verify's machine-readable formats, an error
// result with code "internal" on stdout. The panics are injected in a build
// with the taskproof_panic tag; the released binary does not read
// $TASKPROOF_PANIC.
func TestPanicIsInternalError(t *testing.T) {
	r := newVFRepo(t)
	bin := panicBinary(t)
	trust := []string{"--allowed-signers", r.allowed, "--insecure-allow-unsigned"}
	verify := func(format string) []string {
		return append(append([]string{"verify", "--branch", "--base", "main"}, trust...), "--format", format)
	}
	// Where each site's panic happens: a file of its stack.
	where := map[string]string{
		"command":     "cmd/taskproof/internal/cmdutil/command.go",
		"walk":        "tick/walk.go",
		"fanout":      "internal/fanout/fanout.go",
		"gate-window": "gate/gatestream.go",
	}
	check := func(t *testing.T, site string, args []string) string {
		t.Helper()
		out, errOut, code := runWith(t, bin, r.dir, []string{"TASKPROOF_PANIC=" + site}, args...)
		if code != ExitInternal {
			t.Fatalf("taskproof %s with a panic at %s: exit %d, want 5\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), site, code, out, errOut)
		}
		if !strings.Contains(errOut, "taskproof: internal error: panic: injected panic at "+site+"\n") {
			t.Errorf("stderr does not say internal error:\n%s", errOut)
		}
		if !strings.Contains(errOut, "goroutine ") || !strings.Contains(errOut, "panics.Inject(") || !strings.Contains(errOut, where[site]) {
			t.Errorf("stderr does not hold the stack of the panic at %s (%s):\n%s", site, where[site], errOut)
		}
		return out
	}
	for _, site := range []string{"command", "walk", "fanout", "gate-window"} {
		t.Run("verify/"+site, func(t *testing.T) {
			out := check(t, site, verify("json"))
			var res struct {
				Conclusion string `json:"conclusion"`
				Error      struct {
					Code     string `json:"code"`
					ExitCode int    `json:"exit_code"`
					Message  string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("stdout is not one JSON result: %v\n%s", err, out)
			}
			if res.Conclusion != "error" || res.Error.Code != "internal" || res.Error.ExitCode != 5 || !strings.HasPrefix(res.Error.Message, "internal error: panic: ") {
				t.Errorf("JSON result %+v", res)
			}
		})
	}
	t.Run("verify formats", func(t *testing.T) {
		summary := filepath.Join(t.TempDir(), "summary.md")
		out, _, _ := runWith(t, bin, r.dir, []string{"TASKPROOF_PANIC=fanout", "GITHUB_STEP_SUMMARY=" + summary}, verify("github")...)
		if !strings.HasPrefix(out, "::error title=taskproof verify::internal error: panic: injected panic at fanout") {
			t.Errorf("github: %q", out)
		}
		if b, _ := os.ReadFile(summary); !strings.Contains(string(b), "error (exit 5, internal)") {
			t.Errorf("job summary: %q", b)
		}
		out = check(t, "fanout", verify("sarif"))
		var log struct {
			Runs []struct {
				Invocations []struct {
					ExecutionSuccessful bool `json:"executionSuccessful"`
					ExitCode            int  `json:"exitCode"`
					Notifications       []struct {
						Descriptor struct {
							ID string `json:"id"`
						} `json:"descriptor"`
					} `json:"toolExecutionNotifications"`
				} `json:"invocations"`
			} `json:"runs"`
		}
		if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
			t.Fatalf("sarif: %v\n%s", err, out)
		}
		inv := log.Runs[0].Invocations[0]
		if inv.ExecutionSuccessful || inv.ExitCode != 5 || len(inv.Notifications) != 1 || inv.Notifications[0].Descriptor.ID != "internal" {
			t.Errorf("sarif invocation %+v", inv)
		}
		out = check(t, "fanout", verify("junit"))
		if !strings.Contains(out, `<testcase classname="taskproof" name="internal">`) || !strings.Contains(out, `type="internal"`) {
			t.Errorf("junit:\n%s", out)
		}
		if out := check(t, "fanout", verify("text")); out != "" {
			t.Errorf("text: stdout %q", out)
		}
	})
	t.Run("ticks", func(t *testing.T) {
		check(t, "walk", []string{"ticks", "--format", "json"})
		check(t, "fanout", []string{"ticks", "--format", "json"})
	})
	t.Run("audit", func(t *testing.T) {
		check(t, "fanout", []string{"audit", "--all", "--format", "json"})
	})
	t.Run("usage errors stay exit 2", func(t *testing.T) {
		if _, _, code := runWith(t, bin, r.dir, []string{"TASKPROOF_PANIC=fanout"}, "verify", "--no-such-flag"); code != ExitUsage {
			t.Errorf("a bad flag: exit %d, want 2", code)
		}
	})
	t.Run("released binary", func(t *testing.T) {
		for site := range where {
			out, errOut, code := runWith(t, testenv.Binary(t), r.dir, []string{"TASKPROOF_PANIC=" + site}, verify("json")...)
			if code != 0 || strings.Contains(errOut, "panic") || !strings.Contains(out, `"conclusion": "success"`) {
				t.Errorf("TASKPROOF_PANIC=%s changed the released binary's run: exit %d\n%s\n%s", site, code, out, errOut)
			}
		}
	})
}
