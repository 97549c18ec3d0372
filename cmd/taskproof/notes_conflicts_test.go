package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestNotesConflictsOncePerClone: alice and bob attest T001 on X with other
// regression reasons and keys; bob's merge keeps one side, saying which fields
// differ and which rule chose. A clone made afterwards is told of the
// displaced statement at its first fetch only; it lists it with `notes
// conflicts`, acknowledges it with --resolve and pushes: a clone made after
// that is not told at all, and `notes conflicts --all` shows who
// acknowledged it. A selector naming nothing is exit 2.
func TestNotesConflictsOncePerClone(t *testing.T) {
	f := newSyncFixture(t)
	w := f.w
	alice, bob := f.clone("alice"), f.clone("bob")
	w.run(alice, 0, "notes", "push")
	_, stderr := w.run(bob, 0, "notes", "fetch")
	for _, want := range []string{f.x[:12] + " 001-greeting/T001: your notes and origin's attest this task differently",
		"reason: ", "signer: ", "(yours)", "(origin's)", "statements, because ", "(every clone makes the same choice)",
		"moved to refs/notes/speccoder-conflicts", "taskproof notes conflicts"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("bob's fetch does not say %q:\n%s", want, stderr)
		}
	}
	w.run(bob, 0, "notes", "push")

	newClone := func(name string) string {
		d := w.clone(name)
		w.run(d, 0, "init")
		return d
	}
	dave := newClone("dave")
	_, stderr = w.run(dave, 0, "notes", "fetch")
	if strings.Count(stderr, "was displaced by a conflicting one when another clone merged") != 1 ||
		!strings.Contains(stderr, "reason: ") || !strings.Contains(stderr, "kept, because ") || !strings.Contains(stderr, "taskproof notes conflicts --resolve ") {
		t.Errorf("dave's first fetch:\n%s", stderr)
	}
	if _, stderr = w.run(dave, 0, "notes", "fetch"); strings.Contains(stderr, "displaced") {
		t.Errorf("dave's second fetch reports it again:\n%s", stderr)
	}

	type listed struct {
		Displaced []struct {
			Commit  string   `json:"commit"`
			Subject string   `json:"subject"`
			Differs []string `json:"differs"`
			Rule    string   `json:"rule"`
			Kept    *struct {
				Reason string `json:"reason"`
			} `json:"kept"`
			Acknowledged *struct{ By, Time string } `json:"acknowledged"`
		} `json:"displaced"`
	}
	list := func(repo string, args ...string) listed {
		t.Helper()
		out, _ := w.run(repo, 0, append([]string{"notes", "conflicts", "--format", "json"}, args...)...)
		var l listed
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatalf("notes conflicts --format json: %v\n%s", err, out)
		}
		return l
	}
	l := list(dave)
	if len(l.Displaced) != 1 || l.Displaced[0].Commit != f.x || l.Displaced[0].Subject != "001-greeting/T001" || l.Displaced[0].Kept == nil ||
		!strings.Contains(strings.Join(l.Displaced[0].Differs, ","), "reason") || l.Displaced[0].Rule == "" || l.Displaced[0].Acknowledged != nil {
		t.Fatalf("dave's conflicts: %+v", l)
	}
	w.run(dave, 2, "notes", "conflicts", "--resolve", "0123456789abc")
	out, _ := w.run(dave, 0, "notes", "conflicts", "--resolve", f.x[:10])
	if !strings.Contains(out, "acknowledged "+f.x[:12]+" 001-greeting/T001") || !strings.Contains(out, "taskproof notes push") {
		t.Errorf("notes conflicts --resolve:\n%s", out)
	}
	if l := list(dave); len(l.Displaced) != 0 {
		t.Errorf("acknowledged, still listed: %+v", l)
	}
	w.run(dave, 0, "notes", "push")

	erin := newClone("erin")
	if _, stderr = w.run(erin, 0, "notes", "fetch"); strings.Contains(stderr, "displaced") {
		t.Errorf("a clone made after the acknowledgement is told:\n%s", stderr)
	}
	l = list(erin, "--all")
	if len(l.Displaced) != 1 || l.Displaced[0].Acknowledged == nil || l.Displaced[0].Acknowledged.Time == "" {
		t.Errorf("erin's conflicts --all: %+v", l)
	}
	if ref := strings.TrimSpace(testenv.Git(t, filepath.Join(f.dir, "remote.git"), "rev-parse", "refs/notes/speccoder-conflicts")); ref == "" {
		t.Error("the remote has no conflicts ref")
	}
}
