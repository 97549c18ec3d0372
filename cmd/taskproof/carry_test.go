package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

func TestAmendAndRebaseKeepNotesAfterInit(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	old := w.tick(a, "T001")
	w.attest(a, old)

	testenv.Git(t, a, "commit", "-q", "--amend", "-m", "T001 done (amended)")
	amended := strings.TrimSpace(testenv.Git(t, a, "rev-parse", "HEAD"))
	if amended == old {
		t.Fatal("amend made no new commit")
	}
	if note := testenv.Git(t, a, "notes", "--ref", "speccoder", "show", amended); !strings.Contains(note, "payload") {
		t.Fatalf("amend did not carry the note:\n%s", note)
	}
	// The copied statements still name the old commit: the gate refuses them …
	w.verifyBranch(a, 1)
	// … until they are re-issued for the new commit.
	w.run(a, 0, "attest", "carry", old, amended, "--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key)
	w.verifyBranch(a, 0)

	// Rebase onto a moved main: the note is copied again, and carry fixes it.
	testenv.Git(t, a, "switch", "-q", "main")
	if err := os.WriteFile(filepath.Join(a, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "add", "README")
	testenv.Git(t, a, "commit", "-q", "-m", "readme")
	testenv.Git(t, a, "push", "-q", "origin", "main")
	testenv.Git(t, a, "switch", "-q", "feature")
	testenv.Git(t, a, "rebase", "-q", "main")
	rebased := strings.TrimSpace(testenv.Git(t, a, "rev-parse", "HEAD"))
	if note := testenv.Git(t, a, "notes", "--ref", "speccoder", "show", rebased); !strings.Contains(note, "payload") {
		t.Fatalf("rebase did not carry the note:\n%s", note)
	}
	w.verifyBranch(a, 1)
	w.run(a, 0, "attest", "carry", amended, rebased, "--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key)
	w.verifyBranch(a, 0)
	// The carried lines left the old commit's note (its only lines).
	if _, err := os.Stat(a); err == nil {
		out := testenv.Git(t, a, "notes", "--ref", "speccoder", "list")
		if strings.Contains(out, amended) {
			t.Errorf("the old commit %s still has a note:\n%s", amended, out)
		}
	}
}

func TestSquashMergeUnreachableThenCarry(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	tick := w.tick(a, "T001")
	w.attest(a, tick)
	testenv.Git(t, a, "switch", "-q", "main")
	testenv.Git(t, a, "merge", "-q", "--squash", "feature")
	testenv.Git(t, a, "commit", "-q", "-m", "squash feature")
	squash := strings.TrimSpace(testenv.Git(t, a, "rev-parse", "HEAD"))
	testenv.Git(t, a, "branch", "-q", "-D", "feature")

	out, _ := w.run(a, 1, "verify", "--branch", "--base", "origin/main", "HEAD", "--allowed-signers", w.signers, "--format", "json")
	for _, want := range []string{"commit_unreachable", "same_tree_as", tick} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	// Without trust, carry refuses to re-sign (exit 3) …
	w.run(a, 3, "attest", "carry", tick, squash, "--signer", "ssh", "--key", w.key)
	// … a task the target does not tick is refused (exit 2) …
	w.run(a, 2, "attest", "carry", tick, "HEAD~1", "--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key)
	// … and with it the squash commit gets the evidence.
	w.run(a, 0, "attest", "carry", tick, squash, "--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key)
	w.verifyBranch(a, 0)
}

// TestSkipRecordIsNoTickEvidence: a skip decision, made while the task was
// open and stored on its skip record, is not the evidence of a later tick of
// the task: the tick without evidence is ticked_without_evidence (no
// commit_unreachable, no carry hint), and `attest carry` refuses the skip
// record as FROM (it would make a ticked task "skipped").
func TestSkipRecordIsNoTickEvidence(t *testing.T) {
	const path = "specs/001-face/tasks.md"
	r := newGateRepo(t, map[string]string{path: gateTasks})
	r.run(t, 0, "attest", "decide", "--task", "T002", "--verdict", "skipped", "--by", "Ada", "--reason", "not needed", "--signer", "ssh", "--key", r.key)
	skip := strings.TrimSpace(r.git(t, "rev-parse", "refs/speccoder/skipped/001-face/T002"))
	r.attest(t, r.tick(t, []string{path}, "T001"))
	r.tick(t, []string{path}, "T002")
	rep := r.gate(t, 1)
	for _, tk := range rep.Ticks {
		if tk.TaskID == "T002" && (tk.Reason != "ticked_without_evidence" || strings.Contains(tk.Message, "carry")) {
			t.Errorf("T002 ticked after its skip decision: reason %s, message %q; want ticked_without_evidence, no carry hint", tk.Reason, tk.Message)
		}
	}
	_, errOut := r.run(t, 2, "attest", "carry", skip, "HEAD", "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(errOut, "skip record") {
		t.Errorf("attest carry from the skip record: want it refused as a skip record:\n%s", errOut)
	}
	r.git(t, "notes", "--ref", "speccoder", "show", skip) // the skip record keeps its statement
}

// TestCarryRefusesEarlierTick: T001 ticked and attested at A, unticked, then
// ticked again at C over changed code. A is in C's history, so C is no
// rewrite of A: carry A C is refused (exit 2, naming attest tick) and the gate
// still fails C's tick; a FROM without a note has nothing to carry (exit 2).
func TestCarryRefusesEarlierTick(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	a := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, a)
	r.commit(t, "untick T001", map[string]string{gateUnit: gateTasks})
	r.write(t, map[string]string{"impl.txt": "changed\n"})
	c := r.tick(t, []string{gateUnit}, "T001")
	checkFails(t, r.gate(t, 1), gateUnit+" commit_unreachable")

	_, stderr := r.run(t, 2, "attest", "carry", a, c, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "is an ancestor of TO") || !strings.Contains(stderr, "taskproof attest tick --commit "+c) {
		t.Errorf("carry from an earlier tick: %s", stderr)
	}
	checkFails(t, r.gate(t, 1), gateUnit+" commit_unreachable")

	r.git(t, "commit", "-q", "--amend", "-m", "re-tick T001")
	amended := r.git(t, "rev-parse", "HEAD")
	_, stderr = r.run(t, 2, "attest", "carry", c, amended, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "nothing to carry: "+c+" has no note") {
		t.Errorf("carry from a commit without a note: %s", stderr)
	}
}

// TestCarryCherryPickKeepsOriginal: main's tick commit M, attested, is
// cherry-picked onto a release branch as R; carrying M to R evidences R's
// tick and keeps M's statements, since main still holds M (removing them
// failed main's own gate).
func TestCarryCherryPickKeepsOriginal(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "main")
	r.git(t, "branch", "release")
	m := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, m)
	r.git(t, "switch", "-q", "release")
	r.git(t, "cherry-pick", "-x", m)
	c := r.git(t, "rev-parse", "HEAD")
	out, _ := r.run(t, 0, "attest", "carry", m, c, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(out, "still in the history of refs/heads/main") {
		t.Errorf("carry does not say why M's statements are kept:\n%s", out)
	}
	for _, rev := range []string{m, c} {
		if out, _ := r.run(t, 0, "verify", rev, "--allowed-signers", r.allowed); !strings.Contains(out, "conclusion: success") {
			t.Errorf("verify %s after the carry:\n%s", rev, out)
		}
	}
}

// TestCarryRangeChecksFirst: a rebased branch of three ticks, the second
// attested by a key the verifier does not trust, and a born-ticked task.
// The range carry refuses before writing anything (it carried the first
// pair, then stopped); with the second attested by a trusted key, it carries
// every pair, the born-ticked task's too (it was left out, silently).
func TestCarryRangeChecksFirst(t *testing.T) {
	const tasks = "# Tasks\n\n## Phase 1\n\n- [ ] T001 One\n\n## Phase 2\n\n- [ ] T002 Two\n"
	r := newGateRepo(t, map[string]string{gateUnit: tasks})
	mallory, _ := sshKeyFile(t, "")
	c1 := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, c1)
	c2 := r.tick(t, []string{gateUnit}, "T002")
	r.run(t, 0, "attest", "tick", "--commit", c2, "--signer", "ssh", "--key", mallory, "--verdict", "regression_only", "--regression-reason", "planning_work")
	c3 := r.commit(t, "a unit born ticked", map[string]string{"specs/002-y/tasks.md": "# Tasks\n\n- [x] T001 Born\n"})
	r.attest(t, c3)
	r.git(t, "tag", "orig")
	r.git(t, "switch", "-q", "main")
	r.commit(t, "main moves", map[string]string{"README.md": "x\n"})
	r.git(t, "switch", "-q", "feature")
	r.git(t, "rebase", "-q", "main")
	notes := r.git(t, "rev-parse", "refs/notes/speccoder")
	_, stderr := r.run(t, 1, "attest", "carry", "main..orig", "main..HEAD", "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "nothing was carried") {
		t.Errorf("range carry with an untrusted pair: %s", stderr)
	}
	if now := r.git(t, "rev-parse", "refs/notes/speccoder"); now != notes {
		t.Fatalf("the refused range carry moved the notes ref %s → %s", notes, now)
	}
	r.attest(t, c2, "--force")
	r.run(t, 0, "attest", "carry", "main..orig", "main..HEAD", "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	checkRows(t, r.gate(t, 0), "success", gateUnit+":T001 evidenced/", gateUnit+":T002 evidenced/", "specs/002-y/tasks.md:T001 evidenced/")
}

// TestCarryRefusesSiblingAttempt: branch attempt1 ticks and attests T001
// over one implementation; the feature ticks T001 over another. attempt1's
// commit is no ancestor of the feature's and its change differs: the
// feature's tick is no rewrite of it, and the carry is refused (it passed the
// gate for code nobody judged), naming the branch that still holds it.
func TestCarryRefusesSiblingAttempt(t *testing.T) {
	r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
	r.git(t, "switch", "-q", "-c", "attempt1", "main")
	r.write(t, map[string]string{"impl.go": "package impl // attempt one\n"})
	a := r.tick(t, []string{gateUnit}, "T001")
	r.attest(t, a)
	r.git(t, "switch", "-q", "feature")
	r.write(t, map[string]string{"impl.go": "package impl // attempt two\n"})
	b := r.tick(t, []string{gateUnit}, "T001")
	_, stderr := r.run(t, 2, "attest", "carry", a, b, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
	if !strings.Contains(stderr, "no rewrite") || !strings.Contains(stderr, "changes impl.go otherwise") || !strings.Contains(stderr, "refs/heads/attempt1") {
		t.Errorf("carry from a sibling attempt: %s", stderr)
	}
	checkFails(t, r.gate(t, 1), gateUnit+" commit_unreachable")
}

// TestCarryRefusesSiblingTickOnly: the code and the box in separate commits,
// on two branches with different code: the two tick commits make the same
// change (the box alone), but no run of the feature's commits makes
// attempt1's change (its code commit's included), so the carry is refused; a
// whitespace-only difference in the code is a different change too.
func TestCarryRefusesSiblingTickOnly(t *testing.T) {
	for name, code := range map[string][2]string{
		"tick-only commits": {"package impl // attempt one\n", "package impl // attempt two\n"},
		"whitespace":        {"rm -rf /tmp/cache\n", "rm -rf / tmp/cache\n"},
	} {
		t.Run(name, func(t *testing.T) {
			r := newGateRepo(t, map[string]string{gateUnit: gateTasks})
			r.git(t, "switch", "-q", "-c", "attempt1", "main")
			r.commit(t, "code one", map[string]string{"impl.sh": code[0]})
			a := r.tick(t, []string{gateUnit}, "T001")
			r.attest(t, a)
			r.git(t, "switch", "-q", "feature")
			r.commit(t, "code two", map[string]string{"impl.sh": code[1]})
			b := r.tick(t, []string{gateUnit}, "T001")
			_, stderr := r.run(t, 2, "attest", "carry", a, b, "--allowed-signers", r.allowed, "--signer", "ssh", "--key", r.key)
			if !strings.Contains(stderr, "no rewrite") || !strings.Contains(stderr, "changes impl.sh otherwise") {
				t.Errorf("carry: %s", stderr)
			}
		})
	}
}
