package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestCompletionValues runs the binary's completion requests (what the
// shell scripts of taskproof completion ask) in a repository with a branch,
// a tag and a remote: flag values and arguments complete to the words they
// take, revisions to the names the strict reading of revisions accepts.
func TestCompletionValues(t *testing.T) {
	r := newCLIRepo(t)
	testenv.Git(t, r.dir, "branch", "feat/x", r.c1)
	testenv.Git(t, r.dir, "tag", "v1", r.c0)
	testenv.Git(t, r.dir, "remote", "add", "upstream", t.TempDir())
	testenv.Git(t, r.dir, "update-ref", "refs/remotes/upstream/main", r.c2)
	complete := func(args ...string) []string {
		t.Helper()
		stdout, stderr, code := r.taskproof(t, nil, append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			if !strings.HasPrefix(l, ":") {
				word, _, _ := strings.Cut(l, "\t")
				out = append(out, word)
			}
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"verify", "--format", ""}, []string{"text", "json", "sarif", "github", "junit"}},
		{[]string{"audit", "--format", "c"}, []string{"csv"}},
		{[]string{"attest", "tick", "--verdict", ""}, []string{"verified", "regression_only"}},
		{[]string{"attest", "decide", "--verdict", ""}, []string{"attested", "skipped"}},
		{[]string{"attest", "tick", "--regression-reason", "no_"}, []string{"no_scenarios:story=", "no_story"}},
		{[]string{"attest", "tick", "--regression-reason", "not_red:red_class=bu"}, []string{"not_red:red_class=build_error"}},
		{[]string{"attest", "tick", "--signer", "s"}, []string{"ssh", "sigstore"}},
		{[]string{"verify", "--branch", "--base", ""}, []string{"HEAD", "feat/x", "main", "upstream/main", "tags/v1"}},
		{[]string{"verify", "--base", "up"}, []string{"upstream/main"}},
		{[]string{"verify", "main..f"}, []string{"main..feat/x"}},
		{[]string{"attest", "tick", "--commit", "fe"}, []string{"feat/x"}},
		{[]string{"verify", "--allowed-signers-rev", "ma"}, []string{"main:"}},
		{[]string{"verify", "--policy-rev", "main:specs/001-cli/t"}, []string{"main:specs/001-cli/tasks.md"}},
		{[]string{"notes", "push", ""}, []string{"upstream"}},
		{[]string{"init", "--remote", "u"}, []string{"upstream"}},
		{[]string{"help", "no"}, []string{"notes"}},
		{[]string{"attest", "tick", "--commit", r.c1, "--task", ""}, []string{"T001", "T002"}},
		{[]string{"attest", "decide", "--commit", r.c3, "--task", "T"}, []string{"T003"}},
	} {
		if got := complete(tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("__complete %q = %q, want %q", tc.args, got, tc.want)
		}
	}
}
