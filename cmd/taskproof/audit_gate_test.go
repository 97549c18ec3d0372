package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestAuditCountsWhatTheGateFails runs the real binary's gate and audit on a
// branch that adds a unit whose tasks file is born with a task ticked and
// ticks a task of an existing unit, neither attested: the gate fails both,
// and audit lists both as ticks without evidence, the born-ticked one saying
// so.
func TestAuditCountsWhatTheGateFails(t *testing.T) {
	dir := testenv.NewRepo(t)
	testenv.CommitFiles(t, dir, "plan", map[string]string{
		"specs/001-x/spec.md":  "# Spec\n",
		"specs/001-x/tasks.md": "- [ ] T001 Write it\n- [ ] T002 Ship it\n",
	})
	testenv.Git(t, dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "unrelated", "HEAD")
	testenv.Git(t, dir, "checkout", "-q", "-b", "feat")
	born := testenv.CommitFiles(t, dir, "new unit, born ticked", map[string]string{
		"specs/002-y/spec.md":  "# Spec\n",
		"specs/002-y/tasks.md": "- [x] T001 Born done\n- [ ] T002 Open\n",
	})
	ticked := testenv.CommitFiles(t, dir, "tick T001", map[string]string{
		"specs/001-x/tasks.md": "- [x] T001 Write it\n- [ ] T002 Ship it\n",
	})

	key, _ := sshKeyFile(t, "")
	line, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(t.TempDir(), "allowed_signers")
	if err := os.WriteFile(signers, append([]byte("dev@example.com "), line...), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &cliRepo{dir: dir}

	stdout, stderr, code := r.taskproof(t, nil, "verify", "main..feat", "--allowed-signers", signers, "--format", "json")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1\n%s", code, stderr)
	}
	var gate struct {
		Ticks []struct {
			Commit, Task, Status string
			Failing              bool
		}
	}
	if err := json.Unmarshal([]byte(stdout), &gate); err != nil {
		t.Fatalf("verify json: %v\n%s", err, stdout)
	}
	var failing []string
	for _, tk := range gate.Ticks {
		if tk.Failing {
			failing = append(failing, tk.Commit+" "+tk.Task+" "+tk.Status)
		}
	}
	slices.Sort(failing)

	stdout, stderr, code = r.taskproof(t, nil, "audit", "main..feat", "--format", "json")
	if code != 0 {
		t.Fatalf("audit: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Totals struct {
			Ticks           int `json:"ticks"`
			WithoutEvidence int `json:"without_evidence"`
		}
		WithoutEvidence []struct{ Commit, Task, Why string } `json:"without_evidence"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("audit json: %v\n%s", err, stdout)
	}
	var listed []string
	status := map[string]string{"born_ticked": "born_ticked", "no_note": "unverifiable"}
	for _, u := range rep.WithoutEvidence {
		listed = append(listed, u.Commit+" "+u.Task+" "+status[u.Why])
	}
	slices.Sort(listed)

	want := []string{born + " 002-y/T001 born_ticked", ticked + " 001-x/T001 unverifiable"}
	slices.Sort(want)
	if !slices.Equal(failing, want) {
		t.Fatalf("the gate fails %q, want %q", failing, want)
	}
	if !slices.Equal(listed, want) {
		t.Errorf("audit lists without evidence %q, want what the gate fails: %q", listed, want)
	}
	if rep.Totals.Ticks != 2 || rep.Totals.WithoutEvidence != 2 {
		t.Errorf("audit's totals: %d ticks, %d without evidence; want 2 and 2", rep.Totals.Ticks, rep.Totals.WithoutEvidence)
	}
	if len(gate.Ticks) != 2 {
		t.Errorf("the gate judges %d ticks, want 2", len(gate.Ticks))
	}
}
