package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestNotesRemoteRewritten: someone else force-pushes the remote's notes ref
// — first a new history holding only their statement, then a rollback to a
// notes commit before alice's — and alice is told each time: notes fetch
// names the rewrite and the statements of hers missing upstream (kept in her
// notes), notes push names the ones it pushed back; nobody's statements are
// lost.
func TestNotesRemoteRewritten(t *testing.T) {
	w := newWorld(t)
	alice := w.seed()
	w.run(alice, 0, "init")
	t1 := w.tick(alice, "T001")
	w.attest(alice, t1)
	testenv.Git(t, alice, "push", "-q", "origin", "HEAD:main")
	w.run(alice, 0, "notes", "push")
	noteOf := func(repo, ref, commit string) string {
		return strings.TrimSpace(testenv.Git(t, repo, "notes", "--ref", ref, "show", commit))
	}
	aliceLine := noteOf(alice, "speccoder", t1)

	// Eve replaces the remote's notes with a new history of her own.
	eve := w.clone("eve")
	w.run(eve, 0, "init")
	t2 := w.tick(eve, "T002")
	w.attest(eve, t2)
	testenv.Git(t, eve, "push", "-q", "origin", "HEAD:main")
	testenv.Git(t, eve, "push", "-q", "-f", "origin", "refs/notes/speccoder:refs/notes/speccoder")
	eveLine := noteOf(eve, "speccoder", t2)

	_, stderr := w.run(alice, 0, "notes", "fetch")
	for _, want := range []string{"origin's refs/notes/speccoder was rewritten by someone else", "missing there", "001-greeting/T001", t1[:12], "taskproof notes push origin"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("notes fetch after a new history does not say %q:\n%s", want, stderr)
		}
	}
	if got := noteOf(alice, "speccoder", t1); got != aliceLine {
		t.Errorf("alice's note after the fetch: %q, want her line", got)
	}
	out, stderr := w.run(alice, 0, "notes", "push", "--format", "json")
	if !strings.Contains(stderr, "pushed back 2 line(s)") || !strings.Contains(stderr, "001-greeting/T001") {
		t.Errorf("notes push does not name what it pushed back:\n%s", stderr)
	}
	var rep struct {
		Result struct {
			Rewritten *struct {
				Previous   string `json:"previous"`
				PushedBack bool   `json:"pushed_back"`
			} `json:"rewritten"`
		} `json:"result"`
		Missing []struct {
			Commit  string `json:"commit"`
			Subject string `json:"subject"`
		} `json:"missing_upstream"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("notes push report: %v\n%s", err, out)
	}
	if rep.Result.Rewritten == nil || !rep.Result.Rewritten.PushedBack || len(rep.Missing) != 1 || rep.Missing[0].Commit != t1 {
		t.Errorf("notes push JSON: rewritten %+v, missing_upstream %+v", rep.Result.Rewritten, rep.Missing)
	}
	checks := 0
	upstream := func() (string, string) { // the remote's notes of t1 and t2
		checks++
		check := w.clone(fmt.Sprintf("check%d", checks))
		testenv.Git(t, check, "fetch", "-q", "origin", "refs/notes/speccoder:refs/notes/speccoder")
		return noteOf(check, "speccoder", t1), noteOf(check, "speccoder", t2)
	}
	if a, e := upstream(); a != aliceLine || e != eveLine {
		t.Errorf("after the push the remote holds %q and %q, want both statements", a, e)
	}

	// Eve rolls the remote back to her own commit; alice runs a plain `git
	// fetch` first (which mirrors the forced update into the tracking ref),
	// then notes push.
	testenv.Git(t, eve, "push", "-q", "-f", "origin", "refs/notes/speccoder:refs/notes/speccoder")
	testenv.Git(t, alice, "fetch", "-q", "origin")
	_, stderr = w.run(alice, 0, "notes", "push")
	if !strings.Contains(stderr, "was rewritten by someone else") || !strings.Contains(stderr, "pushed back 2 line(s)") {
		t.Errorf("notes push after a rollback does not name it:\n%s", stderr)
	}
	if a, e := upstream(); a != aliceLine || e != eveLine {
		t.Errorf("after the rollback and push the remote holds %q and %q, want both statements", a, e)
	}
	// Once pushed back, a fetch has nothing to say.
	if _, stderr := w.run(alice, 0, "notes", "fetch"); strings.Contains(stderr, "rewritten") {
		t.Errorf("notes fetch after the push back still warns:\n%s", stderr)
	}
}
