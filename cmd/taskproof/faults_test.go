//go:build unix

package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/testenv"
)

// Fault injection: every writer is killed (SIGKILL, with the git processes
// it started) at random moments, and what it leaves must be a repository
// that loses nothing and lets the command be run again to completion.
//
// TASKPROOF_FAULT_TRIALS sets the trials per command (default 4; `make
// faults` runs many more), TASKPROOF_FAULT_SEED the random seed (printed, to
// replay a failure).

// faultKind is one writer under test: the command alice runs, how its
// repository is prepared (in the copy of the base world it runs on), and
// what must hold once it ran to completion.
type faultKind struct {
	name    string
	prepare func(f *faultWorld)
	args    func(f *faultWorld) []string
	// carries: the command moves statements from one commit to another, so
	// what must not be lost is each task's statements, not their bytes.
	carries bool
	// done checks the end state after the command ran to completion.
	done func(f *faultWorld)
}

// faultWorld is one copy of the base world: a bare remote, alice's clone
// (where the commands run) and the world's key and trust.
type faultWorld struct {
	t              *testing.T
	w              *world
	dir            string
	remote, alice  string
	c1, c2, c3     string // the feature branch's ticks of T001, T002, T003
	key, signers   string
	bin            string
	beforeSubjects map[string]bool
	beforePayloads map[string]bool
}

func faultTrials(t *testing.T) int {
	if s := os.Getenv("TASKPROOF_FAULT_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TASKPROOF_FAULT_TRIALS=%q: want a positive number", s)
		}
		return n
	}
	return 4
}

// TestFaultInjection kills attest tick, decide, sign, carry, notes push and
// notes fetch at random points and checks, after each kill: git fsck is
// clean in both repositories; every notes ref and skip record names a
// commit; every note line is a whole JSON line; no statement is lost (each
// is still in the notes ref or the conflicts ref, locally or on the remote;
// a carry's task keeps its statements on FROM or TO); a lock file the killed
// command left is reported (exit 4, naming it) rather than waited on or
// removed; and, the lock removed, the same command runs to completion
// without --force.
func TestFaultInjection(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TASKPROOF_FAULT_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("TASKPROOF_FAULT_SEED=%q: %v", s, err)
		}
	}
	t.Logf("TASKPROOF_FAULT_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	base := faultBase(t)
	trials := faultTrials(t)
	for _, k := range faultKinds() {
		t.Run(k.name, func(t *testing.T) {
			template := base.copy(t, t.TempDir())
			if k.prepare != nil {
				k.prepare(template)
			}
			// One run to completion: the command works, and how long it takes
			// bounds when it is killed.
			warm := template.copy(t, t.TempDir())
			start := time.Now()
			warm.runOK(k.args(warm)...)
			span := time.Since(start)
			k.done(warm)
			var kills, locks int
			defer func() {
				t.Logf("%d trials: %d killed before the end (the others had ended), %d left a ref lock", trials, kills, locks)
			}()
			for trial := range trials {
				f := template.copy(t, t.TempDir())
				f.snapshot()
				// Half the kills at any moment of the run, half just after it
				// first moved a ref (between two of its writes).
				delay := time.Duration(rng.Int64N(int64(span) + 1))
				watch := trial%2 == 1
				if watch {
					delay = time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
				}
				killed := f.kill(delay, watch, k.args(f)...)
				f.check(fmt.Sprintf("trial %d (killed %s after %s, watching refs %v)", trial, killed, delay, watch), k.carries)
				if killed != "" {
					kills++
				}
				if f.clearLocks(k.args(f)) {
					locks++
				}
				code, _, stderr := f.run(k.args(f)...)
				if code != 0 && !(code == 2 && strings.Contains(stderr, "already attested")) {
					t.Fatalf("trial %d: the command run again after the kill (%s): exit %d\n%s", trial, delay, code, stderr)
				}
				f.check(fmt.Sprintf("trial %d, run again", trial), k.carries)
				k.done(f)
			}
		})
	}
}

// faultBase builds the base world: main with the demo spec; a feature branch
// ticking T001, T002 and T003; alice attested T001 (signed, pushed) and T002
// (unsigned, not pushed); eve attested T003 (signed) and pushed it, so the
// two clones' notes have diverged.
func faultBase(t *testing.T) *faultWorld {
	w := newWorld(t)
	a := w.seed()
	w.run(a, 0, "init")
	testenv.Git(t, a, "switch", "-q", "-c", "feature")
	f := &faultWorld{t: t, w: w, dir: w.dir, remote: w.remote, alice: a, key: w.key, signers: w.signers, bin: w.bin}
	f.c1, f.c2, f.c3 = w.tick(a, "T001"), w.tick(a, "T002"), w.tick(a, "T003")
	testenv.Git(t, a, "push", "-q", "origin", "feature")
	w.attest(a, f.c1)
	w.run(a, 0, "notes", "push")
	eve := w.clone("eve")
	w.run(eve, 0, "init")
	w.run(eve, 0, "notes", "fetch")
	w.attest(eve, f.c3)
	w.run(eve, 0, "notes", "push")
	w.run(a, 0, "attest", "tick", "--commit", f.c2, "--verdict", "regression_only", "--regression-reason", "planning_work", "--unsigned")
	return f
}

func faultKinds() []faultKind {
	regression := []string{"--verdict", "regression_only", "--regression-reason", "planning_work"}
	skipRef := "refs/speccoder/skipped/001-greeting/T004"
	return []faultKind{
		{
			name: "tick",
			args: func(f *faultWorld) []string {
				return append([]string{"attest", "tick", "--commit", f.c3, "--signer", "ssh", "--key", f.key}, regression...)
			},
			done: func(f *faultWorld) { f.wantSubject(f.c3, "001-greeting/T003") },
		},
		{
			name: "decide",
			args: func(f *faultWorld) []string {
				return []string{"attest", "decide", "--commit", f.c3, "--task", "T004", "--verdict", "skipped",
					"--by", "dev@example.invalid", "--reason", "later", "--signer", "ssh", "--key", f.key}
			},
			done: func(f *faultWorld) {
				rec := strings.TrimSpace(testenv.Git(f.t, f.alice, "rev-parse", skipRef))
				f.wantSubject(rec, "001-greeting/T004")
			},
		},
		{
			name: "sign",
			args: func(f *faultWorld) []string {
				return []string{"attest", "sign", "--signer", "ssh", "--key", f.key, f.c1, f.c2}
			},
			done: func(f *faultWorld) {
				for _, l := range f.noteLines(f.alice, "refs/notes/speccoder", f.c2) {
					var e envelope
					if json.Unmarshal([]byte(l), &e) == nil && len(e.Signatures) == 0 {
						f.t.Fatalf("an envelope of %s's note is still unsigned: %s", f.c2[:12], l)
					}
				}
			},
		},
		{
			name: "carry",
			prepare: func(f *faultWorld) {
				// A rebase of the feature branch onto a main that moved (init
				// made git copy the notes).
				testenv.Git(f.t, f.alice, "switch", "-q", "main")
				writeFile(f.t, filepath.Join(f.alice, "NEWS"), "news\n")
				testenv.Git(f.t, f.alice, "add", "NEWS")
				testenv.Git(f.t, f.alice, "commit", "-q", "-m", "news")
				testenv.Git(f.t, f.alice, "switch", "-q", "feature")
				testenv.Git(f.t, f.alice, "rebase", "-q", "main")
			},
			args: func(f *faultWorld) []string {
				return []string{"attest", "carry", "ORIG_HEAD~3..ORIG_HEAD", "HEAD~3..HEAD", "--insecure-skip-verify", "--signer", "ssh", "--key", f.key}
			},
			carries: true,
			done: func(f *faultWorld) {
				for i, task := range []string{"001-greeting/T001", "001-greeting/T002"} {
					to := strings.TrimSpace(testenv.Git(f.t, f.alice, "rev-parse", fmt.Sprintf("HEAD~%d", 2-i)))
					f.wantSubject(to, task)
				}
			},
		},
		{
			name: "push",
			args: func(f *faultWorld) []string { return []string{"notes", "push"} },
			done: func(f *faultWorld) {
				local := f.payloads(f.alice, "refs/notes/speccoder")
				remote := f.payloads(f.remote, "refs/notes/speccoder")
				for p := range local {
					if !remote[p] {
						f.t.Fatalf("after notes push the remote lacks statement %s", p[:12])
					}
				}
			},
		},
		{
			name: "fetch",
			args: func(f *faultWorld) []string { return []string{"notes", "fetch"} },
			done: func(f *faultWorld) { f.wantSubject(f.c3, "001-greeting/T003") },
		},
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copy copies the world's directory into dir (cp -a keeps every file of both
// repositories as it is) and points alice's origin at the copied remote.
func (f *faultWorld) copy(t *testing.T, dir string) *faultWorld {
	t.Helper()
	if out, err := exec.Command("cp", "-a", f.dir+"/.", dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	c := *f
	c.t, c.dir = t, dir
	c.remote = filepath.Join(dir, filepath.Base(f.remote))
	c.alice = filepath.Join(dir, filepath.Base(f.alice))
	testenv.Git(t, c.alice, "remote", "set-url", "origin", c.remote)
	return &c
}

// run runs the binary in alice's clone.
func (f *faultWorld) run(args ...string) (int, string, string) {
	f.t.Helper()
	stdout, stderr, code := runTaskproof(f.t, f.bin, append([]string{"-C", f.alice}, args...)...)
	return code, stdout, stderr
}

func (f *faultWorld) runOK(args ...string) {
	f.t.Helper()
	if code, stdout, stderr := f.run(args...); code != 0 {
		f.t.Fatalf("taskproof %v: exit %d\n%s%s", args, code, stdout, stderr)
	}
}

// kill starts the command in a process group of its own and kills the group
// (it and the git processes it started) with SIGKILL delay after it starts,
// or, with watch, delay after it first moves a notes ref or skip record of
// alice or the remote. It says when it killed ("" when the command had
// ended first).
func (f *faultWorld) kill(delay time.Duration, watch bool, args ...string) string {
	f.t.Helper()
	refs := f.refFiles()
	cmd := exec.Command(f.bin, append([]string{"-C", f.alice}, args...)...)
	cmd.Env = testenv.GitEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	start := time.Now()
	if watch {
		moved := false
		for !moved {
			select {
			case <-done:
				return ""
			case <-time.After(500 * time.Microsecond):
			}
			now := f.refFiles()
			for name, v := range now {
				moved = moved || refs[name] != v
			}
			moved = moved || len(now) != len(refs)
		}
	}
	select {
	case <-done:
		return ""
	case <-time.After(delay):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		// git processes of the group that outlived the wait are gone too.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return fmt.Sprintf("at %s", time.Since(start).Round(time.Millisecond))
	}
}

// refFiles reads the loose notes refs and skip records of alice and the
// remote, by path.
func (f *faultWorld) refFiles() map[string]string {
	out := map[string]string{}
	for _, dir := range []string{filepath.Join(f.alice, ".git", "refs"), filepath.Join(f.remote, "refs")} {
		for _, sub := range []string{"notes", "speccoder"} {
			filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".lock") {
					b, _ := os.ReadFile(p)
					out[p] = string(b)
				}
				return nil
			})
		}
	}
	return out
}

// snapshot records the statements of both repositories before a kill.
func (f *faultWorld) snapshot() {
	f.beforeSubjects, f.beforePayloads = map[string]bool{}, map[string]bool{}
	for _, repo := range []string{f.alice, f.remote} {
		for _, ref := range []string{"refs/notes/speccoder", "refs/notes/speccoder-conflicts"} {
			for p, subject := range f.statements(repo, ref) {
				f.beforePayloads[p] = true
				f.beforeSubjects[subject] = true
			}
		}
	}
}

// check verifies what a killed (or completed) command left; carries relaxes
// "every statement's bytes" to "every task's statements".
func (f *faultWorld) check(when string, carries bool) {
	f.t.Helper()
	subjects, payloads := map[string]bool{}, map[string]bool{}
	for _, repo := range []string{f.alice, f.remote} {
		if out, err := gitOut(repo, "fsck", "--no-progress"); err != nil {
			f.t.Fatalf("%s: git fsck in %s: %v\n%s", when, filepath.Base(repo), err, out)
		}
		refs, err := gitOut(repo, "for-each-ref", "--format=%(objecttype) %(refname)", "refs/notes/", "refs/speccoder/")
		if err != nil {
			f.t.Fatalf("%s: listing refs in %s: %v\n%s", when, filepath.Base(repo), err, refs)
		}
		for _, l := range strings.Split(strings.TrimSpace(refs), "\n") {
			if l != "" && !strings.HasPrefix(l, "commit ") {
				f.t.Fatalf("%s: %s: a ref names no commit: %s", when, filepath.Base(repo), l)
			}
		}
		for _, ref := range []string{"refs/notes/speccoder", "refs/notes/speccoder-conflicts"} {
			for p, subject := range f.statements(repo, ref) {
				payloads[p], subjects[subject] = true, true
			}
		}
	}
	for p := range f.beforePayloads {
		if !carries && !payloads[p] {
			f.t.Fatalf("%s: statement %s was lost", when, p[:12])
		}
	}
	for s := range f.beforeSubjects {
		if !subjects[s] {
			f.t.Fatalf("%s: every statement of %s was lost", when, s)
		}
	}
}

// clearLocks finds the ref lock files the killed command left in either
// repository; for each, the command run again must exit 4 naming it (a
// lock is reported, never waited on as if held, never removed by taskproof),
// and then it is removed, as its message says to.
func (f *faultWorld) clearLocks(args []string) (found bool) {
	f.t.Helper()
	var locks []string
	for _, repo := range []string{filepath.Join(f.alice, ".git"), f.remote} {
		filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
			// The locks of refs and of the files holding them; not git's
			// maintenance.lock, which only makes an automatic gc skip a turn.
			rel, _ := filepath.Rel(repo, p)
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") &&
				(strings.HasPrefix(rel, "refs"+string(filepath.Separator)) || rel == "packed-refs.lock" || rel == "config.lock") {
				locks = append(locks, p)
			}
			return nil
		})
	}
	if len(locks) == 0 {
		return false
	}
	old := time.Now().Add(-time.Minute)
	for _, l := range locks {
		os.Chtimes(l, old, old)
	}
	code, _, stderr := f.run(args...)
	named := false
	for _, l := range locks {
		named = named || strings.Contains(stderr, l)
	}
	if code != 4 || !named {
		f.t.Fatalf("lock files %v left by the killed command: the command run again exits %d, want 4 naming one of them:\n%s", locks, code, stderr)
	}
	for _, l := range locks {
		os.Remove(l)
	}
	return true
}

// statements maps the SHA-256 of each statement ref's notes hold (every note
// line must be a whole JSON object) to its subject name.
func (f *faultWorld) statements(repo, ref string) map[string]string {
	f.t.Helper()
	out := map[string]string{}
	list, err := gitOut(repo, "notes", "--ref", ref, "list")
	if err != nil {
		return out // no such notes ref
	}
	var blobs bytes.Buffer
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		if fields := strings.Fields(l); len(fields) == 2 {
			blobs.WriteString(fields[0] + "\n")
		}
	}
	cmd := exec.Command("git", "-C", repo, "cat-file", "--batch")
	cmd.Env, cmd.Stdin = testenv.GitEnv(), &blobs
	b, err := cmd.Output()
	if err != nil {
		f.t.Fatalf("reading the notes of %s in %s: %v", ref, filepath.Base(repo), err)
	}
	r := bufio.NewReader(bytes.NewReader(b))
	for {
		header, err := r.ReadString('\n')
		if err != nil {
			break
		}
		var id, typ string
		var size int
		fmt.Sscanf(header, "%s %s %d", &id, &typ, &size)
		body := make([]byte, size+1)
		if _, err := io.ReadFull(r, body); err != nil {
			f.t.Fatalf("reading blob %s: %v", id, err)
		}
		for _, l := range strings.Split(string(body[:size]), "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			var e struct {
				Payload []byte `json:"payload"`
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				f.t.Fatalf("%s in %s: a note line is not a whole JSON object (%v): %.80s", ref, filepath.Base(repo), err, l)
			}
			var st struct {
				Subject []struct {
					Name string `json:"name"`
				} `json:"subject"`
			}
			if json.Unmarshal(e.Payload, &st) == nil && len(st.Subject) == 1 {
				sum := sha256.Sum256(e.Payload)
				out[hex.EncodeToString(sum[:])] = st.Subject[0].Name
			}
		}
	}
	return out
}

// payloads is the set of statement digests ref's notes hold in repo.
func (f *faultWorld) payloads(repo, ref string) map[string]bool {
	out := map[string]bool{}
	for p := range f.statements(repo, ref) {
		out[p] = true
	}
	return out
}

// noteLines are the lines of commit's note under ref in repo.
func (f *faultWorld) noteLines(repo, ref, commit string) []string {
	out, err := gitOut(repo, "notes", "--ref", ref, "show", commit)
	if err != nil {
		f.t.Fatalf("the note of %s: %v\n%s", commit[:12], err, out)
	}
	return strings.Split(strings.TrimSpace(out), "\n")
}

// wantSubject fails unless alice's note of commit holds a statement about
// subject.
func (f *faultWorld) wantSubject(commit, subject string) {
	f.t.Helper()
	for _, l := range f.noteLines(f.alice, "refs/notes/speccoder", commit) {
		var e struct {
			Payload []byte `json:"payload"`
		}
		if json.Unmarshal([]byte(l), &e) == nil && bytes.Contains(e.Payload, []byte(`"name":"`+subject+`"`)) {
			return
		}
	}
	f.t.Fatalf("the note of %s holds no statement about %s", commit[:12], subject)
}

// gitOut runs the real git in dir and returns its combined output.
func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = testenv.GitEnv()
	b, err := cmd.CombinedOutput()
	return string(b), err
}
