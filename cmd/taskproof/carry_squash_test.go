package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// squashWorld is a feature branch of three tick commits (T001, T002, T003,
// each with its code) squash-merged into main after main moved on, the
// branch kept, as GitHub's "Squash and merge" leaves them.
type squashWorld struct {
	*gateRepo
	base, squash string // main before the squash, the squash commit
	ticks        []string
}

const squashTasks = "# Tasks\n\n- [ ] T001 Create the skeleton\n- [ ] T002 Write the test\n- [ ] T003 Wire it up\n"

// newSquashWorld builds the branch, attesting the ticks attested says (by
// task ID), and squash-merges it.
func newSquashWorld(t *testing.T, attested ...string) *squashWorld {
	t.Helper()
	const path = "specs/001-sq/tasks.md"
	w := &squashWorld{gateRepo: newGateRepo(t, map[string]string{path: squashTasks, "README": "readme\n"})}
	tasks := squashTasks
	for i, id := range []string{"T001", "T002", "T003"} {
		tasks = strings.Replace(tasks, "- [ ] "+id, "- [x] "+id, 1)
		c := w.commit(t, id+" done", map[string]string{path: tasks, "src/" + id + ".go": "package src // " + id + "\n"})
		w.ticks = append(w.ticks, c)
		if strings.Contains(strings.Join(attested, ","), id) {
			w.attest(t, c)
		}
		if i == 1 {
			w.commit(t, "refactor", map[string]string{"src/util.go": "package src\n"})
		}
	}
	w.git(t, "switch", "-q", "main")
	w.commit(t, "main moves on", map[string]string{"README": "readme, edited on main\n"})
	w.base = w.git(t, "rev-parse", "HEAD")
	w.git(t, "merge", "--squash", "-q", "feature")
	w.git(t, "commit", "-q", "-m", "feature (#17)")
	w.squash = w.git(t, "rev-parse", "HEAD")
	return w
}

// gateMain runs the gate over main's squash (base..main).
func (w *squashWorld) gateMain(t *testing.T, want int) (gateReport, string) {
	t.Helper()
	out, _ := w.run(t, want, "verify", "--branch", "--base", w.base, "main", "--allowed-signers", w.allowed, "--format", "json")
	var rep gateReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify --format json: %v\n%s", err, out)
	}
	text, _ := w.run(t, want, "verify", "--branch", "--base", w.base, "main", "--allowed-signers", w.allowed)
	return rep, text
}

// TestCarrySquash: after a squash merge, one `attest carry main..feature
// main` re-attests every tick of the branch on the squash commit and the gate
// passes, though the branch still holds the tick commits (a pair-wise carry
// is refused there); run again, it has nothing left to do. The gate's hint
// names that command.
func TestCarrySquash(t *testing.T) {
	w := newSquashWorld(t, "T001", "T002", "T003")
	rep, text := w.gateMain(t, 1)
	checkFails(t, rep, "specs/001-sq/tasks.md commit_unreachable")
	if !strings.Contains(text, "taskproof attest carry "+w.base[:12]+".."+w.ticks[2][:12]+" "+w.squash[:12]) {
		t.Errorf("the gate's hint does not name the squash carry:\n%s", text)
	}
	// The pair-wise carry is refused: the tick commit is on a branch and
	// makes another change than the squash.
	_, stderr := w.run(t, 2, "attest", "carry", w.ticks[0], "main", "--allowed-signers", w.allowed, "--signer", "ssh", "--key", w.key)
	if !strings.Contains(stderr, "still in the history of") {
		t.Fatalf("pair-wise carry: %s", stderr)
	}

	out, _ := w.run(t, 0, "attest", "carry", "main..feature", "main", "--allowed-signers", w.allowed, "--signer", "ssh", "--key", w.key)
	for _, id := range []string{"T001", "T002", "T003"} {
		if !strings.Contains(out, "001-sq/"+id) {
			t.Errorf("carry output does not name %s:\n%s", id, out)
		}
	}
	rep, _ = w.gateMain(t, 0)
	checkRows(t, rep, "success", "specs/001-sq/tasks.md:T001 evidenced/", "specs/001-sq/tasks.md:T002 evidenced/", "specs/001-sq/tasks.md:T003 evidenced/")

	out, _ = w.run(t, 0, "attest", "carry", "main..feature", "main", "--allowed-signers", w.allowed, "--signer", "ssh", "--key", w.key)
	if strings.Count(out, "carried already") != 3 {
		t.Errorf("a squash carry run again:\n%s", out)
	}
}

// TestCarrySquashMissingEvidence: a branch whose T002 tick was never
// attested: the carry carries T001 and T003, fails naming T002 (exit 1), and
// so does the gate.
func TestCarrySquashMissingEvidence(t *testing.T) {
	w := newSquashWorld(t, "T001", "T003")
	_, stderr := w.run(t, 1, "attest", "carry", "main..feature", "main", "--allowed-signers", w.allowed, "--signer", "ssh", "--key", w.key)
	if !strings.Contains(stderr, "001-sq/T002") || !strings.Contains(stderr, "holds no statement") || strings.Contains(stderr, "001-sq/T001") {
		t.Errorf("carry with T002's evidence missing: %s", stderr)
	}
	rep, _ := w.gateMain(t, 1)
	checkRows(t, rep, "failure", "specs/001-sq/tasks.md:T001 evidenced/", "specs/001-sq/tasks.md:T002 unverifiable/ticked_without_evidence", "specs/001-sq/tasks.md:T003 evidenced/")
}

// TestCarrySquashRefused: a squash commit that is not the squash of the
// range — it changes more than the branch did, or the range stops before the
// branch's last commit — is refused (exit 2) and nothing is written.
func TestCarrySquashRefused(t *testing.T) {
	w := newSquashWorld(t, "T001", "T002", "T003")
	w.commit(t, "feature (#17), amended", map[string]string{"src/extra.go": "package src // not on the branch\n"})
	w.git(t, "reset", "-q", "--soft", "HEAD~2")
	w.git(t, "commit", "-q", "-m", "feature (#17) with more")
	before := w.git(t, "rev-parse", "refs/notes/speccoder")
	_, stderr := w.run(t, 2, "attest", "carry", "main..feature", "main", "--allowed-signers", w.allowed, "--signer", "ssh", "--key", w.key)
	if !strings.Contains(stderr, "is not the combined change of the range") {
		t.Errorf("a squash with another change: %s", stderr)
	}
	_, stderr = w.run(t, 2, "attest", "carry", "main.."+w.ticks[1], "main", "--allowed-signers", w.allowed, "--signer", "ssh", "--key", w.key)
	if !strings.Contains(stderr, "is not the combined change of the range") {
		t.Errorf("a range short of the branch: %s", stderr)
	}
	if after := w.git(t, "rev-parse", "refs/notes/speccoder"); after != before {
		t.Errorf("a refused squash carry moved the notes ref")
	}
}

// TestCarrySquashUntrustedEvidence: T002's statements are signed by a key the
// verifier does not trust: the squash carry leaves T002 out, naming it and
// why, carries T001 and T003, and exits 1.
func TestCarrySquashUntrustedEvidence(t *testing.T) {
	w := newSquashWorld(t, "T001", "T003")
	other := filepath.Join(t.TempDir(), "other")
	if out, err := exec.Command(testenv.LookPath(t, "ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "other", "-f", other).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	w.run(t, 0, "attest", "tick", "--commit", w.ticks[1], "--signer", "ssh", "--key", other,
		"--verdict", "regression_only", "--regression-reason", "planning_work")
	out, stderr := w.run(t, 1, "attest", "carry", "main..feature", "main", "--allowed-signers", w.allowed, "--signer", "ssh", "--key", w.key)
	if !strings.Contains(stderr, "001-sq/T002 (the statements on "+w.ticks[1]) || !strings.Contains(stderr, "untrusted_signer") {
		t.Errorf("carry with T002 signed by an untrusted key: %s", stderr)
	}
	if !strings.Contains(out, "001-sq/T001") || !strings.Contains(out, "001-sq/T003") || strings.Contains(out, "001-sq/T002") {
		t.Errorf("carried:\n%s", out)
	}
}
