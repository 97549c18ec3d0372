package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestVerifyUnreadableTasksFile: a tick commit whose tasks file taskproof
// cannot read (a task line that is not UTF-8) fails the gate (exit 1, naming
// the file, commit and line) instead of an internal error; `ticks` refuses it
// as bad input (exit 2).
func TestVerifyUnreadableTasksFile(t *testing.T) {
	for _, c := range []struct{ name, ticked, why string }{
		{"invalid UTF-8", "# Tasks\n\n- [x] T001 do it \xff\xfe\n- [ ] T002 other\n", "line 3"},
		// UTF-16 with its BOM: read as UTF-8 it holds no task line at all, so
		// the tick would vanish (a fail-open) if the file were not refused.
		{"UTF-16", utf16LE("\ufeff# Tasks\n\n- [x] T001 do it\n- [ ] T002 other\n"), "line 1"},
	} {
		t.Run(c.name, func(t *testing.T) { checkUnreadableTasksFile(t, c.ticked, c.why) })
	}
}

func utf16LE(s string) string {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return string(b)
}

func checkUnreadableTasksFile(t *testing.T, ticked, why string) {
	bin := os.Getenv("TASKPROOF_BIN")
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	writeCommit(t, dir, "plan", map[string]string{"specs/001-x/tasks.md": "# Tasks\n\n- [ ] T001 do it\n- [ ] T002 other\n"})
	testenv.Git(t, dir, "checkout", "-q", "-b", "feature")
	tick := writeCommit(t, dir, "tick", map[string]string{"specs/001-x/tasks.md": ticked})
	empty := strings.TrimSpace(testenv.Git(t, dir, "commit-tree", "-m", "notes", strings.TrimSpace(testenv.Git(t, dir, "hash-object", "-t", "tree", "-w", "/dev/null"))))
	testenv.Git(t, dir, "update-ref", "refs/notes/speccoder", empty)
	allowed := dir + "/../allowed_signers"
	if err := os.WriteFile(allowed, []byte("dev@example.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gate := []string{"-C", dir, "verify", "--branch", "--base", "main", "--allowed-signers", allowed}
	_, stderr, code := runTaskproof(t, bin, gate...)
	if code != ExitFailure || !strings.Contains(stderr, "specs/001-x/tasks.md at commit "+tick) || !strings.Contains(stderr, why) || !strings.Contains(stderr, "UTF-8") {
		t.Errorf("text: exit %d, want 1 naming the file, commit and line:\n%s", code, stderr)
	}
	stdout, _, code := runTaskproof(t, bin, append(gate, "--format", "json")...)
	var doc struct {
		Conclusion string `json:"conclusion"`
		Error      struct {
			ExitCode int    `json:"exit_code"`
			Message  string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != ExitFailure || doc.Conclusion != "failure" || doc.Error.ExitCode != 1 {
		t.Errorf("json: exit %d, %v, %+v\n%s", code, err, doc, stdout)
	}
	if _, stderr, code := runTaskproof(t, bin, "-C", dir, "ticks", "main..feature"); code != ExitUsage || !strings.Contains(stderr, "cannot be read") {
		t.Errorf("ticks: exit %d, want 2:\n%s", code, stderr)
	}
}
