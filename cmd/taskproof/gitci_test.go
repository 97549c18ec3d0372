package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// runFull runs the taskproof binary in the repository and returns its stdout,
// stderr and exit code.
func (r *ciRepo) runFull(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(r.bin, append([]string{"-C", r.dir}, args...)...)
	for _, kv := range testenv.GitEnv() {
		if !strings.HasPrefix(kv, "GITHUB_STEP_SUMMARY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// gitIn runs the real git in dir with stdin and returns its trimmed stdout.
func gitIn(t *testing.T, dir string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command(testenv.LookPath(t, "git"), args...)
	cmd.Dir, cmd.Env = dir, testenv.GitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("git %v: %v\n%s", args, err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// TestVerifyNoteBomb: a note whose blob inflates to 64 MiB (a loose object of
// a few KiB, as `git hash-object -w` or a fetch leaves it) on a tick of the
// range, and another on a commit outside it, are refused as note_malformed
// (over the 4 MiB note limit); the attested tick beside them is evidenced.
func TestVerifyNoteBomb(t *testing.T) {
	r := newCIRepo(t)
	bomb := gitIn(t, r.dir, make([]byte, 64<<20), "hash-object", "-w", "--stdin")
	testenv.Git(t, r.dir, "notes", "--ref", "speccoder", "add", "-f", "-C", bomb, r.t004)
	testenv.Git(t, r.dir, "notes", "--ref", "speccoder", "add", "-f", "-C", bomb, "main")

	out, stderr, code := r.runFull(t, nil, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "json")
	if code != 1 {
		t.Fatalf("verify --branch: exit %d, want 1\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{`"note_malformed"`, "over the limit of 4194304", r.t004, `"evidenced"`, r.t001} {
		if !strings.Contains(out, want) {
			t.Errorf("verify --branch report lacks %q:\n%s", want, out)
		}
	}

	out, stderr, code = r.runFull(t, nil, "verify", "--allowed-signers", r.allowed, r.t004)
	if code != 1 || !strings.Contains(out, "malformed") || !strings.Contains(out, "over the limit") {
		t.Fatalf("verify %s: exit %d, want 1 and a malformed note over the limit\n%s\n%s", r.t004, code, out, stderr)
	}

	// audit --all reads every note of the ref: the bombs are listed as problems.
	out, stderr, code = r.runFull(t, nil, "audit", "--all", "--allowed-signers", r.allowed)
	if code != 0 || strings.Count(out, "over the limit of 4194304") != 2 {
		t.Fatalf("audit --all: exit %d, want 0 listing both bombs over the limit\n%s\n%s", code, out, stderr)
	}
}

// attestedCIRepo is newCIRepo with T004 attested too: every tick of the
// branch evidenced, so the gate passes on a full clone.
func attestedCIRepo(t *testing.T) *ciRepo {
	t.Helper()
	r := newCIRepo(t)
	key := filepath.Join(filepath.Dir(r.allowed), "id_ed25519")
	if out, code := r.run(t, nil, "attest", "tick", "--signer", "ssh", "--key", key, "--verdict", "regression_only", "--regression-reason", "planning_work"); code != 0 {
		t.Fatalf("attest tick T004: exit %d\n%s", code, out)
	}
	return r
}

// clone clones r's repository from a file:// URL (as CI does over the
// network) with git's extra arguments, fetches the notes, and returns a ciRepo
// for the clone.
func (r *ciRepo) clone(t *testing.T, args ...string) *ciRepo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clone")
	testenv.Git(t, "", append(append([]string{"clone", "-q"}, args...), "file://"+r.dir, dir)...)
	testenv.Git(t, dir, "fetch", "-q", "origin", "refs/notes/speccoder:refs/notes/speccoder")
	c := *r
	c.dir = dir
	return &c
}

// wantPrecondition checks a run exited 4 (never 5, never a verdict) with a
// message holding each of wants.
func wantPrecondition(t *testing.T, what, stdout, stderr string, code int, wants ...string) {
	t.Helper()
	if code != 4 {
		t.Fatalf("%s: exit %d, want 4 (git precondition)\nstdout:\n%s\nstderr:\n%s", what, code, stdout, stderr)
	}
	for _, w := range wants {
		if !strings.Contains(stderr, w) {
			t.Errorf("%s: stderr lacks %q:\n%s", what, w, stderr)
		}
	}
	for _, bad := range []string{"mismatch", "internal error", "evidenced"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("%s: stdout says %q, want no verdict:\n%s", what, bad, stdout)
		}
	}
}

// TestVerifyShallowClone: in a shallow clone (actions/checkout's default,
// `git clone --depth 1`) a valid attestation is not called a mismatch and the
// gate does not exit 5: both exit 4 naming fetch-depth: 0 and git fetch
// --unshallow. Where the range is complete (a depth-2 clone holding both
// ticks and their parents), the gate verifies it; after --unshallow it passes.
func TestVerifyShallowClone(t *testing.T) {
	r := attestedCIRepo(t)
	full := r.clone(t)
	if out, stderr, code := full.runFull(t, nil, "verify", "--branch", "--base", "origin/main", "--allowed-signers", r.allowed); code != 0 {
		t.Fatalf("full clone: verify --branch: exit %d, want 0\n%s\n%s", code, out, stderr)
	}

	sh := r.clone(t, "--depth", "1", "--no-single-branch")
	if _, err := os.Stat(filepath.Join(sh.dir, ".git", "shallow")); err != nil {
		t.Fatalf("git clone --depth 1 made no .git/shallow: %v", err)
	}
	hints := []string{"shallow clone", "git fetch --unshallow", "fetch-depth: 0"}
	out, stderr, code := sh.runFull(t, nil, "verify", "--allowed-signers", r.allowed, "HEAD")
	wantPrecondition(t, "depth 1: verify HEAD", out, stderr, code, append(hints, r.t004)...)
	out, stderr, code = sh.runFull(t, nil, "verify", "--branch", "--base", "origin/main", "--allowed-signers", r.allowed)
	wantPrecondition(t, "depth 1: verify --branch", out, stderr, code, hints...)
	out, stderr, code = sh.runFull(t, nil, "verify", "--branch", "--base", r.t001, "--allowed-signers", r.allowed, "--format", "json")
	wantPrecondition(t, "depth 1: verify --branch --base (a commit not fetched)", out, stderr, code, hints...)

	two := r.clone(t, "--depth", "2", "--no-single-branch")
	out, stderr, code = two.runFull(t, nil, "verify", "--branch", "--base", "origin/main", "--allowed-signers", r.allowed, "--format", "json")
	if code != 0 || strings.Count(out, `"status": "evidenced"`) != 2 {
		t.Fatalf("depth 2 (the range and its parents fetched): exit %d, want 0 with 2 evidenced ticks\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = two.runFull(t, nil, "verify", "--allowed-signers", r.allowed, r.t001)
	if code != 0 {
		t.Fatalf("depth 2: verify %s (its parent fetched): exit %d, want 0\n%s\n%s", r.t001, code, out, stderr)
	}

	testenv.Git(t, sh.dir, "fetch", "-q", "--unshallow")
	if out, stderr, code := sh.runFull(t, nil, "verify", "--branch", "--base", "origin/main", "--allowed-signers", r.allowed); code != 0 {
		t.Fatalf("after git fetch --unshallow: exit %d, want 0\n%s\n%s", code, out, stderr)
	}
}

// TestVerifyNotesRefNotCommit: a notes ref pointing at a blob, a tree or an
// annotated tag (set with git update-ref) is exit 4 naming the ref.
func TestVerifyNotesRefNotCommit(t *testing.T) {
	r := attestedCIRepo(t)
	notes := strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "refs/notes/speccoder"))
	testenv.Git(t, r.dir, "tag", "-a", "-m", "notes", "notes-tag", notes)
	targets := map[string]string{
		"blob": gitIn(t, r.dir, []byte("not notes\n"), "hash-object", "-w", "--stdin"),
		"tree": strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "HEAD^{tree}")),
		"tag":  strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "notes-tag")),
	}
	for kind, id := range targets {
		testenv.Git(t, r.dir, "update-ref", "refs/notes/speccoder", id)
		for _, args := range [][]string{{"verify", "--branch", "--base", "main"}, {"verify", "HEAD"}} {
			out, stderr, code := r.runFull(t, nil, append(args, "--allowed-signers", r.allowed)...)
			wantPrecondition(t, kind+": "+strings.Join(args, " "), out, stderr, code, "refs/notes/speccoder", "points at a "+kind, id)
		}
	}
	testenv.Git(t, r.dir, "update-ref", "refs/notes/speccoder", notes)
	if out, stderr, code := r.runFull(t, nil, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed); code != 0 {
		t.Fatalf("notes ref restored: exit %d, want 0\n%s\n%s", code, out, stderr)
	}
}

// TestVerifyMissingObject: a loose object deleted from the repository (the
// tick commit's tasks file blob, then a commit of the range) is exit 4 naming
// the object, in objects mode (where a check would have read it as a
// mismatch) and in the gate.
func TestVerifyMissingObject(t *testing.T) {
	r := attestedCIRepo(t) // made by git commit: its objects are loose
	blob := strings.TrimSpace(testenv.Git(t, r.dir, "rev-parse", "HEAD:specs/001-greeting/tasks.md"))
	removeLoose := func(id string) {
		t.Helper()
		if err := os.Remove(filepath.Join(r.dir, ".git", "objects", id[:2], id[2:])); err != nil {
			t.Fatalf("removing loose object %s: %v", id, err)
		}
	}
	removeLoose(blob)
	for _, args := range [][]string{{"verify", "HEAD"}, {"verify", "--branch", "--base", "main"}} {
		out, stderr, code := r.runFull(t, nil, append(args, "--allowed-signers", r.allowed)...)
		wantPrecondition(t, "missing blob: "+strings.Join(args, " "), out, stderr, code, blob, "not found", "git fsck")
	}
	removeLoose(r.t001)
	out, stderr, code := r.runFull(t, nil, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
	wantPrecondition(t, "missing commit", out, stderr, code, r.t001, "not found")
}

// TestVerifyGarbageRef: a ref file holding garbage (the notes ref, the
// checked-out branch) is exit 4 naming the ref and its file.
func TestVerifyGarbageRef(t *testing.T) {
	r := attestedCIRepo(t)
	for _, ref := range []string{"refs/notes/speccoder", "refs/heads/001-greeting"} {
		p := filepath.Join(r.dir, ".git", filepath.FromSlash(ref))
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("garbage\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := r.runFull(t, nil, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed)
		wantPrecondition(t, "garbage in "+ref, out, stderr, code, ref, p, `"garbage"`)
		if err := os.WriteFile(p, old, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// prCheckout makes what a CI pull-request checkout holds: a bare remote (a
// mirror of r's repository whose HEAD, its default branch, is main), and a
// new repository that fetched the remote's branches into refs/remotes/origin/
// and its notes, with HEAD detached at the pull request's head — no local
// branch at all, no origin/HEAD (a fetch does not set it).
func (r *ciRepo) prCheckout(t *testing.T) (pr *ciRepo, remote string) {
	t.Helper()
	tmp := t.TempDir()
	remote = filepath.Join(tmp, "remote.git")
	testenv.Git(t, "", "clone", "-q", "--mirror", r.dir, remote)
	testenv.Git(t, remote, "symbolic-ref", "HEAD", "refs/heads/main")
	dir := filepath.Join(tmp, "pr")
	testenv.Git(t, "", "init", "-q", dir)
	testenv.Git(t, dir, "remote", "add", "origin", "file://"+remote)
	testenv.Git(t, dir, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*", "refs/notes/speccoder:refs/notes/speccoder")
	testenv.Git(t, dir, "checkout", "-q", "--detach", "refs/remotes/origin/001-greeting")
	c := *r
	c.dir = dir
	return &c, remote
}

// TestVerifyDefaultBase: in a detached pull-request checkout with no local
// main, `verify --branch` without --base takes origin/main; with origin/HEAD
// set, the remote's default branch comes first; with none of the defaults,
// exit 4 naming everything tried.
func TestVerifyDefaultBase(t *testing.T) {
	r := attestedCIRepo(t)
	pr, remote := r.prCheckout(t)
	if _, err := os.Stat(filepath.Join(pr.dir, ".git", "refs", "heads", "main")); err == nil {
		t.Fatal("the pull-request checkout has a local main")
	}
	out, stderr, code := pr.runFull(t, nil, "verify", "--branch", "--allowed-signers", r.allowed, "--format", "json")
	if code != 0 || strings.Count(out, `"status": "evidenced"`) != 2 {
		t.Fatalf("no local main, origin/main: exit %d, want 0 with 2 evidenced ticks\n%s\n%s", code, out, stderr)
	}

	// The remote's default branch (origin/HEAD) wins over origin/main: here a
	// branch at T001, so only T004 is in the range.
	testenv.Git(t, r.dir, "branch", "trunk", r.t001)
	testenv.Git(t, r.dir, "push", "-q", remote, "trunk")
	testenv.Git(t, pr.dir, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
	testenv.Git(t, pr.dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	out, stderr, code = pr.runFull(t, nil, "verify", "--branch", "--allowed-signers", r.allowed, "--format", "json")
	if code != 0 || strings.Count(out, `"status": "evidenced"`) != 1 || !strings.Contains(out, r.t004) {
		t.Fatalf("origin/HEAD → trunk: exit %d, want 0 with T004 alone evidenced\n%s\n%s", code, out, stderr)
	}

	// origin/HEAD naming the branch being verified leaves no range: passed
	// over for origin/main.
	testenv.Git(t, pr.dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/001-greeting")
	out, stderr, code = pr.runFull(t, nil, "verify", "--branch", "--allowed-signers", r.allowed, "--format", "json")
	if code != 0 || strings.Count(out, `"status": "evidenced"`) != 2 {
		t.Fatalf("origin/HEAD → the head's branch: exit %d, want 0 with 2 evidenced ticks (base origin/main)\n%s\n%s", code, out, stderr)
	}

	// Only the pull request's head fetched: nothing to default to.
	bare := filepath.Join(t.TempDir(), "bare")
	testenv.Git(t, "", "init", "-q", bare)
	testenv.Git(t, bare, "fetch", "-q", "file://"+remote, "refs/heads/001-greeting", "refs/notes/speccoder:refs/notes/speccoder")
	testenv.Git(t, bare, "checkout", "-q", "--detach", "FETCH_HEAD")
	none := *r
	none.dir = bare
	out, stderr, code = none.runFull(t, nil, "verify", "--branch", "--allowed-signers", r.allowed)
	wantPrecondition(t, "no default base", out, stderr, code, "refs/remotes/origin/HEAD, origin/main, origin/master, main, master", "--base")
}

// TestVerifyErrorFormats: a precondition error (exit 4: no base; exit 3: no
// trust input; exit 2: a bad flag value) in --format json|github|sarif|junit
// still writes a machine-readable result on stdout.
func TestVerifyErrorFormats(t *testing.T) {
	r := attestedCIRepo(t)
	bare := filepath.Join(t.TempDir(), "bare")
	testenv.Git(t, "", "init", "-q", bare)
	testenv.Git(t, bare, "fetch", "-q", "file://"+r.dir, "refs/heads/001-greeting")
	testenv.Git(t, bare, "checkout", "-q", "--detach", "FETCH_HEAD")
	nb := *r
	nb.dir = bare
	cases := []struct {
		name string
		code int
		kind string
		args []string
	}{
		{"no base", 4, "git_precondition", []string{"verify", "--branch", "--allowed-signers", r.allowed}},
		{"no trust", 3, "trust_or_config", []string{"verify", "--branch", "--base", "HEAD~1"}},
		{"bad --at", 2, "usage", []string{"verify", "--branch", "--at", "yesterday", "--allowed-signers", r.allowed}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := func(f string) []string { return append(append([]string{}, tc.args...), "--format", f) }

			out, stderr, code := nb.runFull(t, nil, args("json")...)
			var j struct {
				Conclusion string `json:"conclusion"`
				Error      struct {
					Code     string `json:"code"`
					ExitCode int    `json:"exit_code"`
					Message  string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil || code != tc.code || j.Conclusion != "error" || j.Error.ExitCode != tc.code || j.Error.Code != tc.kind || j.Error.Message == "" || !strings.Contains(stderr, j.Error.Message) {
				t.Errorf("json: exit %d, %+v (%v), want exit %d, conclusion error, code %s and stderr's message\n%s\n%s", code, j, err, tc.code, tc.kind, out, stderr)
			}

			summary := filepath.Join(t.TempDir(), "summary.md")
			out, stderr, code = nb.runFull(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, args("github")...)
			if code != tc.code || !strings.HasPrefix(out, "::error title=taskproof verify::") || strings.Count(out, "\n") != 1 {
				t.Errorf("github: exit %d, want %d and one ::error:: line\n%s\n%s", code, tc.code, out, stderr)
			}
			if b, err := os.ReadFile(summary); err != nil || !strings.Contains(string(b), "taskproof verify: error") {
				t.Errorf("github: job summary %q (%v), want the error", b, err)
			}

			out, stderr, code = nb.runFull(t, nil, args("sarif")...)
			var s struct {
				Version string `json:"version"`
				Runs    []struct {
					Tool struct {
						Driver struct {
							Name string `json:"name"`
						} `json:"driver"`
					} `json:"tool"`
					Invocations []struct {
						ExecutionSuccessful *bool `json:"executionSuccessful"`
						ExitCode            int   `json:"exitCode"`
						Notifications       []struct {
							Level   string `json:"level"`
							Message struct {
								Text string `json:"text"`
							} `json:"message"`
						} `json:"toolExecutionNotifications"`
					} `json:"invocations"`
					Results []json.RawMessage `json:"results"`
				} `json:"runs"`
			}
			err := json.Unmarshal([]byte(out), &s)
			ok := err == nil && code == tc.code && s.Version == "2.1.0" && len(s.Runs) == 1 && s.Runs[0].Tool.Driver.Name == "taskproof" &&
				len(s.Runs[0].Invocations) == 1 && s.Runs[0].Invocations[0].ExecutionSuccessful != nil && !*s.Runs[0].Invocations[0].ExecutionSuccessful &&
				s.Runs[0].Invocations[0].ExitCode == tc.code && len(s.Runs[0].Invocations[0].Notifications) == 1 &&
				s.Runs[0].Invocations[0].Notifications[0].Level == "error" && s.Runs[0].Invocations[0].Notifications[0].Message.Text != ""
			if !ok {
				t.Errorf("sarif: exit %d (%v), want %d and a failed invocation with an error notification\n%s\n%s", code, err, tc.code, out, stderr)
			}

			out, stderr, code = nb.runFull(t, nil, args("junit")...)
			var x struct {
				Errors int `xml:"errors,attr"`
				Suites []struct {
					Errors int `xml:"errors,attr"`
					Cases  []struct {
						Error *struct {
							Type    string `xml:"type,attr"`
							Message string `xml:"message,attr"`
						} `xml:"error"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			err = xml.Unmarshal([]byte(out), &x)
			if err != nil || code != tc.code || x.Errors != 1 || len(x.Suites) != 1 || x.Suites[0].Errors != 1 || len(x.Suites[0].Cases) != 1 ||
				x.Suites[0].Cases[0].Error == nil || x.Suites[0].Cases[0].Error.Type != tc.kind || x.Suites[0].Cases[0].Error.Message == "" {
				t.Errorf("junit: exit %d (%v), want %d and a suite with one errored case\n%s\n%s", code, err, tc.code, out, stderr)
			}
		})
	}
}

// TestVerifyUnwritableStepSummary: a $GITHUB_STEP_SUMMARY that cannot be
// written is a warning; the exit code stays the gate's (0 when it passes, 1
// when it fails).
func TestVerifyUnwritableStepSummary(t *testing.T) {
	r := newCIRepo(t) // T004 ticked without evidence: the gate fails
	summary := filepath.Join(t.TempDir(), "no-such-dir", "summary.md")
	out, stderr, code := r.runFull(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "github")
	if code != 1 || !strings.Contains(stderr, "warning:") || !strings.Contains(stderr, "GITHUB_STEP_SUMMARY") || !strings.Contains(out, "::error") {
		t.Fatalf("failing gate, unwritable summary: exit %d, want 1 with a warning\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = r.runFull(t, []string{"GITHUB_STEP_SUMMARY=" + summary}, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "github", r.t001)
	if code != 0 || !strings.Contains(stderr, "warning:") {
		t.Fatalf("passing gate, unwritable summary: exit %d, want 0 with a warning\n%s\n%s", code, out, stderr)
	}
}
