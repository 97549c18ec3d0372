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
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
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
	return fastImportStream(tb, dir, func(w *bufio.Writer) error {
		_, err := w.Write(stream)
		return err
	}, args...)
}

// fastImportStream runs `git fast-import` in dir on what write writes to its
// standard input (through a pipe: a 50,000-commit stream is never held in
// memory whole) and returns the marks it exported (mark number → object id).
func fastImportStream(tb testing.TB, dir string, write func(w *bufio.Writer) error, args ...string) map[int]string {
	tb.Helper()
	marks := filepath.Join(dir, ".git", "benchrepo-marks")
	cmd := exec.Command(testenv.LookPath(tb, "git"), append([]string{"fast-import", "--quiet", "--export-marks=" + marks}, args...)...)
	var out bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, testenv.GitEnv(), &out, &out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("benchrepo: git fast-import: %v", err)
	}
	w := bufio.NewWriterSize(stdin, 1<<20)
	werr := write(w)
	if werr == nil {
		werr = w.Flush()
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil || werr != nil {
		tb.Fatalf("benchrepo: git fast-import: %v (writing the stream: %v)\n%s", err, werr, out.Bytes())
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
// commit, units one after another. It takes 1–6 s for 10,000 ticks (100 or 500
// tasks a unit; more on a loaded machine);
// the fast-import stream is written through a pipe, each unit's tasks file
// built once and its boxes ticked in place, so 50,000 ticks of 500-task files
// (750 MB of stream) need no more memory than one file.
func NewHistory(tb testing.TB, dir string, units, tasks int) *History {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	testenv.Git(tb, dir, "init", "-q", "-b", "main")
	when := Epoch.Unix()
	mark := 1
	ids := fastImportStream(tb, dir, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "commit refs/heads/main\nmark :1\ncommitter Dev <dev@example.invalid> %d +0000\n", when)
		fiData(w, "spec")
		for u := 0; u < units; u++ {
			fmt.Fprintf(w, "M 100644 inline specs/%s/tasks.md\n", Feature(u))
			fiData(w, TasksFile(u, tasks, 0))
		}
		for u := 0; u < units; u++ {
			file, boxes := openTasksFile(u, tasks)
			for i := 1; i <= tasks; i++ {
				mark++
				file[boxes[i-1]] = 'x' // now TasksFile(u, tasks, i)
				fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Dev <dev@example.invalid> %d +0000\n", mark, when+int64(mark))
				fiData(w, fmt.Sprintf("T%03d of %d", i, u))
				fmt.Fprintf(w, "from :%d\nM 100644 inline specs/%s/tasks.md\n", mark-1, Feature(u))
				fmt.Fprintf(w, "data %d\n", len(file))
				w.Write(file)
				if err := w.WriteByte('\n'); err != nil {
					return err
				}
			}
		}
		return nil
	})
	trees := make(map[string]string, units*tasks)
	for _, line := range strings.Split(testenv.Git(tb, dir, "log", "--format=%H %T", "main"), "\n") {
		if c, t, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			trees[c] = t
		}
	}
	h := &History{Dir: dir, Units: units, Tasks: tasks, Root: ids[1], Head: ids[mark], Ticks: make([]Tick, 0, units*tasks)}
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

// NewMoveHistory creates, in the new directory dir, a repository of two
// commits on main: units spec-kit units (specs/NNN-u/tasks.md) of tasks tasks
// each, the first half of each unit's tasks ticked, then one commit that
// renames every unit (specs/NNN-u → specs/NNN-moved) and rewords the titles
// of the open half, no box changed: each moved file keeps all its task IDs and
// half its titles, and every unit shares its IDs with every other (spec-kit's
// T001…), the shape that makes a tick walk pair moved files by their tasks.
// It returns the two commits.
func NewMoveHistory(tb testing.TB, dir string, units, tasks int) (base, head string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	testenv.Git(tb, dir, "init", "-q", "-b", "main")
	when := Epoch.Unix()
	ids := fastImportStream(tb, dir, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "commit refs/heads/main\nmark :1\ncommitter Dev <dev@example.invalid> %d +0000\n", when)
		fiData(w, "spec")
		for u := 0; u < units; u++ {
			fmt.Fprintf(w, "M 100644 inline specs/%s/tasks.md\n", Feature(u))
			fiData(w, TasksFile(u, tasks, tasks/2))
		}
		fmt.Fprintf(w, "commit refs/heads/main\nmark :2\ncommitter Dev <dev@example.invalid> %d +0000\n", when+1)
		fiData(w, "move every unit, reword half the tasks")
		w.WriteString("from :1\n")
		for u := 0; u < units; u++ {
			old := TasksFile(u, tasks, tasks/2)
			for i := tasks/2 + 1; i <= tasks; i++ {
				old = strings.Replace(old, taskText(u, i)+"\n", fmt.Sprintf("T%03d Reworded task %d of unit %d\n", i, i, u), 1)
			}
			fmt.Fprintf(w, "D specs/%s/tasks.md\nM 100644 inline specs/%03d-moved/tasks.md\n", Feature(u), u)
			fiData(w, old)
		}
		return nil
	})
	return ids[1], ids[2]
}

// NewMergeHistory creates, in the new directory dir, a repository whose main
// branch merges merges side branches of one commit each, as pull requests
// are merged: main starts with units spec-kit units of 100 open tasks; the
// i-th side branch forks from main's tip and ticks one task (unit i/100,
// task i%100+1), and main merges it (`git merge --no-ff`: the merge's tree
// is the side's with a main-only file changed, so it is neither parent's).
// Every task head holds checked comes from a side's tick brought in by a
// merge. It returns the root and the head.
func NewMergeHistory(tb testing.TB, dir string, merges int) (root, head string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	testenv.Git(tb, dir, "init", "-q", "-b", "main")
	when := Epoch.Unix()
	units := (merges + 99) / 100
	files := make([][]byte, units)
	boxes := make([][]int, units)
	for u := range units {
		files[u], boxes[u] = openTasksFile(u, 100)
	}
	mark := 1
	ids := fastImportStream(tb, dir, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "commit refs/heads/main\nmark :1\ncommitter Dev <dev@example.invalid> %d +0000\n", when)
		fiData(w, "plan")
		for u := range units {
			fmt.Fprintf(w, "M 100644 inline specs/%s/tasks.md\n", Feature(u))
			fmt.Fprintf(w, "data %d\n", len(files[u]))
			w.Write(files[u])
			w.WriteByte('\n')
		}
		tip := 1
		for i := range merges {
			u, task := i/100, i%100
			files[u][boxes[u][task]] = 'x'
			mark++
			side := mark
			fmt.Fprintf(w, "commit refs/heads/side\nmark :%d\ncommitter Dev <dev@example.invalid> %d +0000\n", side, when+int64(mark))
			fiData(w, fmt.Sprintf("T%03d of %d", task+1, u))
			fmt.Fprintf(w, "from :%d\nM 100644 inline specs/%s/tasks.md\n", tip, Feature(u))
			fmt.Fprintf(w, "data %d\n", len(files[u]))
			w.Write(files[u])
			w.WriteByte('\n')
			mark++
			fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Dev <dev@example.invalid> %d +0000\n", mark, when+int64(mark))
			fiData(w, fmt.Sprintf("merge %d", i))
			fmt.Fprintf(w, "from :%d\nmerge :%d\nM 100644 inline merges.txt\n", tip, side)
			fiData(w, fmt.Sprintf("%d\n", i))
			fmt.Fprintf(w, "M 100644 inline specs/%s/tasks.md\n", Feature(u))
			fmt.Fprintf(w, "data %d\n", len(files[u]))
			w.Write(files[u])
			w.WriteByte('\n')
			tip = mark
		}
		return nil
	})
	testenv.Git(tb, dir, "update-ref", "-d", "refs/heads/side")
	return ids[1], ids[mark]
}

// openTasksFile is TasksFile(u, tasks, 0) and the offset of each task's box
// character (the space between the brackets), task 1 first.
func openTasksFile(u, tasks int) ([]byte, []int) {
	file := []byte(TasksFile(u, tasks, 0))
	boxes := make([]int, 0, tasks)
	for off := 0; ; {
		i := bytes.Index(file[off:], []byte("\n- [ ] "))
		if i < 0 {
			break
		}
		boxes = append(boxes, off+i+4)
		off += i + 1
	}
	return file, boxes
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

// WriteSignedNotes writes, as WriteNotes does, the notes SignedNotes returns,
// without holding them all: ticks are signed a batch at a time (on all cores)
// and each batch is streamed to fast-import before the next is signed, so a
// 100,000-tick history needs the memory of one batch.
func (h *History) WriteSignedNotes(tb testing.TB, s signer.Signer) {
	tb.Helper()
	const batch = 1024
	notes := make([][]byte, batch)
	errs := make([]error, batch)
	n := runtime.GOMAXPROCS(0)
	fastImportStream(tb, h.Dir, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "commit %s\nmark :1\ncommitter taskproof <taskproof@users.noreply.invalid> %d +0000\n", NotesRef, Epoch.Unix())
		fiData(w, "notes")
		w.WriteString("deleteall\n")
		for start := 0; start < len(h.Ticks); start += batch {
			ticks := h.Ticks[start:min(start+batch, len(h.Ticks))]
			var wg sync.WaitGroup
			for k := 0; k < n; k++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := k; i < len(ticks); i += n {
						notes[i], errs[i] = ticks[i].signedNote(s)
					}
				}()
			}
			wg.Wait()
			for i, t := range ticks {
				if errs[i] != nil {
					return fmt.Errorf("note of %s: %w", t.Commit, errs[i])
				}
				fmt.Fprintf(w, "N inline %s\ndata %d\n", t.Commit, len(notes[i]))
				w.Write(notes[i])
				if err := w.WriteByte('\n'); err != nil {
					return err
				}
			}
		}
		return nil
	}, "--force")
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
func (h *History) SignedNotes(tb testing.TB, s signer.Signer) map[string][]byte {
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
				notes[i], errs[i] = h.Ticks[i].signedNote(s)
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

func (t *Tick) signedNote(sg signer.Signer) ([]byte, error) {
	p, err := t.Predicate()
	if err != nil {
		return nil, err
	}
	stmts, err := attest.TickStatements(statement.Subject{Name: statement.SubjectName(t.SpecUnit.Feature, t.TaskID), GitCommit: t.Commit}, p)
	if err != nil {
		return nil, err
	}
	var note []byte
	for _, s := range stmts {
		env, err := signer.Sign(context.Background(), s, sg)
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
func SSHKey(tb testing.TB, dir string) (keyPath string, sg signer.Signer, allowedSigners string) {
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
	if sg, err = signer.NewSSH(keyPath, nil); err != nil {
		tb.Fatal(err)
	}
	return keyPath, sg, allowedSigners
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

// Measurement is what Measure reads of one finished command.
type Measurement struct {
	Wall time.Duration
	// CPU is the child's user plus system time (GNU time's %U + %S, 10 ms
	// resolution; without /usr/bin/time, wait4's, which is the child's own).
	CPU time.Duration
	// MaxRSSKiB is the child's peak resident set size in KiB; Exact is false
	// when it is wait4's figure (see RunMeasured).
	MaxRSSKiB int64
	Exact     bool
}

// Measure runs cmd (its Stdout, Stderr, Dir and Env set by the caller), as
// RunMeasured does, and returns its wall time, CPU time and peak RSS.
func Measure(cmd *exec.Cmd) (Measurement, error) {
	var m Measurement
	gnuTime, lookErr := exec.LookPath("/usr/bin/time")
	var out string
	if lookErr == nil {
		f, err := os.CreateTemp("", "taskproof-rss-*")
		if err != nil {
			return m, err
		}
		out = f.Name()
		f.Close()
		defer os.Remove(out)
		cmd.Args = append([]string{gnuTime, "-f", "%M %U %S", "-o", out, cmd.Path}, cmd.Args[1:]...)
		cmd.Path = gnuTime
	}
	start := time.Now()
	runErr := cmd.Run()
	m.Wall = time.Since(start)
	// A command that ran and exited non-zero (a failing gate) is measured too;
	// its *exec.ExitError is returned with the figures.
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		return m, runErr
	}
	if out == "" {
		m.MaxRSSKiB = childMaxRSS(cmd.ProcessState)
		m.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return m, runErr
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return m, err
	}
	// The last line is ours; GNU time writes "Command exited …" lines before it.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	fields := strings.Fields(lines[len(lines)-1])
	if len(fields) != 3 {
		return m, fmt.Errorf("/usr/bin/time wrote %q, not \"maxrss user sys\"", b)
	}
	kb, err1 := strconv.ParseInt(fields[0], 10, 64)
	user, err2 := strconv.ParseFloat(fields[1], 64)
	sys, err3 := strconv.ParseFloat(fields[2], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return m, fmt.Errorf("/usr/bin/time wrote %q, not \"maxrss user sys\"", b)
	}
	m.MaxRSSKiB, m.Exact = kb, true
	m.CPU = time.Duration((user + sys) * float64(time.Second))
	return m, runErr
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
	m, err := Measure(cmd)
	return m.Wall, m.MaxRSSKiB, m.Exact, err
}

// AddTickBranch writes, on branch (created from Head), two commits: one adding
// specs/999-attest/tasks.md with one open task T001, and the tick commit
// ticking it, which it returns: a tick for `attest tick` at the tip of the
// whole history.
func (h *History) AddTickBranch(tb testing.TB, branch string) string {
	tb.Helper()
	when := Epoch.Unix() + int64(len(h.Ticks)) + 10
	ids := fastImportStream(tb, h.Dir, func(w *bufio.Writer) error {
		for i, box := range []string{" ", "x"} {
			fmt.Fprintf(w, "commit refs/heads/%s\nmark :%d\ncommitter Dev <dev@example.invalid> %d +0000\n", branch, i+1, when+int64(i))
			fiData(w, "attest "+box)
			if i == 0 {
				fmt.Fprintf(w, "from %s\n", h.Head)
			} else {
				w.WriteString("from :1\n")
			}
			w.WriteString("M 100644 inline specs/999-attest/tasks.md\n")
			fiData(w, fmt.Sprintf("# Tasks\n\n## Phase 1\n\n- [%s] T001 Attested at the tip\n", box))
		}
		return nil
	})
	return ids[2]
}
