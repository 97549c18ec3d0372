package main

import (
	"bytes"
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
