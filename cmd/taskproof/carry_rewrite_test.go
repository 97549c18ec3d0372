package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Carry's acceptance rule (docs/format.md#after-a-rebase-or-squash): TO must
// have FROM's tree, or make — alone or with the commits just before it — the
// change FROM's statements judged (FROM's side of their merge base), whoever
// still holds FROM. The gate offers the carry only where it would be
// accepted, and leads with attest tick elsewhere.

// rewriteTick is a tick of `verify --format json` with its fix.
type rewriteTick struct {
	TaskID  string `json:"task_id"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
	Reasons []struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"reasons"`
}

// gateTicks runs the gate over base..HEAD and returns its ticks.
func (r *gateRepo) gateTicks(t *testing.T, want int, base string) []rewriteTick {
	t.Helper()
	out, _ := r.run(t, want, "verify", "--branch", "--base", base, "HEAD", "--allowed-signers", r.allowed, "--format", "json")
	var rep struct {
		Ticks []rewriteTick `json:"ticks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify --format json: %v\n%s", err, out)
	}
	return rep.Ticks
}

// checkLeadsWithTick fails t unless task's tick is commit_unreachable and
// its message and hint lead with attest tick, not with the carry, naming
// what differs (each of differs).
func checkLeadsWithTick(t *testing.T, ticks []rewriteTick, task string, differs ...string) {
	t.Helper()
	for _, tk := range ticks {
		if tk.TaskID != task {
			continue
		}
		if tk.Reason != "commit_unreachable" || strings.Contains(tk.Message, "re-issue it here") ||
			!strings.Contains(tk.Message, "no rewrite") || !strings.HasPrefix(tk.Hint, "attest the tick on its commit") {
			t.Errorf("%s: reason %s, message %q, hint %q; want commit_unreachable leading with attest tick", task, tk.Reason, tk.Message, tk.Hint)
		}
		for _, d := range differs {
			if !strings.Contains(tk.Message, d) {
				t.Errorf("%s: the message does not name %s: %q", task, d, tk.Message)
			}
		}
		return
	}
	t.Errorf("no tick of %s in %+v", task, ticks)
}

// checkLeadsWithCarry fails t unless task's tick offers the carry from from.
func checkLeadsWithCarry(t *testing.T, ticks []rewriteTick, task, from string) {
	t.Helper()
	for _, tk := range ticks {
		if tk.TaskID == task {
			if !strings.Contains(tk.Message, "taskproof attest carry "+from) || !strings.Contains(tk.Hint, "attest carry "+from[:12]) {
				t.Errorf("%s: message %q, hint %q; want the carry from %s", task, tk.Message, tk.Hint, from)
			}
			return
		}
	}
	t.Errorf("no tick of %s in %+v", task, ticks)
}

// TestCarryRefusesBackportWithoutImplementation: on a feature branch commit
// A implements T001 and B ticks it and adds a CHANGELOG line; B is attested.
// Only B is cherry-picked onto main, whose tree then lacks A's code: the
// carry is refused (exit 2, naming the missing file) and the gate leads with
// attest tick, though B's change is more than its tasks file. Cherry-picking
// A too makes main's B a rewrite: the gate offers the carry, which passes.
func TestCarryRefusesBackportWithoutImplementation(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.commit(t, "implement T001", map[string]string{"auth.go": "package auth // Auth checks the token\n"})
	r.write(t, map[string]string{"CHANGELOG": "- T001 done\n"})
	b := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, b)
	r.git(t, "switch", "-q", "main")
	base := r.commit(t, "main moves", map[string]string{"other.txt": "other\n"})
	r.git(t, "cherry-pick", b)
	pick := r.git(t, "rev-parse", "HEAD")

	checkLeadsWithTick(t, r.gateTicks(t, 1, base), "T001", "auth.go")
	_, stderr := r.run(t, 2, "attest", "carry", b, pick, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "no rewrite") || !strings.Contains(stderr, "lacks the change to auth.go") {
		t.Errorf("carry of a backport without its implementation: %s", stderr)
	}

	r.git(t, "reset", "-q", "--hard", base)
	r.git(t, "cherry-pick", "feature~1", "feature")
	picked := r.git(t, "rev-parse", "HEAD")
	checkLeadsWithCarry(t, r.gateTicks(t, 1, base), "T001", b)
	r.run(t, 0, "attest", "carry", b, picked, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	r.gateTicks(t, 0, base)
}

// TestCarryRefusesAbandonedAttempt: attempt A ticks and attests T001, its
// branch is deleted (no ref holds A); the feature ticks T001 over other,
// untested code. The gate leads with attest tick, and the carry is refused
// (exit 2) though no ref holds A; --force carries it, saying what it
// overrode.
func TestCarryRefusesAbandonedAttempt(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "-c", "attempt-a", "main")
	r.write(t, map[string]string{"impl.go": "package impl // approach A, tested\n"})
	a := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, a)
	r.git(t, "switch", "-q", "feature")
	r.git(t, "branch", "-q", "-D", "attempt-a")
	r.write(t, map[string]string{"impl.go": "package impl // approach B, never tested\n", "other.go": "package impl\n"})
	b := r.tick(t, []string{gateUnit}, "T001")

	checkLeadsWithTick(t, r.gateTicks(t, 1, "main"), "T001", "impl.go")
	_, stderr := r.run(t, 2, "attest", "carry", a, b, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "no rewrite") || !strings.Contains(stderr, "changes impl.go otherwise") || !strings.Contains(stderr, "also changes other.go") {
		t.Errorf("carry from an abandoned attempt: %s", stderr)
	}
	_, stderr = r.run(t, 0, "attest", "carry", a, b, "--force", "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "warning: --force: TO "+b+" is no rewrite of FROM "+a) {
		t.Errorf("a forced carry does not say what it overrode: %s", stderr)
	}
	r.gateTicks(t, 0, "main")
}

// TestCarryRefusesAmendChangingWork: T002's tick commit, attested, is amended
// to rewrite the task's text and add code (with notes.rewriteRef, so git
// copies the note). The copied note's mismatch and the carry both say the
// amended commit is no rewrite of the attested one; the carry is refused
// (exit 2) naming both files.
func TestCarryRefusesAmendChangingWork(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.commit(t, "code T002", map[string]string{"auth.go": "package auth // checks\n"})
	c := r.tick(t, []string{gateUnit}, "T002")
	r.attest(t, c)
	r.git(t, "config", "notes.rewriteRef", "refs/notes/speccoder")
	r.write(t, map[string]string{
		gateUnit:  strings.Replace(gateTasks, "- [ ] T002 Write the test", "- [x] T002 Remove the auth check entirely", 1),
		"auth.go": "package auth // checks nothing\n",
	})
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "--amend", "--no-edit")
	amended := r.git(t, "rev-parse", "HEAD")

	for _, tk := range r.gateTicks(t, 1, "main") {
		said := false
		for _, rs := range tk.Reasons {
			said = said || (rs.Code == "subject_commit" && strings.Contains(rs.Message, "no rewrite") && strings.Contains(rs.Message, "auth.go"))
		}
		if tk.TaskID == "T002" && (!said || !strings.HasPrefix(tk.Hint, "attest the tick on its commit")) {
			t.Errorf("the copied note of an amend that changed the work: reasons %+v, hint %q", tk.Reasons, tk.Hint)
		}
	}
	_, stderr := r.run(t, 2, "attest", "carry", c, amended, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "no rewrite") || !strings.Contains(stderr, "auth.go") || !strings.Contains(stderr, gateUnit) {
		t.Errorf("carry after an amend that changed the work: %s", stderr)
	}
}

// TestCarryRefusesSquashWithLaterCommit: the feature implements and ticks
// T001 (attested), then adds an untested commit; it is squash-merged into a
// main that moved, and deleted. The squash makes more than the change the
// tick's statements judged: the carry is refused (exit 2, naming the later
// file) and the gate leads with attest tick. The squash of the branch as
// attested is carried, and passes.
func TestCarryRefusesSquashWithLaterCommit(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.commit(t, "implement T001", map[string]string{"auth.go": "package auth\n"})
	from := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, from)
	r.commit(t, "later, untested", map[string]string{"later.go": "package auth // untested\n"})
	r.git(t, "switch", "-q", "main")
	base := r.commit(t, "main moves", map[string]string{"other.txt": "other\n"})
	r.git(t, "merge", "-q", "--squash", "feature")
	r.git(t, "commit", "-q", "-m", "squash feature")
	squash := r.git(t, "rev-parse", "HEAD")
	r.git(t, "branch", "-q", "-D", "feature")

	checkLeadsWithTick(t, r.gateTicks(t, 1, base), "T001", "later.go")
	_, stderr := r.run(t, 2, "attest", "carry", from, squash, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "no rewrite") || !strings.Contains(stderr, "also changes later.go") {
		t.Errorf("carry onto a squash with a later commit: %s", stderr)
	}

	r.git(t, "reset", "-q", "--hard", base)
	r.git(t, "branch", "-q", "attested", from)
	r.git(t, "merge", "-q", "--squash", "attested")
	r.git(t, "commit", "-q", "-m", "squash attested")
	squash = r.git(t, "rev-parse", "HEAD")
	checkLeadsWithCarry(t, r.gateTicks(t, 1, base), "T001", from)
	r.run(t, 0, "attest", "carry", from, squash, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	r.gateTicks(t, 0, base)
}

// TestCarryRebaseOntoNeighbouringTick: the feature ticks T003 (attested)
// while main ticks T001 two lines above; the feature is rebased, a backup
// branch keeping the original. The rebased tick's diff has other context
// lines, but the same change: the gate offers the carry and it is accepted.
func TestCarryRebaseOntoNeighbouringTick(t *testing.T) {
	tasks := gateTasks + "- [ ] T003 Wire it up\n"
	r := newGateRepo(t, map[string]string{gateUnit: tasks})
	r.commit(t, "code T003", map[string]string{"wire.go": "package x // wiring\n"})
	c := r.tick(t, []string{gateUnit}, "T003")
	r.attest(t, c)
	r.git(t, "branch", "-q", "backup")
	r.git(t, "switch", "-q", "main")
	r.tick(t, []string{gateUnit}, "T001")
	r.git(t, "switch", "-q", "feature")
	r.git(t, "rebase", "-q", "main")
	rebased := r.git(t, "rev-parse", "HEAD")

	checkLeadsWithCarry(t, r.gateTicks(t, 1, "main"), "T003", c)
	out, _ := r.run(t, 0, "attest", "carry", c, rebased, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(out, "still in the history of refs/heads/backup") {
		t.Errorf("carry does not say the backup keeps the original's statements:\n%s", out)
	}
	r.gateTicks(t, 0, "main")
}
