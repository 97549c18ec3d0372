// Package benchrepo builds the benchmark repositories of docs/benchmarks.md
// quickly: a linear history of spec-kit units whose tasks are ticked one per
// commit, written by one `git fast-import` run, and a notes ref written by a
// second run (fast-import's N command), never by one notes update per tick.
//
// It is test support only (internal): the benchmarks of verify, audit and the
// merge gate's side-by-side comparison with scripts/bench-baseline.sh use it.
package benchrepo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// Epoch is the committer date of the first commit; commit n is dated Epoch+n s.
var Epoch = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

// NotesRef is the notes ref the notes are written to (taskproof's default).
const NotesRef = "refs/notes/speccoder"

// Tick is one generated tick commit: task Task (1-based) of unit Unit
// (0-based), ticked alone in Commit against its parent Parent.
type Tick struct {
	Commit, Parent, Tree string
	Unit, Task           int
	SpecUnit             specfmt.Unit
	TaskID               string
	// Line is the task line at Commit ("- [x] T001 …") without line ending.
	Line string
}

// History is a generated repository: Root is the commit adding every tasks
// file with all tasks open; Ticks are the Units×Tasks tick commits, oldest
// first, on branch main (Head is the last).
type History struct {
	Dir          string
	Units, Tasks int
	Root, Head   string
	Ticks        []Tick
}

// Feature is unit u's feature name ("007-u").
func Feature(u int) string { return fmt.Sprintf("%03d-u", u) }

// TasksFile is unit u's tasks file with its first ticked tasks ticked, of
// tasks tasks "- [ ] T001 Task 1 of unit u".
func TasksFile(u, tasks, ticked int) string {
	var b strings.Builder
	b.WriteString("# Tasks\n\n## Phase 1\n\n")
	for i := 1; i <= tasks; i++ {
		box := " "
		if i <= ticked {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] %s\n", box, taskText(u, i))
	}
	return b.String()
}

func taskText(u, i int) string { return fmt.Sprintf("T%03d Task %d of unit %d", i, i, u) }

func fiData(w *bufio.Writer, s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }

// fastImport runs `git fast-import` in dir on stream and returns the marks it
// exported (mark number → object id).
func fastImport(tb testing.TB, dir string, stream []byte, args ...string) map[int]string {
	tb.Helper()
	marks := filepath.Join(dir, ".git", "benchrepo-marks")
	cmd := exec.Command(testenv.LookPath(tb, "git"), append([]string{"fast-import", "--quiet", "--export-marks=" + marks}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), bytes.NewReader(stream)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("benchrepo: git fast-import: %v\n%s", err, out)
	}
	mb, err := os.ReadFile(marks)
	if err != nil {
		tb.Fatal(err)
	}
	ids := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(mb)), "\n") {
		if line == "" {
			continue
		}
		var m int
		var id string
		if _, err := fmt.Sscanf(line, ":%d %s", &m, &id); err != nil {
			tb.Fatalf("benchrepo: marks line %q: %v", line, err)
		}
		ids[m] = id
	}
	return ids
}

// NewHistory creates, in the new directory dir, a repository of units spec-kit
// units (specs/NNN-u/tasks.md) of tasks tasks each, every task ticked in its own
// commit, units one after another. It takes about a second for 10,000 ticks.
func NewHistory(tb testing.TB, dir string, units, tasks int) *History {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	testenv.Git(tb, dir, "init", "-q", "-b", "main")
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	when := Epoch.Unix()
	fmt.Fprintf(w, "commit refs/heads/main\nmark :1\ncommitter Dev <dev@example.invalid> %d +0000\n", when)
	fiData(w, "spec")
	for u := 0; u < units; u++ {
		fmt.Fprintf(w, "M 100644 inline specs/%s/tasks.md\n", Feature(u))
		fiData(w, TasksFile(u, tasks, 0))
	}
	mark := 1
	for u := 0; u < units; u++ {
		for i := 1; i <= tasks; i++ {
			mark++
			fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Dev <dev@example.invalid> %d +0000\n", mark, when+int64(mark))
			fiData(w, fmt.Sprintf("T%03d of %d", i, u))
			fmt.Fprintf(w, "from :%d\nM 100644 inline specs/%s/tasks.md\n", mark-1, Feature(u))
			fiData(w, TasksFile(u, tasks, i))
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	ids := fastImport(tb, dir, buf.Bytes())
	trees := map[string]string{}
	for _, line := range strings.Split(testenv.Git(tb, dir, "log", "--format=%H %T", "main"), "\n") {
		if c, t, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			trees[c] = t
		}
	}
	h := &History{Dir: dir, Units: units, Tasks: tasks, Root: ids[1], Head: ids[mark]}
	mark = 1
	for u := 0; u < units; u++ {
		for i := 1; i <= tasks; i++ {
			mark++
			c := ids[mark]
			h.Ticks = append(h.Ticks, Tick{Commit: c, Parent: ids[mark-1], Tree: trees[c], Unit: u, Task: i,
				SpecUnit: specfmt.Unit{Format: specfmt.Speckit, Feature: Feature(u), Dir: "specs/" + Feature(u)},
				TaskID:   fmt.Sprintf("T%03d", i), Line: "- [x] " + taskText(u, i)})
		}
	}
	return h
}

// WriteNotes writes notes (commit id → note text) as the one commit of ref
// NotesRef (replacing the ref and what it held) with one fast-import run.
func (h *History) WriteNotes(tb testing.TB, notes map[string][]byte) {
	tb.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	fmt.Fprintf(w, "commit %s\nmark :1\ncommitter taskproof <taskproof@users.noreply.invalid> %d +0000\n", NotesRef, Epoch.Unix())
	fiData(w, "notes")
	w.WriteString("deleteall\n")
	for _, t := range h.Ticks {
		if n, ok := notes[t.Commit]; ok {
			fmt.Fprintf(w, "N inline %s\n", t.Commit)
			fiData(w, string(n))
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	fastImport(tb, h.Dir, buf.Bytes(), "--force") // replaces the ref's history
}

// Predicate builds tick t's revision 3 regression_only predicate with
// predicate.Build, as `attest tick` would: line_hash from the tick commit's line,
// spec null (the generated tasks cite no section), no speccoder.toml, the
// regression reason no_story.
func (t *Tick) Predicate() (*predicate.Predicate, error) {
	f, err := specfmt.ParseTasks(t.SpecUnit, []byte(t.Line+"\n"))
	if err != nil {
		return nil, err
	}
	return predicate.Build(predicate.Input{
		Unit: t.SpecUnit, Task: f.Tasks[0], Tree: t.Tree, Verdict: predicate.RegressionOnly,
		Evidence: []byte(`{"regression":{"reason":"no_story"}}`),
		Time:     Epoch.Add(time.Duration(t.Unit*10000+t.Task) * time.Minute),
	})
}

// SignedNotes returns, for every tick, the note `attest tick` writes: the
// statements of attest.TickStatements (task-verification and its VSA), each in
// a DSSE envelope signed in-process by signer, one line each. The work is
// spread over all cores.
func (h *History) SignedNotes(tb testing.TB, signer attest.Signer) map[string][]byte {
	tb.Helper()
	notes := make([][]byte, len(h.Ticks))
	errs := make([]error, len(h.Ticks))
	var wg sync.WaitGroup
	n := runtime.GOMAXPROCS(0)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(h.Ticks); i += n {
				notes[i], errs[i] = h.Ticks[i].signedNote(signer)
			}
		}()
	}
	wg.Wait()
	out := make(map[string][]byte, len(h.Ticks))
	for i, t := range h.Ticks {
		if errs[i] != nil {
			tb.Fatalf("benchrepo: note of %s: %v", t.Commit, errs[i])
		}
		out[t.Commit] = notes[i]
	}
	return out
}

func (t *Tick) signedNote(signer attest.Signer) ([]byte, error) {
	p, err := t.Predicate()
	if err != nil {
		return nil, err
	}
	stmts, err := attest.TickStatements(attest.Subject{Name: attest.SubjectName(t.SpecUnit.Feature, t.TaskID), GitCommit: t.Commit}, p)
	if err != nil {
		return nil, err
	}
	var note []byte
	for _, s := range stmts {
		env, err := attest.Sign(context.Background(), s, signer)
		if err != nil {
			return nil, err
		}
		line, err := env.MarshalJSON()
		if err != nil {
			return nil, err
		}
		note = append(append(note, line...), '\n')
	}
	return note, nil
}

// SSHKey generates an ed25519 key with the real ssh-keygen in dir and returns
// the private key's path, the in-process signer for it and an allowed signers
// file (principal "bench@example.invalid", namespaces="in-toto") trusting it.
func SSHKey(tb testing.TB, dir string) (keyPath string, signer attest.Signer, allowedSigners string) {
	tb.Helper()
	keyPath = filepath.Join(dir, "id_ed25519")
	cmd := exec.Command(testenv.LookPath(tb, "ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", keyPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("benchrepo: ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(keyPath + ".pub")
	if err != nil {
		tb.Fatal(err)
	}
	fields := strings.Fields(string(pub))
	allowedSigners = filepath.Join(dir, "allowed_signers")
	line := fmt.Sprintf("bench@example.invalid namespaces=\"in-toto\" %s %s\n", fields[0], fields[1])
	if err := os.WriteFile(allowedSigners, []byte(line), 0o644); err != nil {
		tb.Fatal(err)
	}
	if signer, err = attest.NewSSHSigner(keyPath, nil); err != nil {
		tb.Fatal(err)
	}
	return keyPath, signer, allowedSigners
}

// ReportCPU starts counting the process's CPU time (user and system, all
// threads) and returns the function that reports it per op as "cpu-s/op":
// call it after the b.Loop() loop. On a shared machine CPU time varies less
// than wall time; wall time ≈ cpu-s/op ÷ cores used.
func ReportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric((processCPU()-start).Seconds()/float64(b.N), "cpu-s/op")
		}
	}
}

// RunMeasured runs cmd (its Stdout, Stderr, Dir and Env set by the caller) and
// returns its wall time and peak resident set size in KiB. The peak is read by
// GNU time (/usr/bin/time -f %M), which forks the command from its own small
// process: the rusage a Go program gets from wait4 for a child it started is
// at least the parent's own peak, because os/exec starts children with
// vfork(2), whose shared address space Linux counts in the child's maxrss at
// exec (a benchmark process that generated a repository first would report its
// own hundreds of MB). Without /usr/bin/time, wait4's figure is returned with
// exact false. A command that ran and exited non-zero is measured too: err is
// then its *exec.ExitError.
func RunMeasured(cmd *exec.Cmd) (wall time.Duration, maxrssKiB int64, exact bool, err error) {
	gnuTime, lookErr := exec.LookPath("/usr/bin/time")
	var out string
	if lookErr == nil {
		f, err := os.CreateTemp("", "taskproof-rss-*")
		if err != nil {
			return 0, 0, false, err
		}
		out = f.Name()
		f.Close()
		defer os.Remove(out)
		cmd.Args = append([]string{gnuTime, "-f", "%M", "-o", out, cmd.Path}, cmd.Args[1:]...)
		cmd.Path = gnuTime
	}
	start := time.Now()
	runErr := cmd.Run()
	wall = time.Since(start)
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return wall, 0, false, runErr
	}
	if out != "" {
		b, err := os.ReadFile(out)
		if err != nil {
			return wall, 0, false, err
		}
		fields := strings.Fields(string(b))
		if len(fields) > 0 {
			if kb, err := strconv.ParseInt(fields[len(fields)-1], 10, 64); err == nil {
				return wall, kb, true, runErr
			}
		}
		return wall, 0, false, fmt.Errorf("/usr/bin/time wrote %q, not a size", b)
	}
	return wall, childMaxRSS(cmd.ProcessState), false, runErr
}
