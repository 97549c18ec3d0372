package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// The revisions that decide the range and the trust (the default base, --base,
// the REV of --allowed-signers-rev) against refs an attacker with branch push
// access creates (docs/format.md#default-base,
// docs/format.md#ambiguous-ref-names). Each repository is built with the real
// git; each run is the real binary.

const baseRefTasks = "# Tasks\n\n- [ ] T001 Create the skeleton\n- [ ] T002 Write the test\n"

// baseRefRepo is a gate repository whose main holds the tasks file and the
// project's allowed signers (the dev key), with a bare mirror to fetch from.
func baseRefRepo(t *testing.T) (r *gateRepo, remote string) {
	t.Helper()
	r = newGateRepo(t, map[string]string{"specs/001-x/tasks.md": baseRefTasks})
	allowed, err := os.ReadFile(r.allowed)
	if err != nil {
		t.Fatal(err)
	}
	r.git(t, "switch", "-q", "main")
	r.commit(t, "trust", map[string]string{".github/allowed_signers": string(allowed)})
	r.git(t, "branch", "-q", "-f", "feature", "main")
	remote = filepath.Join(t.TempDir(), "remote.git")
	testenv.Git(t, "", "init", "-q", "--bare", remote)
	return r, remote
}

// push pushes refspecs from r to the bare remote.
func (r *gateRepo) push(t *testing.T, remote string, refspecs ...string) {
	t.Helper()
	r.git(t, append([]string{"push", "-q", "-f", remote}, refspecs...)...)
}

// actionsCheckout makes the checkout actions/checkout makes: git init, the
// remote as origin, every branch into refs/remotes/origin/ and every tag
// (fetch refspecs given), the notes, HEAD detached at the pull request's head.
func actionsCheckout(t *testing.T, remote, head string, refspecs ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "checkout")
	testenv.Git(t, "", "init", "-q", dir)
	testenv.Git(t, dir, "remote", "add", "origin", "file://"+remote)
	if refspecs == nil {
		refspecs = []string{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"}
	}
	testenv.Git(t, dir, append(append([]string{"fetch", "-q", "origin"}, refspecs...), "+refs/notes/speccoder:refs/notes/speccoder")...)
	testenv.Git(t, dir, "checkout", "-q", "--detach", head)
	return dir
}

// runIn runs the binary (TASKPROOF_BIN) in dir with extra environment
// variables: stdout, stderr, the exit code.
func runIn(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return (&cliRepo{dir: dir}).taskproof(t, env, args...)
}

// TestDefaultBasePlainOriginHEAD: a branch pushed as HEAD becomes, in an
// actions/checkout fetch, a plain refs/remotes/origin/HEAD at the attacker's
// commit (a tick without evidence); a harmless commit on top left the gate
// neutral. A plain origin/HEAD is refused (exit 4); the symbolic one git
// remote set-head writes decides the base.
func TestDefaultBasePlainOriginHEAD(t *testing.T) {
	r, remote := baseRefRepo(t)
	r.git(t, "switch", "-q", "feature")
	bad := r.tick(t, []string{"specs/001-x/tasks.md"}, "T002")
	r.commit(t, "harmless", map[string]string{"README.md": "hello\n"})
	r.push(t, remote, "main", "feature", "refs/notes/speccoder", bad+":refs/heads/HEAD")
	dir := actionsCheckout(t, remote, "refs/remotes/origin/feature")
	if id := strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "refs/remotes/origin/HEAD")); id != bad {
		t.Fatalf("setup: refs/remotes/origin/HEAD is %q, want the attacker's %s", id, bad)
	}
	trust := []string{"verify", "--branch", "--allowed-signers-rev", "origin/main:.github/allowed_signers"}
	out, stderr, code := runIn(t, dir, nil, trust...)
	wantPrecondition(t, "plain origin/HEAD", out, stderr, code, "refs/remotes/origin/HEAD", "plain ref", "--base")

	testenv.Git(t, dir, "remote", "set-head", "origin", "main")
	out, stderr, code = runIn(t, dir, nil, trust...)
	if code != ExitFailure || !strings.Contains(out, "T002") {
		t.Errorf("symbolic origin/HEAD → main: exit %d, want 1 failing T002\n%s%s", code, out, stderr)
	}
}

// TestDefaultBaseAmbiguous: the remote's default branch is master and an
// attacker pushed main at their tick; the default list has origin/main before
// origin/master, which left the gate neutral. Both existing with no
// origin/HEAD to decide is refused (exit 4 naming them); GITHUB_BASE_REF
// names the base in a pull request run.
func TestDefaultBaseAmbiguous(t *testing.T) {
	r, remote := baseRefRepo(t)
	r.git(t, "branch", "-q", "-m", "main", "master")
	r.git(t, "switch", "-q", "feature")
	bad := r.tick(t, []string{"specs/001-x/tasks.md"}, "T002")
	r.commit(t, "harmless", map[string]string{"README.md": "hello\n"})
	r.push(t, remote, "master", "feature", "refs/notes/speccoder", bad+":refs/heads/main")
	dir := actionsCheckout(t, remote, "refs/remotes/origin/feature")
	trust := []string{"verify", "--branch", "--allowed-signers-rev", "origin/master:.github/allowed_signers"}
	out, stderr, code := runIn(t, dir, nil, trust...)
	wantPrecondition(t, "origin/main and origin/master", out, stderr, code, "ambiguous", "origin/main", "origin/master", "--base")

	out, stderr, code = runIn(t, dir, []string{"GITHUB_BASE_REF=master"}, trust...)
	if code != ExitFailure || !strings.Contains(out, "T002") {
		t.Errorf("GITHUB_BASE_REF=master: exit %d, want 1 failing T002\n%s%s", code, out, stderr)
	}
	out, stderr, code = runIn(t, dir, []string{"GITHUB_BASE_REF=release"}, trust...)
	wantPrecondition(t, "GITHUB_BASE_REF not fetched", out, stderr, code, "refs/remotes/origin/release", "git fetch origin +refs/heads/release:refs/remotes/origin/release")
}

// TestDefaultBasePullRequestHoldsHead: GITHUB_BASE_REF naming the branch
// being verified (or one that has head in its history) left the empty range:
// neutral, exit 0, the unevidenced T002 never judged. It is exit 4 asking for
// --base, as when every default base holds head, and the message says what
// is wrong (the base branch holds head, so the range is empty), never
// "unknown revision": the branch exists.
func TestDefaultBasePullRequestHoldsHead(t *testing.T) {
	r, remote := baseRefRepo(t)
	r.git(t, "switch", "-q", "feature")
	r.tick(t, []string{"specs/001-x/tasks.md"}, "T002")
	r.push(t, remote, "main", "feature", "refs/notes/speccoder")
	dir := actionsCheckout(t, remote, "refs/remotes/origin/feature")
	trust := []string{"verify", "--branch", "--allowed-signers-rev", "origin/main:.github/allowed_signers"}
	for _, base := range []string{"feature", "main"} {
		if base == "main" {
			testenv.Git(t, dir, "update-ref", "refs/remotes/origin/main", "refs/remotes/origin/feature")
		}
		out, stderr, code := runIn(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_BASE_REF=" + base}, trust...)
		wantPrecondition(t, "GITHUB_BASE_REF="+base+" holding head", out, stderr, code, "origin/"+base, "verifying nothing would pass", "--base")
		want := "taskproof: --base (default origin/" + base + "): the pull request's base branch is HEAD or has it in its history: the range to verify is empty, and verifying nothing would pass"
		if !strings.HasPrefix(stderr, want) || !strings.HasSuffix(strings.TrimSpace(stderr), "; give --base the branch the changes go into") || strings.Contains(stderr, "unknown revision") {
			t.Errorf("GITHUB_BASE_REF=%s: stderr %q, want it to start %q and ask for --base", base, stderr, want)
		}
		// The machine formats say the same, a git precondition.
		out, _, code = runIn(t, dir, []string{"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_BASE_REF=" + base}, append(trust, "--format", "json")...)
		var res usageResultJSON
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 4 || res.Error.Code != "git_precondition" || strings.Contains(res.Error.Message, "unknown revision") || !strings.Contains(res.Error.Message, "the range to verify is empty") {
			t.Errorf("GITHUB_BASE_REF=%s --format json: exit %d, %v %+v", base, code, err, res)
		}
	}
	// Every default base holding head says the same, without the pull
	// request.
	testenv.Git(t, dir, "update-ref", "refs/remotes/origin/main", "refs/remotes/origin/feature")
	out, stderr, code := runIn(t, dir, nil, trust...)
	wantPrecondition(t, "every default base holding head", out, stderr, code, "every default base is HEAD or has it in its history: the range to verify is empty", "--base HEAD")
	if strings.Contains(stderr, "unknown revision") {
		t.Errorf("every default base holding head: %q", stderr)
	}
}

// TestTrustedRevTagAsRemoteBranch: in a single-branch fetch (no
// refs/remotes/origin/main) a tag named origin/main, auto-followed, held the
// attacker's allowed signers and was taken for the base branch: gate success.
// A <remote>/<branch> name resolves only through refs/remotes/<remote>/<branch>
// (exit 4 naming the fetch), and a short name that is a tag is refused unless
// written as one.
func TestTrustedRevTagAsRemoteBranch(t *testing.T) {
	r, remote := baseRefRepo(t)
	eve, _ := sshKeyFile(t, "")
	pub, err := os.ReadFile(eve + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "eve", map[string]string{".github/allowed_signers": `eve@example.invalid namespaces="in-toto" ` + string(pub)})
	r.git(t, "tag", "origin/main")
	r.git(t, "tag", "trunk")
	c := r.tick(t, []string{"specs/001-x/tasks.md"}, "T002")
	r.run(t, 0, "attest", "tick", "--commit", c, "--signer", "ssh", "--key", eve, "--verdict", "regression_only", "--regression-reason", "planning_work")
	r.push(t, remote, "main", "feature", "refs/notes/speccoder", "refs/tags/origin/main", "refs/tags/trunk")
	dir := actionsCheckout(t, remote, "refs/remotes/origin/feature", "+refs/heads/feature:refs/remotes/origin/feature", "+refs/tags/*:refs/tags/*")

	out, stderr, code := runIn(t, dir, nil, "verify", "--branch", "--base", "origin/main", "--allowed-signers-rev", "origin/main:.github/allowed_signers")
	wantPrecondition(t, "tag origin/main", out, stderr, code, "refs/remotes/origin/main", "git fetch origin +refs/heads/main:refs/remotes/origin/main")
	out, stderr, code = runIn(t, dir, nil, "verify", "origin/main..HEAD", "--allowed-signers-rev", "refs/tags/trunk:.github/allowed_signers")
	wantPrecondition(t, "range from the tag origin/main", out, stderr, code, "refs/remotes/origin/main")
	out, stderr, code = runIn(t, dir, nil, "verify", "--branch", "--base", "refs/remotes/origin/feature~2", "--allowed-signers-rev", "trunk:.github/allowed_signers")
	wantPrecondition(t, "tag trunk", out, stderr, code, "refs/tags/trunk", "tags/trunk")
	// Written as a tag, the tag is what the verifier chose.
	if _, stderr, code := runIn(t, dir, nil, "verify", "--branch", "--base", "tags/trunk", "--allowed-signers-rev", "refs/tags/trunk:.github/allowed_signers"); code != 0 || !strings.Contains(stderr, "trust: allowed signers refs/tags/trunk:.github/allowed_signers (refs/tags/trunk at ") {
		t.Errorf("tags/trunk: exit %d, want 0 naming the ref on the trust line\n%s", code, stderr)
	}

	// Fetched, the branch is the base; its trust does not know eve.
	testenv.Git(t, dir, "fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main")
	out, stderr, code = runIn(t, dir, nil, "verify", "--branch", "--base", "refs/remotes/origin/main", "--allowed-signers-rev", "refs/remotes/origin/main:.github/allowed_signers")
	if code != ExitFailure || !strings.Contains(out, "untrusted_signer") || !strings.Contains(stderr, "(refs/remotes/origin/main at ") {
		t.Errorf("refs/remotes/origin/main: exit %d, want 1 with eve untrusted and the ref on the trust line\n%s%s", code, out, stderr)
	}
}

// TestVerifyOnBaseBranch: the gate run on the base branch itself without
// --base cannot tell that from a base never fetched: exit 4 naming --base.
// Named (--base HEAD), the range is empty: neutral, exit 0, with the warning,
// even though the trust is read from the very commit checked out (nothing is
// verified with it).
func TestVerifyOnBaseBranch(t *testing.T) {
	r, remote := baseRefRepo(t)
	r.push(t, remote, "main", "refs/notes/speccoder")
	dir := filepath.Join(t.TempDir(), "clone")
	testenv.Git(t, "", "clone", "-q", "-b", "main", "file://"+remote, dir)
	testenv.Git(t, dir, "fetch", "-q", "origin", "+refs/notes/speccoder:refs/notes/speccoder")
	testenv.Git(t, dir, "remote", "set-head", "origin", "main")
	_, stderr, code := runIn(t, dir, nil, "verify", "--branch", "--allowed-signers-rev", "origin/main:.github/allowed_signers")
	if code != ExitGit || !strings.Contains(stderr, "--base HEAD verifies nothing") {
		t.Errorf("on main, no --base: exit %d, want 4 naming --base\n%s", code, stderr)
	}
	out, stderr, code := runIn(t, dir, nil, "verify", "--branch", "--base", "HEAD", "--allowed-signers-rev", "origin/main:.github/allowed_signers", "--format", "json")
	if code != 0 || !strings.Contains(out, `"conclusion": "neutral"`) || !strings.Contains(stderr, "is empty") {
		t.Errorf("on main, --base HEAD: exit %d, want 0, neutral, the empty-range warning\n%s%s", code, out, stderr)
	}
}

// TestVerifyNeutralNote: a neutral gate over commits that tick nothing says
// so on stderr; the report is unchanged.
func TestVerifyNeutralNote(t *testing.T) {
	r, _ := baseRefRepo(t)
	r.git(t, "switch", "-q", "feature")
	r.commit(t, "one", map[string]string{"README.md": "one\n"})
	r.commit(t, "two", map[string]string{"docs/todo.md": "- [x] T009 not in a tasks file\n"})
	out, stderr := r.run(t, 0, "verify", "--branch", "--base", "main", "--allowed-signers", r.allowed, "--format", "json")
	if !strings.Contains(out, `"conclusion": "neutral"`) || !strings.Contains(stderr, "note: 2 commits in ") || !strings.Contains(stderr, "no ticks of recognized tasks files") {
		t.Errorf("neutral over 2 commits: want the note on stderr\n%s%s", out, stderr)
	}
	if strings.Contains(out, "note:") {
		t.Errorf("the note is in the report:\n%s", out)
	}
}
