package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
