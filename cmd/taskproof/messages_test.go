package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkMessageLayout fails when stderr shows a line break or tab as an
// escape, or when a line after a message's first is not indented (quoted
// text passing for a message of its own).
func checkMessageLayout(t *testing.T, what, stderr string) {
	t.Helper()
	if strings.Contains(stderr, `\n`) || strings.Contains(stderr, `\t`) {
		t.Errorf("%s: a line break or tab shown as an escape:\n%s", what, stderr)
	}
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "taskproof: ") && !strings.HasPrefix(l, "warning: ") && !strings.HasPrefix(l, "  ") {
			t.Errorf("%s: line %q is neither a message nor indented under one:\n%s", what, l, stderr)
		}
	}
}

// TestMessagesOfSeveralLines: the CLI's messages of several lines — attest
// tick's list of verdicts, git's error output quoted whole — keep their line
// breaks, with every line after the first indented.
func TestMessagesOfSeveralLines(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	c := w.tick(a, "T001")

	_, stderr := w.run(a, 2, "attest", "tick", "--commit", c, "--unsigned")
	checkMessageLayout(t, "attest tick without --verdict", stderr)
	if strings.Count(stderr, "\n") < 3 || !strings.Contains(stderr, "\n    verified ") || !strings.Contains(stderr, "\n    regression_only ") {
		t.Errorf("attest tick without --verdict: the verdicts are not listed one a line:\n%s", stderr)
	}

	missing := filepath.Join(w.dir, "no-such-remote.git")
	_, stderr = w.run(a, 4, "notes", "fetch", missing)
	checkMessageLayout(t, "notes fetch from a missing repository", stderr)
	if !strings.Contains(stderr, "does not appear to be a git repository") || strings.Count(stderr, "\n") < 2 {
		t.Errorf("notes fetch from a missing repository: git's message of several lines is not quoted whole:\n%s", stderr)
	}
}

// TestNotesAttemptsHelp: --attempts says what it bounds for each command.
func TestNotesAttemptsHelp(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	for op, want := range map[string]string{"push": "push at most N times", "fetch": "merge into the notes ref at most N times"} {
		out, _ := w.run(a, 0, "notes", op, "--help")
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "--attempts") {
				line = l
			}
		}
		if !strings.Contains(line, want) || (op == "fetch" && strings.Contains(line, "push")) {
			t.Errorf("notes %s --help: --attempts reads %q, want %q", op, line, want)
		}
	}
}

// TestNotesJSONError: notes push and notes fetch with --format json write a
// JSON error object on stdout when they fail, with the exit code and the
// message stderr has.
func TestNotesJSONError(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	w.attest(a, w.tick(a, "T001"))
	for _, op := range []string{"push", "fetch"} {
		stdout, stderr := w.run(a, 4, "notes", op, "nosuchremote", "--format", "json")
		var v struct {
			SchemaVersion int    `json:"schema_version"`
			Operation     string `json:"operation"`
			Conclusion    string `json:"conclusion"`
			Error         struct {
				Code     string `json:"code"`
				ExitCode int    `json:"exit_code"`
				Message  string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(stdout), &v); err != nil {
			t.Fatalf("notes %s --format json on an error: stdout is not JSON (%v):\n%s\nstderr:\n%s", op, err, stdout, stderr)
		}
		if v.SchemaVersion != 1 || v.Operation != op || v.Conclusion != "error" || v.Error.Code != "git_precondition" || v.Error.ExitCode != 4 ||
			!strings.Contains(v.Error.Message, "nosuchremote") || !strings.Contains(stderr, "nosuchremote") {
			t.Errorf("notes %s --format json on an error: %+v\nstderr:\n%s", op, v, stderr)
		}
	}
}

// TestNotesFetchStorageFault: notes fetch into a clone on a full file system
// or with a read-only object store is exit 4 naming the fault and what to do,
// as the other writers do, leaves the notes ref as it was, and works once the
// space is freed.
func TestNotesFetchStorageFault(t *testing.T) {
	if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
		t.Skipf("cannot make a mount namespace to put the faults in (unshare -rm: %v %s): the storage faults are not exercised here", err, out)
	}
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	w.attest(a, w.tick(a, "T001"))
	w.run(a, 0, "notes", "push")
	b := w.clone("b")
	w.run(b, 0, "init")
	for _, tc := range []struct{ fault, errno, fix string }{
		{"full", "ENOSPC", "is full: free space there"},
		{"ro-refs", "EROFS", "read-only file system"},
	} {
		code, stderr, ref, code2, stderr2 := faultRun(t, tc.fault, b, "notes", "fetch")
		if code != 4 {
			t.Errorf("%s: exit %d, want 4\n%s", tc.fault, code, stderr)
		}
		for _, want := range []string{"[" + tc.errno + "]", tc.fix, "run the command again", "refs/notes/speccoder is as it was"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: the error does not say %q:\n%s", tc.fault, want, stderr)
			}
		}
		checkMessageLayout(t, tc.fault, stderr)
		if ref != "" {
			t.Errorf("%s: the notes ref was written under the fault: %s", tc.fault, ref)
		}
		if tc.fault == "full" && code2 != 0 {
			t.Errorf("%s: after the space is freed: exit %d\n%s", tc.fault, code2, stderr2)
		}
	}
}
