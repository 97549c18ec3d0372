package attest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/verify"
)

// TestTickRepeatedTaskID: a tasks file that writes T001 twice makes only T001
// ambiguous (README "Choices", item 10): attesting it is refused with the error
// naming both lines and nothing is written, while T002 of the same file and
// commit attests and verifies ok. FindTask agrees.
func TestTickRepeatedTaskID(t *testing.T) {
	r := &tickRepo{dir: t.TempDir()}
	testenv.Git(t, r.dir, "init", "-q", "-b", "main")
	const open = "# Tasks\n\n- [ ] T001 [US1] Write the failing add test\n- [ ] T002 [US2] Implement subtract\n- [ ] T001 Write the docs\n"
	writeFile(t, r.dir, "specs/001-calc/spec.md", specMD)
	writeFile(t, r.dir, "specs/001-calc/tasks.md", open)
	r.c0 = commitAll(t, r.dir, "plan")
	writeFile(t, r.dir, "specs/001-calc/tasks.md", strings.Replace(strings.Replace(open, "[ ] T001 [US1]", "[x] T001 [US1]", 1), "[ ] T002", "[x] T002", 1))
	r.c1 = commitAll(t, r.dir, "tick")
	repo, notes := r.open(t)
	key, allowed := sshKey(t, "")
	const dupMsg = `specfmt: duplicate task id "T001" on lines 3 and 5`
	req := func(tasks ...string) attest.TickRequest {
		return attest.TickRequest{
			Commit: r.c1, Tasks: tasks, Verdict: predicate.RegressionOnly, Time: fixedTime,
			Regression: map[string]any{"reason": "planning_work"}, Signers: []attest.Signer{sshSigner(t, key)},
		}
	}
	tests := []struct {
		name    string
		tasks   []string
		wantErr error
		msg     []string // substrings of the error
	}{
		{"every tick of the commit", nil, specfmt.ErrDuplicateTask, []string{dupMsg, "specs/001-calc/tasks.md", "with --task"}},
		{"the repeated ID", []string{"T001"}, specfmt.ErrDuplicateTask, []string{dupMsg}},
		{"the repeated ID among others", []string{"T002", "T001"}, specfmt.ErrDuplicateTask, []string{dupMsg}},
	}
	for _, tt := range tests {
		_, err := attest.Tick(context.Background(), repo, notes, req(tt.tasks...))
		if !errors.Is(err, tt.wantErr) {
			t.Fatalf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
		for _, m := range tt.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: %q does not say %q", tt.name, err, m)
			}
		}
		if n := note(t, r.dir, r.c1); n != "" {
			t.Fatalf("%s: a refused tick wrote a note:\n%s", tt.name, n)
		}
	}
	w, err := attest.Tick(context.Background(), repo, notes, req("T002"))
	if err != nil || len(w) != 1 || w[0].Subject != "001-calc/T002" {
		t.Fatalf("T002: %+v, %v", w, err)
	}
	got := objectOutcomes(t, verifier(t, repo, notes, allowed), r.c1)
	if len(got) != 1 || got["001-calc/T002"] != verify.OK {
		t.Errorf("verify: %v, want 001-calc/T002 ok only", got)
	}

	fsys, err := repo.FS(r.c1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := attest.FindTask(fsys, "T001", ""); !errors.Is(err, specfmt.ErrDuplicateTask) || !strings.Contains(err.Error(), dupMsg) {
		t.Errorf("FindTask(T001) err = %v, want %s", err, dupMsg)
	}
	if _, task, err := attest.FindTask(fsys, "T002", ""); err != nil || task.LineNo != 4 || !task.Ticked() {
		t.Errorf("FindTask(T002) = %+v, %v; want line 4, ticked", task, err)
	}
	if _, _, err := attest.FindTask(fsys, "T009", ""); !errors.Is(err, attest.ErrRequest) {
		t.Errorf("FindTask(T009) err = %v, want ErrRequest (not found)", err)
	}
}
