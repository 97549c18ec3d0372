package main

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestWritersRefuseReplacing: `attest decide` (attested over a tick's signed
// statements, skipped over an existing skip record) and `attest carry` onto a
// commit whose note holds statements for the task refuse, naming what they
// would replace and leaving the note and ref as they were, unless --force
// (docs/format.md#attesting-safely).
func TestWritersRefuseReplacing(t *testing.T) {
	r := newCLIRepo(t)
	key, fp := sshKeyFile(t, "")
	tickArgs := func(c string) []string {
		return []string{"attest", "tick", "--commit", c, "--task", "T001", "--verdict", "regression_only",
			"--regression-reason", "planning_work", "--signer", "ssh", "--key", key}
	}
	mustRun := func(what string, args ...string) {
		t.Helper()
		if _, stderr, code := r.taskproof(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", what, code, stderr)
		}
	}
	refused := func(what, subject string, unchanged func() string, args ...string) {
		t.Helper()
		before := unchanged()
		_, stderr, code := r.taskproof(t, nil, args...)
		for _, want := range []string{"already holds statements for " + subject, "signed by " + fp, "--force"} {
			if code != 2 || !strings.Contains(stderr, want) {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 mentioning %q", what, code, stderr, want)
			}
		}
		if after := unchanged(); after != before {
			t.Errorf("%s: a refused write changed what it would replace:\nbefore %q\nafter  %q", what, before, after)
		}
		if !t.Failed() {
			mustRun(what+" --force", append(args, "--force")...)
		}
	}
	noteOf := func(c string) func() string { return func() string { return r.note(t, c) } }

	mustRun("attest tick", tickArgs(r.c1)...)
	decide := []string{"attest", "decide", "--commit", r.c1, "--task", "T001", "--verdict", "attested",
		"--by", "bob", "--reason", "meh", "--signer", "ssh", "--key", key}
	refused("decide attested", "001-cli/T001 (verdict regression_only", noteOf(r.c1), decide...)
	if envs := envelopes(t, r.note(t, r.c1)); len(envs) != 1 || !strings.Contains(string(envs[0].Payload), `"by":"bob"`) {
		t.Errorf("decide --force: note = %+v, want bob's decision alone", envs)
	}
	// The other ticked task of the commit is decided without --force.
	mustRun("decide attested T002", "attest", "decide", "--commit", r.c1, "--task", "T002", "--verdict", "attested",
		"--by", "bob", "--reason", "read it", "--signer", "ssh", "--key", key)

	const skipRef = "refs/speccoder/skipped/001-cli/T004"
	skip := []string{"attest", "decide", "--commit", r.c1, "--task", "T004", "--verdict", "skipped",
		"--by", "ada", "--reason", "not needed", "--signer", "ssh", "--key", key}
	mustRun("first skip", skip...)
	// The same decision again is held (docs/format.md#the-same-statement);
	// another reason is another decision.
	mustRun("the same skip again", skip...)
	skip[len(skip)-5] = "no longer needed"
	refused("second skip", "001-cli/T004", func() string { return strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", skipRef)) }, skip...)

	// A cherry-pick of c1 onto another commit, attested there too: carrying c1's statements
	// onto it would replace them.
	testenv.Git(t, r.dir, "switch", "-q", "-c", "picked", r.c0)
	vfWrite(t, r.dir+"/OTHER", "other\n")
	testenv.Git(t, r.dir, "add", "OTHER")
	testenv.Git(t, r.dir, "commit", "-q", "-m", "other")
	testenv.Git(t, r.dir, "cherry-pick", r.c1)
	picked := strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "HEAD"))
	mustRun("attest tick of the pick", tickArgs(picked)...)
	refused("carry", "001-cli/T001", noteOf(picked), "attest", "carry", r.c1, picked, "--keep-from",
		"--insecure-skip-verify", "--signer", "ssh", "--key", key)
}
