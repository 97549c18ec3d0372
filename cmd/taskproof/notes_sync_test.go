package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// syncFixture is a bare remote with the demo spec and three tick commits on
// main, and three clones (alice, bob, carol) after `taskproof init`, each with
// its own SSH key, all trusted; alice's notes for Z were pushed first. Then, not
// yet shared: alice, bob and carol each attest T001 on X (one task, three
// different statements); bob attests T002 and carol T003 on Y (two tasks of one
// commit).
type syncFixture struct {
	w       *world
	dir     string // holds remote.git, alice, bob, carol
	base    string // the commit before the ticks
	x, y, z string
	lines   map[string]bool // every note line any clone attested
	signers string
}

var syncClones = []string{"alice", "bob", "carol"}

func newSyncFixture(t *testing.T) *syncFixture {
	w := newWorld(t)
	f := &syncFixture{w: w, dir: w.dir, lines: map[string]bool{}}
	seed := w.seed() // clone "a"
	f.base = strings.TrimSpace(testenv.Git(t, seed, "rev-parse", "HEAD"))
	f.x = w.tick(seed, "T001")
	write := func(ids ...string) string {
		p := filepath.Join(seed, "specs/001-greeting/tasks.md")
		b, _ := os.ReadFile(p)
		for _, id := range ids {
			b = bytes.Replace(b, []byte("- [ ] "+id+" "), []byte("- [x] "+id+" "), 1)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		testenv.Git(t, seed, "commit", "-q", "-am", strings.Join(ids, " and ")+" done")
		return strings.TrimSpace(testenv.Git(t, seed, "rev-parse", "HEAD"))
	}
	f.y = write("T002", "T003")
	f.z = write("T004")
	testenv.Git(t, seed, "push", "-q", "origin", "HEAD:main")

	kg := testenv.LookPath(t, "ssh-keygen")
	var trust bytes.Buffer
	for _, name := range syncClones {
		key := filepath.Join(f.dir, name+".key")
		if out, err := exec.Command(kg, "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
		pub, err := os.ReadFile(key + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&trust, "%s@example.invalid namespaces=\"in-toto\" %s", name, pub)
		d := w.clone(name)
		w.run(d, 0, "init")
	}
	f.signers = filepath.Join(f.dir, "allowed_signers_all")
	if err := os.WriteFile(f.signers, trust.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f.attest("alice", f.z, "T004", "planning_work")
	w.run(f.clone("alice"), 0, "notes", "push")
	f.attest("alice", f.x, "T001", "planning_work")
	f.attest("bob", f.x, "T001", "tests_not_collected")
	f.attest("carol", f.x, "T001", "already_passing")
	f.attest("bob", f.y, "T002", "planning_work")
	f.attest("carol", f.y, "T003", "planning_work")
	for _, name := range syncClones {
		for l := range sideLines(t, f.clone(name)) {
			f.lines[l] = true
		}
	}
	return f
}

func (f *syncFixture) clone(name string) string { return filepath.Join(f.dir, name) }

func (f *syncFixture) attest(name, commit, task, reason string) {
	f.w.t.Helper()
	f.w.run(f.clone(name), 0, "attest", "tick", "--commit", commit, "--task", task, "--verdict", "regression_only",
		"--regression-reason", reason, "--signer", "ssh", "--key", filepath.Join(f.dir, name+".key"))
}

// copyTo copies the fixture's remote and clones into a new directory (clones
// find the remote by its absolute path, so the copies' origin is rewritten).
func (f *syncFixture) copyTo(t *testing.T) *syncFixture {
	g := *f
	g.dir = t.TempDir()
	for _, name := range append([]string{"remote.git"}, syncClones...) {
		if out, err := exec.Command("cp", "-R", filepath.Join(f.dir, name), filepath.Join(g.dir, name)).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
	}
	for _, name := range syncClones {
		testenv.Git(t, g.clone(name), "remote", "set-url", "origin", filepath.Join(g.dir, "remote.git"))
	}
	return &g
}

// sideLines is every note line a repository holds, in its notes ref and its
// conflicts ref, as "commit<TAB>line".
func sideLines(t *testing.T, repo string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, ref := range []string{"refs/notes/speccoder", "refs/notes/speccoder-conflicts"} {
		for commit, note := range notesOf(t, repo, ref) {
			for _, l := range strings.Split(strings.TrimSuffix(note, "\n"), "\n") {
				if l != "" {
					out[commit+"\t"+l] = true
				}
			}
		}
	}
	return out
}

// notesOf reads every note of ref in repo with git (commit → note).
func notesOf(t *testing.T, repo, ref string) map[string]string {
	t.Helper()
	cmd := exec.Command("git", "notes", "--ref", ref, "list")
	cmd.Dir, cmd.Env = repo, testenv.GitEnv()
	list, err := cmd.Output()
	if err != nil {
		return map[string]string{} // no such ref
	}
	var blobs, commits []string
	for _, l := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		if b, c, ok := strings.Cut(l, " "); ok {
			blobs, commits = append(blobs, b), append(commits, c)
		}
	}
	cat := exec.Command("git", "cat-file", "--batch")
	cat.Dir, cat.Env = repo, testenv.GitEnv()
	cat.Stdin = strings.NewReader(strings.Join(blobs, "\n") + "\n")
	raw, err := cat.Output()
	if err != nil {
		t.Fatalf("git cat-file in %s: %v", repo, err)
	}
	out := map[string]string{}
	r := bufio.NewReader(bytes.NewReader(raw))
	for _, c := range commits {
		var sha, typ string
		var size int
		if _, err := fmt.Fscanf(r, "%s %s %d\n", &sha, &typ, &size); err != nil {
			t.Fatalf("cat-file output: %v", err)
		}
		buf := make([]byte, size+1)
		if _, err := ioReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
		out[c] = string(buf[:size])
	}
	return out
}

func ioReadFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// permutations returns every order of cmds.
func permutations(cmds []string) [][]string {
	if len(cmds) <= 1 {
		return [][]string{append([]string{}, cmds...)}
	}
	var out [][]string
	for i := range cmds {
		rest := append(append([]string{}, cmds[:i]...), cmds[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{cmds[i]}, p...))
		}
	}
	return out
}

// TestNotesSyncEveryInterleaving: three clones that attested the same commit
// (one task three ways, two tasks of one commit) run `git fetch`, `git pull
// --rebase`, `taskproof notes fetch` and `taskproof notes push` in every order
// (each order run by every clone in turn, the first clone rotating): no command
// fails, no side ever loses a note line (each is in the notes ref or the
// conflicts ref), and after one more push and fetch each, the three clones and
// the remote hold the same notes, and the gate passes on each clone.
func TestNotesSyncEveryInterleaving(t *testing.T) {
	if testing.Short() {
		t.Skip("24 scenarios of three clones")
	}
	f := newSyncFixture(t)
	orders := permutations([]string{"git fetch", "git pull", "notes fetch", "notes push"})
	if len(orders) < 24 {
		t.Fatalf("%d orders", len(orders))
	}
	for i, order := range orders {
		t.Run(fmt.Sprintf("%02d_%s", i, strings.ReplaceAll(strings.Join(order, ","), " ", "_")), func(t *testing.T) {
			g := f.copyTo(t)
			w := *g.w
			w.t = t
			have := map[string]map[string]bool{}
			for _, name := range syncClones {
				have[name] = sideLines(t, g.clone(name))
			}
			step := func(name, op string) {
				d := g.clone(name)
				switch op {
				case "git fetch":
					testenv.Git(t, d, "fetch", "-q")
				case "git pull":
					testenv.Git(t, d, "pull", "-q", "--rebase")
				case "notes fetch":
					w.run(d, 0, "notes", "fetch")
				case "notes push":
					w.run(d, 0, "notes", "push")
				}
				now := sideLines(t, d)
				for l := range have[name] {
					if !now[l] {
						t.Fatalf("%s lost a note line after %s: %.120s…", name, op, l)
					}
				}
				have[name] = now
			}
			for _, op := range order {
				for k := range syncClones {
					step(syncClones[(i+k)%len(syncClones)], op)
				}
			}
			for _, name := range syncClones {
				step(name, "notes push")
			}
			for _, name := range syncClones {
				step(name, "notes fetch")
			}
			remote := filepath.Join(g.dir, "remote.git")
			want := sideLines(t, remote)
			for l := range f.lines {
				if !want[l] {
					t.Errorf("the remote lacks an attested line: %.120s…", l)
				}
			}
			for _, name := range syncClones {
				if got := sideLines(t, g.clone(name)); !sameSet(got, want) {
					t.Errorf("%s holds %d note lines, the remote %d", name, len(got), len(want))
				}
				for _, ref := range []string{"refs/notes/speccoder", "refs/notes/speccoder-conflicts"} {
					a := testenv.Git(t, g.clone(name), "rev-parse", ref)
					b := testenv.Git(t, remote, "rev-parse", ref)
					if a != b {
						t.Errorf("%s: %s at %s, the remote's at %s", name, ref, strings.TrimSpace(a), strings.TrimSpace(b))
					}
				}
			}
			// One statement per tick in the notes ref: the gate passes.
			w.run(g.clone("carol"), 0, "verify", "--branch", "--base", g.base, g.z, "--allowed-signers", g.signers)
		})
	}
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TestNotesSyncConflictBothTold: alice and bob attest the same task
// differently. bob's fetch names the conflict, the statements kept and the
// displaced one and where it is kept; alice, whose statement lost or won in
// bob's merge, is told too at her next fetch; the displaced statement is in
// refs/notes/speccoder-conflicts on both sides and the remote.
func TestNotesSyncConflictBothTold(t *testing.T) {
	f := newSyncFixture(t)
	g := f.copyTo(t)
	w := *g.w
	w.t = t
	alice, bob := g.clone("alice"), g.clone("bob")
	w.run(alice, 0, "notes", "push")
	_, bobErr := w.run(bob, 0, "notes", "fetch")
	for _, want := range []string{g.x[:12] + " 001-greeting/T001", "attest this task differently", "statements, because ",
		"refs/notes/speccoder-conflicts", "git notes --ref speccoder-conflicts show " + g.x, "verdict regression_only", "signed by "} {
		if !strings.Contains(bobErr, want) {
			t.Errorf("bob's notes fetch does not say %q:\n%s", want, bobErr)
		}
	}
	w.run(bob, 0, "notes", "push")
	_, aliceErr := w.run(alice, 0, "notes", "fetch")
	if !strings.Contains(aliceErr, "001-greeting/T001") || !strings.Contains(aliceErr, "refs/notes/speccoder-conflicts") {
		t.Errorf("alice is not told of the conflict on T001:\n%s", aliceErr)
	}
	for _, d := range []string{alice, bob, filepath.Join(g.dir, "remote.git")} {
		kept := notesOf(t, d, "refs/notes/speccoder")[g.x]
		displaced := notesOf(t, d, "refs/notes/speccoder-conflicts")[g.x]
		if kept == "" || displaced == "" {
			t.Fatalf("%s: kept %d bytes, displaced %d bytes on X", d, len(kept), len(displaced))
		}
	}
}

// TestNotesSyncPushTellsPusher: bob pushes without fetching first; notes push
// fetches and merges before pushing, so he is told of the conflict on T001 then.
func TestNotesSyncPushTellsPusher(t *testing.T) {
	f := newSyncFixture(t)
	g := f.copyTo(t)
	w := *g.w
	w.t = t
	w.run(g.clone("alice"), 0, "notes", "push")
	out, stderr := w.run(g.clone("bob"), 0, "notes", "push", "--format", "json")
	if !strings.Contains(stderr, "001-greeting/T001") || !strings.Contains(stderr, "refs/notes/speccoder-conflicts") ||
		!strings.Contains(out, `"conflicts"`) || !strings.Contains(out, `"kept_side"`) {
		t.Errorf("bob's notes push does not report the conflict:\nstdout\n%s\nstderr\n%s", out, stderr)
	}
}

// TestNotesSyncSkipRecords: skip records travel through their tracking refs:
// `git fetch` mirrors them, `notes fetch` creates the local record; two
// different records for one task are both kept (each side's), reported, and
// the commands still succeed.
func TestNotesSyncSkipRecords(t *testing.T) {
	f := newSyncFixture(t)
	g := f.copyTo(t)
	w := *g.w
	w.t = t
	alice, bob, carol := g.clone("alice"), g.clone("bob"), g.clone("carol")
	skip := func(d, by string) {
		w.run(d, 0, "attest", "decide", "--commit", g.y, "--task", "T004", "--verdict", "skipped", "--by", by, "--reason", "not this release, says "+by, "--unsigned")
	}
	skip(alice, "alice")
	w.run(alice, 0, "notes", "push")
	testenv.Git(t, bob, "fetch", "-q")
	ref := "refs/speccoder/skipped/001-greeting/T004"
	tracked := strings.TrimSpace(testenv.Git(t, bob, "rev-parse", "refs/speccoder/remotes/origin/skipped/001-greeting/T004"))
	w.run(bob, 0, "notes", "fetch")
	if got := strings.TrimSpace(testenv.Git(t, bob, "rev-parse", ref)); got != tracked {
		t.Fatalf("bob's %s is %s, the remote's %s", ref, got, tracked)
	}
	skip(carol, "carol")
	mine := strings.TrimSpace(testenv.Git(t, carol, "rev-parse", ref))
	testenv.Git(t, carol, "fetch", "-q")
	_, stderr := w.run(carol, 0, "notes", "fetch")
	if !strings.Contains(stderr, ref) || !strings.Contains(stderr, "differs") {
		t.Errorf("carol is not told her skip record differs from the remote's:\n%s", stderr)
	}
	if got := strings.TrimSpace(testenv.Git(t, carol, "rev-parse", ref)); got != mine {
		t.Errorf("carol's skip record was overwritten: %s, hers %s", got, mine)
	}
}
