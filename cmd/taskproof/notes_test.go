package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// world is a bare remote and the signing key and trust of one test, built with
// the real git and ssh-keygen.
type world struct {
	t       *testing.T
	bin     string
	dir     string // the test's temporary directory
	remote  string // the bare remote
	key     string // ed25519 private key file
	signers string // allowed signers file trusting key for in-toto
}

func newWorld(t *testing.T) *world {
	t.Helper()
	testenv.LookPath(t, "git")
	kg := testenv.LookPath(t, "ssh-keygen")
	w := &world{t: t, bin: testenv.Binary(t), dir: t.TempDir()}
	w.remote = filepath.Join(w.dir, "remote.git")
	testenv.Git(t, w.dir, "init", "-q", "--bare", "-b", "main", w.remote)
	w.key = filepath.Join(w.dir, "id_ed25519")
	if out, err := exec.Command(kg, "-q", "-t", "ed25519", "-N", "", "-C", "dev@example.invalid", "-f", w.key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(w.key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	w.signers = filepath.Join(w.dir, "allowed_signers")
	if err := os.WriteFile(w.signers, []byte(`dev@example.invalid namespaces="in-toto" `+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// seed makes clone "a" with the demo spec on main, pushed to the remote.
func (w *world) seed() string {
	a := filepath.Join(w.dir, "a")
	testenv.Git(w.t, w.dir, "clone", "-q", w.remote, a)
	root := testenv.RepoRoot(w.t)
	if out, err := exec.Command("cp", "-R", filepath.Join(root, "testdata/demo/specs"), filepath.Join(root, "testdata/demo/speccoder.toml"), a).CombinedOutput(); err != nil {
		w.t.Fatalf("cp: %v\n%s", err, out)
	}
	testenv.Git(w.t, a, "add", "-A")
	testenv.Git(w.t, a, "commit", "-q", "-m", "spec: 001-greeting")
	testenv.Git(w.t, a, "push", "-q", "origin", "HEAD:main")
	return a
}

func (w *world) clone(name string) string {
	d := filepath.Join(w.dir, name)
	testenv.Git(w.t, w.dir, "clone", "-q", w.remote, d)
	return d
}

// tick ticks task id in the demo tasks.md of repo and commits; it returns the commit.
func (w *world) tick(repo, id string) string {
	w.t.Helper()
	p := filepath.Join(repo, "specs/001-greeting/tasks.md")
	b, err := os.ReadFile(p)
	if err != nil {
		w.t.Fatal(err)
	}
	nb := strings.Replace(string(b), "- [ ] "+id+" ", "- [x] "+id+" ", 1)
	if nb == string(b) {
		w.t.Fatalf("task %s is not open in %s", id, p)
	}
	if err := os.WriteFile(p, []byte(nb), 0o644); err != nil {
		w.t.Fatal(err)
	}
	testenv.Git(w.t, repo, "commit", "-q", "-am", id+" done")
	return strings.TrimSpace(testenv.Git(w.t, repo, "rev-parse", "HEAD"))
}

// attest attests the tasks rev ticks, signed with the world's key.
func (w *world) attest(repo, rev string) {
	w.t.Helper()
	w.run(repo, 0, "attest", "tick", "--commit", rev, "--verdict", "regression_only",
		"--regression-reason", "planning_work", "--signer", "ssh", "--key", w.key)
}

// run runs the binary in repo and checks its exit code; it returns stdout and stderr.
func (w *world) run(repo string, want int, args ...string) (string, string) {
	w.t.Helper()
	cmd := exec.Command(w.bin, append([]string{"-C", repo}, args...)...)
	cmd.Env = testenv.GitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	if got != want {
		w.t.Fatalf("taskproof %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, got, want, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func (w *world) verifyBranch(repo string, want int) string {
	w.t.Helper()
	out, _ := w.run(repo, want, "verify", "--branch", "--base", "origin/main", "HEAD", "--allowed-signers", w.signers)
	return out
}

func TestNotesFetchAfterInitAndAcceptance(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	t1 := w.tick(a, "T001")
	w.attest(a, t1)
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	if out, _ := w.run(a, 0, "notes", "push"); !strings.Contains(out, "pushed") {
		t.Fatalf("notes push: %q", out)
	}

	b := w.clone("b")
	testenv.Git(t, b, "switch", "-q", "feature")
	_, stderr := w.run(b, 4, "verify", "--branch", "--base", "origin/main", "HEAD", "--allowed-signers", w.signers)
	if !strings.Contains(stderr, "taskproof notes fetch") {
		t.Errorf("no fetch hint in %q", stderr)
	}
	out, _ := w.run(b, 0, "init")
	for _, want := range []string{"remote.origin.fetch += +refs/notes/speccoder*:refs/notes/remotes/origin/speccoder*",
		"remote.origin.fetch += +refs/speccoder/skipped/*:refs/speccoder/remotes/origin/skipped/*",
		"notes.rewriteRef += refs/notes/speccoder", "notes.rewrite.rebase = true", "notes.rewrite.amend = true"} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	// git fetch mirrors the remote's notes into the tracking ref only.
	testenv.Git(t, b, "fetch", "-q")
	testenv.Git(t, b, "rev-parse", "--verify", "-q", "refs/notes/remotes/origin/speccoder")
	w.run(b, 0, "verify", "--branch", "--base", "origin/main", "HEAD", "--allowed-signers", w.signers, "--notes-from-remotes")
	w.run(b, 0, "notes", "fetch")
	w.verifyBranch(b, 0)
}

// TestInitMigratesOldRefspec: a repository configured by the earlier init
// (notes fetched straight into refs/notes/speccoder) fails `git fetch` once
// both sides attested; init run again replaces those refspecs, says so, and
// `git fetch`, `git pull` and `taskproof notes fetch` then succeed.
func TestInitMigratesOldRefspec(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	t1 := w.tick(a, "T001")
	t2 := w.tick(a, "T002")
	testenv.Git(t, a, "push", "-q", "origin", "HEAD:main")
	b := w.clone("b")
	for _, d := range []string{a, b} {
		testenv.Git(t, d, "config", "--add", "remote.origin.fetch", "refs/notes/speccoder*:refs/notes/speccoder*")
		testenv.Git(t, d, "config", "--add", "remote.origin.fetch", "refs/speccoder/skipped/*:refs/speccoder/skipped/*")
	}
	w.attest(a, t1)
	w.run(a, 0, "notes", "push")
	w.attest(b, t2)
	cmd := exec.Command("git", "fetch")
	cmd.Dir, cmd.Env = b, testenv.GitEnv()
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "rejected") {
		t.Fatalf("with the old refspec, git fetch: %v\n%s (want the non-fast-forward rejection this test is about)", err, out)
	}
	out, _ := w.run(b, 0, "init")
	for _, want := range []string{"remote.origin.fetch -= refs/notes/speccoder*:refs/notes/speccoder*", "migrated",
		"remote.origin.fetch += +refs/notes/speccoder*:refs/notes/remotes/origin/speccoder*",
		"remote.origin.fetch -= refs/speccoder/skipped/*:refs/speccoder/skipped/*"} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	got := testenv.Git(t, b, "config", "--get-all", "remote.origin.fetch")
	if strings.Contains(got, "refs/notes/speccoder*:refs/notes/speccoder*") {
		t.Errorf("old refspec still configured:\n%s", got)
	}
	testenv.Git(t, b, "fetch", "-q")
	testenv.Git(t, b, "pull", "-q", "--rebase")
	w.run(b, 0, "notes", "fetch")
	w.run(b, 0, "notes", "push")
	if out, _ := w.run(b, 0, "init"); !strings.Contains(out, "nothing to change") {
		t.Errorf("second init: %s", out)
	}
	for _, c := range []string{t1, t2} {
		if note := testenv.Git(t, b, "notes", "--ref", "speccoder", "show", c); !strings.Contains(note, "payload") {
			t.Errorf("no statements on %s:\n%s", c, note)
		}
	}
}

// TestInitRefusesForcedNotesRefspec: a hand-written +refs/notes/*:refs/notes/*
// makes every git fetch replace the local notes with origin's, dropping what
// was attested and not pushed (git does not refuse a forced update): init
// refuses (exit 3), changing nothing and naming the refspec to remove, and
// sets up sync once it is removed.
func TestInitRefusesForcedNotesRefspec(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "config", "--add", "remote.origin.fetch", "+refs/notes/*:refs/notes/*")
	before := testenv.Git(t, a, "config", "--get-all", "remote.origin.fetch")
	_, stderr := w.run(a, ExitTrust, "init")
	if !strings.Contains(stderr, "overwrite your notes") || !strings.Contains(stderr, "--unset remote.origin.fetch '+refs/notes/*:refs/notes/*'") {
		t.Errorf("init with a forced notes refspec: %s", stderr)
	}
	if after := testenv.Git(t, a, "config", "--get-all", "remote.origin.fetch"); after != before {
		t.Errorf("the refused init changed remote.origin.fetch:\n%s\nwas\n%s", after, before)
	}
	testenv.Git(t, a, "config", "--fixed-value", "--unset", "remote.origin.fetch", "+refs/notes/*:refs/notes/*")
	// Another remote's, or another source's, is refused the same way.
	for _, c := range [][2]string{{"remote.upstream.fetch", "+refs/notes/*:refs/notes/*"}, {"remote.origin.fetch", "+refs/notes/ci:refs/notes/speccoder"}} {
		testenv.Git(t, a, "config", "--add", c[0], c[1])
		if _, stderr := w.run(a, ExitTrust, "init"); !strings.Contains(stderr, c[1]) {
			t.Errorf("init with %s = %s: %s", c[0], c[1], stderr)
		}
		testenv.Git(t, a, "config", "--fixed-value", "--unset", c[0], c[1])
	}
	w.run(a, 0, "init")
}

func TestNotesConcurrentPushesBothLand(t *testing.T) {
	w := newWorld(t)
	a := w.seed()
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	t1 := w.tick(a, "T001")
	t2 := w.tick(a, "T002")
	t3 := w.tick(a, "T003")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	w.attest(a, t1)
	w.run(a, 0, "notes", "push")

	b := w.clone("b")
	c := w.clone("c")
	for _, d := range []string{b, c} {
		testenv.Git(t, d, "switch", "-q", "feature")
		w.run(d, 0, "notes", "fetch")
	}
	w.attest(b, t2)
	w.attest(c, t3)

	var wg sync.WaitGroup
	for _, d := range []string{b, c} {
		wg.Add(1)
		go func(d string) {
			defer wg.Done()
			w.run(d, 0, "notes", "push")
		}(d)
	}
	wg.Wait()

	d := w.clone("d")
	testenv.Git(t, d, "switch", "-q", "feature")
	w.run(d, 0, "notes", "fetch")
	w.verifyBranch(d, 0) // T001 from a, T002 from b and T003 from c all landed
	for _, id := range []string{t1, t2, t3} {
		note := testenv.Git(t, d, "notes", "--ref", "speccoder", "show", id)
		if !strings.Contains(note, "payload") {
			t.Errorf("no statements on %s after both pushes:\n%s", id, note)
		}
	}
	merges := strings.TrimSpace(testenv.Git(t, d, "rev-list", "--merges", "refs/notes/speccoder"))
	if merges == "" {
		t.Errorf("no notes merge commit: one of the two concurrent pushes must have merged")
	}
	if out := testenv.Git(t, d, "fsck", "--no-progress"); strings.Contains(out, "error") {
		t.Errorf("fsck: %s", out)
	}
}

// TestNotesRemoteUnknown: notes push and fetch with a remote name that is
// not configured (a clone without origin) say so and how to add it, exit 4,
// instead of git's failure behind a temporary fetch command line.
func TestNotesRemoteUnknown(t *testing.T) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	testenv.Git(t, "", "init", "-q", "-b", "main", dir)
	testenv.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "plan")
	testenv.Git(t, dir, "notes", "--ref", "refs/notes/speccoder", "add", "-m", "x", "HEAD")
	for _, sub := range []string{"push", "fetch"} {
		_, stderr := vfRunIn(t, bin, dir, 4, "notes", sub)
		if !strings.Contains(stderr, `no such remote "origin": add it (git remote add origin URL)`) || strings.Contains(stderr, "taskproof-fetch-") {
			t.Errorf("notes %s: stderr %q", sub, stderr)
		}
	}
}
