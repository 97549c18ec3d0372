package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
)

// forgeTV replaces, in repo's note of commit, the task-verification statement
// by a copy whose predicate time is when, signed with key (an untrusted
// one), or keeping the original signatures over the changed payload when key
// is "": what any clone with push access to the notes ref can write.
func forgeTV(t *testing.T, repo, commit, key string, when time.Time) {
	t.Helper()
	note := testenv.Git(t, repo, "notes", "--ref=refs/notes/speccoder", "show", commit)
	var out []byte
	for _, l := range noteline.Split([]byte(note)) {
		st, payload, ok := statement.FromLine(l)
		if ok && st.PredicateType == predicate.PredicateType {
			v, err := strictjson.Decode(payload, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := v.(map[string]any)
			m["predicate"].(map[string]any)["time"] = when.UTC().Format(time.RFC3339)
			b, err := strictjson.Canonical(m)
			if err != nil {
				t.Fatal(err)
			}
			env := noteline.Decode(l).Envelope
			if key != "" {
				s, err := signer.Load(signer.KindSSH, key, nil)
				if err != nil {
					t.Fatal(err)
				}
				if env, err = signer.Sign(t.Context(), b, s); err != nil {
					t.Fatal(err)
				}
			} else {
				env.Payload = b
			}
			if l, err = env.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		}
		out = append(append(out, l...), '\n')
	}
	file := filepath.Join(t.TempDir(), "note")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Git(t, repo, "notes", "--ref=refs/notes/speccoder", "add", "-f", "-F", file, commit)
}

// TestNotesMergeKeepsTrustedStatement: a clone with push access rewrites
// alice's statement of T001 — re-signed with an untrusted key and a time in
// 2099, or keeping alice's signature over the changed payload — and pushes
// it. alice re-issues her statement (attest tick --force) and pushes; bob,
// whose notes still hold the rewritten statement and his own work, pushes a
// divergent merge. The merge keeps alice's statement: a time beyond the
// clock skew never wins, a signature that does not verify over its payload
// does not count as signed (and is never named as alice's), and with trust
// a statement it credits wins over one it does not, whatever the times. The
// gate passes T001 in alice's clone after she fetches.
func TestNotesMergeKeepsTrustedStatement(t *testing.T) {
	kg := testenv.LookPath(t, "ssh-keygen")
	for _, tc := range []struct {
		name    string
		forged  string        // "untrusted": re-signed by mallory; "broken": alice's signature kept
		future  time.Duration // the forged time, from now
		trusted bool          // bob pushes with --allowed-signers
		rule    string
	}{
		{"untrusted key, time 2099", "untrusted", 73 * 365 * 24 * time.Hour, false, notemerge.RuleTime},
		{"signature over another payload", "broken", time.Minute, false, notemerge.RuleSigned},
		{"untrusted key, bob trusts alice", "untrusted", 2 * time.Minute, true, notemerge.RuleTrusted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			a := w.seed()
			w.run(a, 0, "init")
			x := w.tick(a, "T001")
			testenv.Git(t, a, "push", "-q", "origin", "HEAD:main")
			w.attest(a, x)
			w.run(a, 0, "notes", "push")

			mallory := filepath.Join(w.dir, "mallory")
			if out, err := exec.Command(kg, "-q", "-t", "ed25519", "-N", "", "-C", "mallory", "-f", mallory).CombinedOutput(); err != nil {
				t.Fatalf("ssh-keygen: %v\n%s", err, out)
			}
			c := w.clone("c")
			w.run(c, 0, "init")
			w.run(c, 0, "notes", "fetch")
			key := mallory
			if tc.forged == "broken" {
				key = ""
			}
			// Every forged time is later than alice's re-issue: the later
			// time alone would keep the forgery.
			forgeTV(t, c, x, key, time.Now().Add(tc.future))
			w.run(c, 0, "notes", "push")

			b := w.clone("b")
			w.run(b, 0, "init")
			w.run(b, 0, "notes", "fetch")
			testenv.Git(t, b, "pull", "-q", "origin", "main")
			y := w.tick(b, "T002")
			w.attest(b, y)

			w.run(a, 0, "notes", "fetch")
			w.run(a, 0, "attest", "tick", "--commit", x, "--force", "--verdict", "regression_only",
				"--regression-reason", "planning_work", "--signer", "ssh", "--key", w.key)
			w.run(a, 0, "notes", "push")

			args := []string{"notes", "push"}
			if tc.trusted {
				args = append(args, "--allowed-signers", w.signers)
			}
			_, stderr := w.run(b, 0, args...)
			if !strings.Contains(stderr, "001-greeting/T001") || !strings.Contains(stderr, notemerge.RuleText(tc.rule)) {
				t.Errorf("bob's push does not keep alice's statement by %q:\n%s", tc.rule, stderr)
			}
			if tc.forged == "broken" && !strings.Contains(stderr, "(signature does not verify)") {
				t.Errorf("bob's push names the broken signature as a signer:\n%s", stderr)
			}

			w.run(a, 0, "notes", "fetch")
			out, _ := w.run(a, 0, "verify", x, "--allowed-signers", w.signers)
			if !strings.Contains(out, "T001") {
				t.Errorf("alice's gate after the merge:\n%s", out)
			}
		})
	}
}
