package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// twoStatementsPushed builds a remote whose notes ref went from n1, alice's
// T001 statement (on commit t1), to n2, with bob's T002 statement (on t2)
// added; alice, on the same main, has fetched both.
func twoStatementsPushed(t *testing.T) (w *world, alice, bob, t1, t2, n1, n2 string) {
	t.Helper()
	w = newWorld(t)
	remoteNotes := func() string {
		return strings.TrimSpace(testenv.Git(t, w.remote, "rev-parse", "refs/notes/speccoder"))
	}
	alice = w.seed()
	w.run(alice, 0, "init")
	t1 = w.tick(alice, "T001")
	w.attest(alice, t1)
	testenv.Git(t, alice, "push", "-q", "origin", "HEAD:main")
	w.run(alice, 0, "notes", "push")
	n1 = remoteNotes()
	bob = w.clone("bob")
	w.run(bob, 0, "init")
	t2 = w.tick(bob, "T002")
	w.attest(bob, t2)
	testenv.Git(t, bob, "push", "-q", "origin", "HEAD:main")
	w.run(bob, 0, "notes", "push")
	n2 = remoteNotes()
	testenv.Git(t, alice, "pull", "-q", "--ff-only", "origin", "main")
	w.run(alice, 0, "notes", "fetch")
	return w, alice, bob, t1, t2, n1, n2
}

// TestNotesRollbackAfterPlainFetches: someone rolls the remote's notes ref
// back to a commit before bob's T002 statement and pushes a new notes commit
// on top of it; alice, who had fetched T002, runs zero, one or two plain
// `git fetch`es in between (the first forces her tracking ref over the
// rollback, the second fast-forwards it). Whatever git fetch did, notes fetch
// and notes push name the rewrite, the commit alice saw last and T002's
// statement; fetch keeps warning until push puts it back; alice's notes keep
// it throughout.
func TestNotesRollbackAfterPlainFetches(t *testing.T) {
	for _, tc := range []struct {
		gitFetches int
		fetchFirst bool // notes fetch before notes push
	}{{0, true}, {1, true}, {2, true}, {2, false}, {1, false}} {
		t.Run(fmt.Sprintf("git-fetch-%d-fetch-first-%v", tc.gitFetches, tc.fetchFirst), func(t *testing.T) {
			w, alice, _, t1, t2, n1, n2 := twoStatementsPushed(t)
			noteOf := func(repo, commit string) string {
				return strings.TrimSpace(testenv.Git(t, repo, "notes", "--ref", "speccoder", "show", commit))
			}
			bobLine := noteOf(alice, t2)

			// Carol rolls the remote back to n1, then adds her T003 on top.
			carol := w.clone("carol")
			testenv.Git(t, carol, "push", "-q", "-f", "origin", n1+":refs/notes/speccoder")
			if tc.gitFetches > 0 {
				testenv.Git(t, alice, "fetch", "-q", "origin") // the tracking ref: forced to n1
			}
			testenv.Git(t, carol, "fetch", "-q", "origin", "+refs/notes/speccoder:refs/notes/speccoder")
			t3 := w.tick(carol, "T003")
			w.attest(carol, t3)
			testenv.Git(t, carol, "push", "-q", "origin", "HEAD:main", "refs/notes/speccoder:refs/notes/speccoder")
			if tc.gitFetches > 1 {
				// Fast-forwarded on top of the rollback; pruning touches no record.
				testenv.Git(t, alice, "fetch", "-q", "--prune", "origin")
			}
			named := func(op, stderr string, want ...string) {
				t.Helper()
				for _, s := range append([]string{"origin's refs/notes/speccoder was rewritten by someone else", n2[:12], t2[:12], "001-greeting/T002"}, want...) {
					if !strings.Contains(stderr, s) {
						t.Errorf("notes %s does not say %q:\n%s", op, s, stderr)
					}
				}
				if strings.Contains(stderr, "001-greeting/T001") || strings.Contains(stderr, "001-greeting/T003") || strings.Contains(stderr, "001-greeting/T004") {
					t.Errorf("notes %s names statements the remote still holds:\n%s", op, stderr)
				}
			}
			if tc.fetchFirst {
				_, stderr := w.run(alice, 0, "notes", "fetch")
				named("fetch", stderr, "missing there", "taskproof notes push origin")
				// Still missing upstream: the next fetch says so again, even
				// after carol pushed on top and a git fetch fast-forwarded
				// the tracking ref once more.
				t4 := w.tick(carol, "T004")
				w.attest(carol, t4)
				testenv.Git(t, carol, "push", "-q", "origin", "HEAD:main", "refs/notes/speccoder:refs/notes/speccoder")
				testenv.Git(t, alice, "fetch", "-q", "origin")
				_, stderr = w.run(alice, 0, "notes", "fetch")
				named("fetch (again)", stderr, "missing there")
				if got := noteOf(alice, t2); got != bobLine {
					t.Errorf("alice's note of T002 after the fetches: %q, want bob's line", got)
				}
			}
			out, stderr := w.run(alice, 0, "notes", "push", "--format", "json")
			named("push", stderr, "pushed back 2 line(s)")
			var rep struct {
				Result struct {
					Rewritten *struct {
						Previous   string `json:"previous"`
						Now        string `json:"now"`
						PushedBack bool   `json:"pushed_back"`
					} `json:"rewritten"`
				} `json:"result"`
				Missing []struct {
					Commit string `json:"commit"`
				} `json:"missing_upstream"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("notes push report: %v\n%s", err, out)
			}
			if rw := rep.Result.Rewritten; rw == nil || rw.Previous != n2 || !rw.PushedBack || len(rep.Missing) != 1 || rep.Missing[0].Commit != t2 {
				t.Errorf("notes push JSON: rewritten %+v (want previous %s, pushed back), missing_upstream %+v", rw, n2, rep.Missing)
			}
			check := w.clone("check")
			testenv.Git(t, check, "fetch", "-q", "origin", "refs/notes/speccoder:refs/notes/speccoder")
			for _, c := range []string{t1, t2, t3} {
				if noteOf(check, c) == "" {
					t.Errorf("after the push the remote has no note of %s", c)
				}
			}
			if got := noteOf(check, t2); got != bobLine {
				t.Errorf("the remote's note of T002 after the push: %q, want bob's line", got)
			}
			// Put back: neither a fetch nor a plain git fetch and a fetch warn again.
			if _, stderr := w.run(alice, 0, "notes", "fetch"); strings.Contains(stderr, "rewritten") {
				t.Errorf("notes fetch after the push back still warns:\n%s", stderr)
			}
			testenv.Git(t, alice, "fetch", "-q", "origin")
			if _, stderr := w.run(alice, 0, "notes", "fetch"); strings.Contains(stderr, "rewritten") {
				t.Errorf("notes fetch after the push back and a git fetch warns:\n%s", stderr)
			}
		})
	}
}

// TestNotesRollbackRestoredElsewhere: after a rollback alice's notes fetch
// names bob's lost T002 statement and keeps warning; bob, who never ran a
// plain git fetch either, pushes it back himself (his push names the
// rewrite too). Alice's next fetch has nothing to say and forgets the
// rewrite.
func TestNotesRollbackRestoredElsewhere(t *testing.T) {
	w, alice, bob, _, t2, n1, _ := twoStatementsPushed(t)

	testenv.Git(t, w.remote, "update-ref", "refs/notes/speccoder", n1) // the rollback
	testenv.Git(t, alice, "fetch", "-q", "origin")
	pending := "refs/speccoder/remotes/origin/rewritten/speccoder"
	if _, stderr := w.run(alice, 0, "notes", "fetch"); !strings.Contains(stderr, "was rewritten by someone else") || !strings.Contains(stderr, t2[:12]) {
		t.Fatalf("notes fetch after the rollback does not name it:\n%s", stderr)
	}
	held := func() string {
		return strings.TrimSpace(testenv.Git(t, alice, "for-each-ref", "--format=%(objectname)", pending))
	}
	if held() == "" {
		t.Errorf("after naming the rewrite alice's clone has no %s", pending)
	}
	if _, stderr := w.run(bob, 0, "notes", "push"); !strings.Contains(stderr, "was rewritten by someone else") || !strings.Contains(stderr, "pushed back 2 line(s)") {
		t.Errorf("bob's notes push does not name the rollback it repaired:\n%s", stderr)
	}
	if _, stderr := w.run(alice, 0, "notes", "fetch"); strings.Contains(stderr, "rewritten") {
		t.Errorf("notes fetch after bob put T002 back still warns:\n%s", stderr)
	}
	if h := held(); h != "" {
		t.Errorf("%s is still there (%s) after the lines were put back", pending, h)
	}
}

// TestNotesSquashedRemoteNamedAlike: someone replaces the remote's notes
// history with one squashed commit holding the same notes, then pushes on
// top. Nothing of alice's is missing, yet the history she saw is gone:
// notes fetch says so, with "no line of your notes is missing there", the
// same whether she ran no plain git fetch in between or two.
func TestNotesSquashedRemoteNamedAlike(t *testing.T) {
	for _, gitFetches := range []int{0, 2} {
		t.Run(fmt.Sprintf("git-fetch-%d", gitFetches), func(t *testing.T) {
			w, alice, _, _, _, _, n2 := twoStatementsPushed(t)
			carol := w.clone("carol")
			testenv.Git(t, carol, "fetch", "-q", "origin", "refs/notes/speccoder:refs/notes/speccoder")
			squashed := strings.TrimSpace(testenv.Git(t, carol, "commit-tree", "-m", "squash the notes", n2+"^{tree}"))
			testenv.Git(t, carol, "update-ref", "refs/notes/speccoder", squashed)
			testenv.Git(t, carol, "push", "-q", "-f", "origin", "refs/notes/speccoder:refs/notes/speccoder")
			if gitFetches > 0 {
				testenv.Git(t, alice, "fetch", "-q", "origin")
			}
			t3 := w.tick(carol, "T003")
			w.attest(carol, t3)
			testenv.Git(t, carol, "push", "-q", "origin", "HEAD:main", "refs/notes/speccoder:refs/notes/speccoder")
			if gitFetches > 1 {
				testenv.Git(t, alice, "fetch", "-q", "origin")
			}
			_, stderr := w.run(alice, 0, "notes", "fetch")
			for _, want := range []string{"was rewritten by someone else", n2[:12], "no line of your notes is missing there"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("notes fetch does not say %q:\n%s", want, stderr)
				}
			}
			// Named once: nothing of alice's is pending.
			if _, stderr := w.run(alice, 0, "notes", "fetch"); strings.Contains(stderr, "rewritten") {
				t.Errorf("the second notes fetch names the squash again:\n%s", stderr)
			}
		})
	}
}
