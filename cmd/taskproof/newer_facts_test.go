package main

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestGateTrailerOnlyBug: a bug task named only by a Spec-Task trailer
// (<unit>/bug:<slug>, speccoder's trailer_only task) has no tasks-file line:
// the gate reports it as a tick of kind bug, not evaluated and not failing,
// and a commit that also ticks a tasks-file line still needs that line's
// evidence (docs/format.md#bug-tasks).
func TestGateTrailerOnlyBug(t *testing.T) {
	const path = "specs/001-x/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	c := r.commit(t, "fix: crash on an empty name\n\nSpec-Task: 001-x/bug:crash-on-empty\n", map[string]string{"greet.go": "package greet\n"})
	out, _ := r.run(t, 0, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "json")
	var rep struct {
		Conclusion string `json:"conclusion"`
		Ticks      []struct {
			Kind, Commit, Path, Task, Status string
			Failing                          bool
		} `json:"ticks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Ticks) != 1 || rep.Ticks[0].Kind != "bug" || rep.Ticks[0].Task != "001-x/bug:crash-on-empty" || rep.Ticks[0].Commit != c ||
		rep.Ticks[0].Path != "" || rep.Ticks[0].Status != "not_evaluated" || rep.Ticks[0].Failing || rep.Conclusion != "neutral" {
		t.Fatalf("a bug named by its trailer: %+v (%s), want one bug tick not_evaluated, neutral", rep.Ticks, rep.Conclusion)
	}
	text, _ := r.run(t, 0, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(text, "001-x/bug:crash-on-empty not_evaluated") || !strings.Contains(text, " Spec-Task 001-x/bug:crash-on-empty") {
		t.Errorf("text report:\n%s", text)
	}

	// The same trailer on a commit that ticks T001: T001 needs its own evidence.
	r.git(t, "reset", "-q", "--hard", "main")
	r.commit(t, "fix and tick\n\nSpec-Task: 001-x/bug:crash-on-empty\n", map[string]string{path: strings.Replace(gateTasks, "- [ ] T001", "- [x] T001", 1)})
	rep2 := r.gate(t, 1)
	var got []string
	for _, tk := range rep2.Ticks {
		got = append(got, tk.TaskID+" "+tk.Status+"/"+tk.Reason)
	}
	slices.Sort(got)
	if strings.Join(got, ", ") != "T001 unverifiable/ticked_without_evidence, bug:crash-on-empty not_evaluated/" || rep2.Conclusion != "failure" {
		t.Errorf("tick and bug: %v (%s)", got, rep2.Conclusion)
	}
}

// TestGatePredicateV1Malformed: a statement of task-verification v1 is
// malformed for a v0 reader ("the predicate is not v0"), not a newer revision
// it may read: the tick it would evidence fails, even signed by a trusted key.
func TestGatePredicateV1Malformed(t *testing.T) {
	const path = "specs/001-x/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	c := r.tick(t, []string{path}, "T001")
	r.run(t, 0, "attest", "tick", "--commit", c, "--unsigned", "--verdict", "regression_only", "--regression-reason", "planning_work")
	var lines []string
	for _, line := range strings.Split(r.git(t, "notes", "--ref", "refs/notes/speccoder", "show", c), "\n") {
		var env map[string]any
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("note line %q: %v", line, err)
		}
		p, err := base64.StdEncoding.DecodeString(env["payload"].(string))
		if err != nil {
			t.Fatal(err)
		}
		env["payload"] = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(p), "/task-verification/v0", "/task-verification/v1", 1)))
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	r.git(t, "notes", "--ref", "refs/notes/speccoder", "add", "-f", "-m", strings.Join(lines, "\n"), c)
	r.run(t, 0, "attest", "sign", c, "--signer", "ssh", "--key", r.key)
	if shown := decodedPayloads(t, r.git(t, "notes", "--ref", "refs/notes/speccoder", "show", c)); !strings.Contains(shown, "/task-verification/v1") {
		t.Fatalf("the note holds no v1 statement:\n%s", shown)
	}
	rep := r.gate(t, 1)
	checkRows(t, rep, "failure", path+":T001 unverifiable/malformed")
	text, _ := r.run(t, 1, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	if !strings.Contains(text, "the predicate is not v0") {
		t.Errorf("text report does not say why:\n%s", text)
	}
}
