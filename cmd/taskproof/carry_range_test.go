package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/testenv"
)

// rebasedBranch builds a feature branch of three attested tick commits and
// rebases it onto a main that moved; init (notes.rewriteRef) decides whether
// git copied the notes. It returns the clone and the old tick commits.
func rebasedBranch(t *testing.T, w *world, init bool) (string, []string) {
	a := w.seed()
	if init {
		w.run(a, 0, "init")
	}
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	var old []string
	for _, id := range []string{"T001", "T002", "T003"} {
		c := w.tick(a, id)
		w.attest(a, c)
		old = append(old, c)
	}
	testenv.Git(t, a, "switch", "-q", "main")
	if err := os.WriteFile(filepath.Join(a, "NEWS"), []byte("news\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, a, "add", "NEWS")
	testenv.Git(t, a, "commit", "-q", "-m", "news on main")
	testenv.Git(t, a, "push", "-q", "origin", "main")
	testenv.Git(t, a, "switch", "-q", "feature")
	testenv.Git(t, a, "rebase", "-q", "main")
	return a, old
}

// TestRebaseUnreachableNamesEvidence: without notes.rewriteRef a rebase leaves
// the evidence on the old commits; the gate's commit_unreachable names them
// (text and JSON evidence / evidence_on) and the carry to run.
func TestRebaseUnreachableNamesEvidence(t *testing.T) {
	w := newWorld(t)
	a, old := rebasedBranch(t, w, false)
	out, _ := w.run(a, 1, "verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers, "--format", "json")
	var rep struct {
		Ticks []struct {
			Task       string   `json:"task"`
			Reason     string   `json:"reason"`
			Evidence   string   `json:"evidence"`
			EvidenceOn []string `json:"evidence_on"`
			Message    string   `json:"message"`
		} `json:"ticks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Ticks) != 3 {
		t.Fatalf("%d ticks:\n%s", len(rep.Ticks), out)
	}
	for i, tk := range rep.Ticks {
		if tk.Reason != "commit_unreachable" || tk.Evidence != old[i] || len(tk.EvidenceOn) != 1 || tk.EvidenceOn[0] != old[i] ||
			!strings.Contains(tk.Message, "taskproof attest carry "+old[i]) {
			t.Errorf("tick %d (%s): reason %s, evidence %q, evidence_on %v, message %q; want commit_unreachable naming %s",
				i, tk.Task, tk.Reason, tk.Evidence, tk.EvidenceOn, tk.Message, old[i])
		}
	}
	text, _ := w.run(a, 1, "verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers)
	if !strings.Contains(text, "evidence for 001-greeting/T002 is on "+old[1]) || !strings.Contains(text, "attest carry") {
		t.Errorf("text report does not name the evidence commit:\n%s", text)
	}
	w.run(a, 0, "attest", "carry", "ORIG_HEAD~3..ORIG_HEAD", "HEAD~3..HEAD", "--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key)
	w.run(a, 0, "verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers)
}

// TestRebaseCopiedNotesCarryRange: with `taskproof init` a rebase copies each
// note to the new commit; the gate calls them mismatch and suggests attest
// carry; one carry over the two ranges re-attests the branch and the gate
// passes.
func TestRebaseCopiedNotesCarryRange(t *testing.T) {
	w := newWorld(t)
	a, old := rebasedBranch(t, w, true)
	text, _ := w.run(a, 1, "verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers)
	if !strings.Contains(text, "mismatch") || !strings.Contains(text, "taskproof attest carry "+old[0]) {
		t.Errorf("a copied note's mismatch does not suggest attest carry:\n%s", text)
	}
	// A single revision paired with a range is refused.
	w.run(a, 2, "attest", "carry", "ORIG_HEAD", "HEAD~3..HEAD", "--allowed-signers", w.signers)
	dry, _ := w.run(a, 0, "attest", "carry", "ORIG_HEAD~3..ORIG_HEAD", "HEAD~3..HEAD", "--allowed-signers", w.signers,
		"--signer", "ssh", "--key", w.key, "--dry-run")
	if strings.Count(dry, "would attest") != 3 {
		t.Errorf("dry run:\n%s", dry)
	}
	out, _ := w.run(a, 0, "attest", "carry", "ORIG_HEAD~3..ORIG_HEAD", "HEAD~3..HEAD", "--allowed-signers", w.signers,
		"--signer", "ssh", "--key", w.key)
	for _, id := range []string{"T001", "T002", "T003"} {
		if !strings.Contains(out, "attested 001-greeting/"+id) {
			t.Errorf("carry output lacks %s:\n%s", id, out)
		}
	}
	w.run(a, 0, "verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers)
}

// TestCarryStaleLock: an empty refs/notes/speccoder.lock left by a killed
// writer is no ref: attest carry (which lists the refs that still hold FROM)
// exits 4 naming the lock, as attest tick does, and writes nothing; once the
// lock is removed the carry runs.
func TestCarryStaleLock(t *testing.T) {
	w := newWorld(t)
	a, _ := rebasedBranch(t, w, false)
	lock := filepath.Join(a, ".git", "refs", "notes", "speccoder.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	before := testenv.Git(t, a, "rev-parse", "refs/notes/speccoder")
	carry := []string{"attest", "carry", "ORIG_HEAD~3..ORIG_HEAD", "HEAD~3..HEAD", "--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key}
	for _, args := range [][]string{carry, {"attest", "carry", "ORIG_HEAD", "HEAD", "--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key}} {
		_, stderr := w.run(a, 4, args...)
		if !strings.Contains(stderr, lock) {
			t.Errorf("carry %v does not name the lock %s:\n%s", args[2:4], lock, stderr)
		}
	}
	if after := testenv.Git(t, a, "rev-parse", "refs/notes/speccoder"); after != before {
		t.Errorf("the notes ref moved under a stale lock: %s -> %s", before, after)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	w.run(a, 0, carry...)
	w.run(a, 0, "verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers)
}

// TestCarryRangeResumes: a range carry interrupted midway — one pair's
// statements written on TO with FROM's still there, another's carried whole —
// is finished by running it again, without --force: a pair whose statements
// TO already holds is done, not a conflict; FROM's carried lines are removed
// and nothing else. A run after completion has nothing left to do (exit 0).
func TestCarryRangeResumes(t *testing.T) {
	w := newWorld(t)
	a, old := rebasedBranch(t, w, false)
	rev := func(r string) string { return strings.TrimSpace(testenv.Git(t, a, "rev-parse", r)) }
	to := []string{rev("HEAD~2"), rev("HEAD~1"), rev("HEAD")}
	sign := []string{"--allowed-signers", w.signers, "--signer", "ssh", "--key", w.key}
	// Another tool's line in FROM's note: a resumed carry keeps it.
	testenv.Git(t, a, "notes", "--ref", "speccoder", "append", "-m", "other-tool: keep me", old[0])
	// The state a carry killed after writing the first pair's TO leaves, and
	// one killed after finishing the second pair.
	w.run(a, 0, append([]string{"attest", "carry", old[0], to[0], "--keep-from"}, sign...)...)
	w.run(a, 0, append([]string{"attest", "carry", old[1], to[1]}, sign...)...)
	carry := append([]string{"attest", "carry", "ORIG_HEAD~3..ORIG_HEAD", "HEAD~3..HEAD"}, sign...)
	out, stderr := w.run(a, 0, carry...)
	for _, want := range []string{"already held 001-greeting/T001", short12(old[1]) + " -> " + short12(to[1]) + ": carried already", "attested 001-greeting/T003"} {
		if !strings.Contains(out, want) {
			t.Errorf("resumed carry does not say %q:\nstdout:\n%s\nstderr:\n%s", want, out, stderr)
		}
	}
	if note := testenv.Git(t, a, "notes", "--ref", "speccoder", "show", old[0]); strings.TrimSpace(note) != "other-tool: keep me" {
		t.Errorf("FROM's note after the resumed carry holds %q, want only the other tool's line", note)
	}
	w.run(a, 0, "verify", "--branch", "--base", "main", "HEAD", "--allowed-signers", w.signers)
	out, _ = w.run(a, 0, carry...)
	if strings.Count(out, "carried already") != 3 {
		t.Errorf("a carry run after completion:\n%s", out)
	}
}

// short12 is the 12-digit abbreviation the reports print.
func short12(h string) string { return h[:12] }
