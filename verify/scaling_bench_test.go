package verify_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/verify"
)

// scalingTasks is the tasks per unit of BenchmarkScaling's repositories.
const scalingTasks = 500

// scalingSizes are BenchmarkScaling's history lengths in ticks: 1k, 10k and
// 50k by default; 100k with TASKPROOF_BENCH_100K=1; TASKPROOF_BENCH_50K=0
// leaves 50k out (for a quick run).
func scalingSizes() []int {
	sizes := []int{1000, 10000}
	if os.Getenv("TASKPROOF_BENCH_50K") != "0" {
		sizes = append(sizes, 50000)
	}
	if os.Getenv("TASKPROOF_BENCH_100K") == "1" {
		sizes = append(sizes, 100000)
	}
	return sizes
}

// BenchmarkScaling runs the taskproof binary on generated spec-kit histories of
// growing length (one SSH-signed tick per commit, 500 tasks per unit, notes as
// `attest tick` writes them) and reports, per size and command, the child's
// wall time (wall-s), CPU time (cpu-s, user + system), peak RSS (rss-MB, all
// three read by GNU time: benchrepo.Measure) and, where the command walks
// every tick, CPU per tick (cpu-us/tick). The sub-benchmarks of each size:
//
//   - git-cat-file: `git cat-file --batch` reading the objects `verify --branch`
//     needs (every commit of the range, its root tree, the trees down to the
//     tasks file, every tasks.md version, every note blob), listed once
//     beforehand with `git rev-list`, `git cat-file --batch-check` and
//     `git notes list` (not measured): the floor of git's own object reading;
//   - verify: `verify --branch --format json` over every tick, with x-git and
//     x-git-cpu, its wall and CPU time over git-cat-file's;
//   - pr-gate: `verify --branch` over the history's last 10 ticks;
//   - ticks: `ticks --format json` of all of HEAD's history;
//   - audit-all: `audit --all --format json`;
//   - attest-tick: `attest tick` (SSH key, regression_only) of a tick commit at
//     the tip of the history, run again on each op (it replaces its own lines).
//
// Generating a size is not measured; its time is logged. No figure is asserted:
// the targets (docs/benchmarks.md#scaling) are read off the report.
//
//	go test -run '^$' -bench Scaling -benchtime 1x -timeout 60m ./verify/
//	TASKPROOF_BENCH_50K=0 … (1k and 10k only)   TASKPROOF_BENCH_100K=1 … (adds 100k)
func BenchmarkScaling(b *testing.B) {
	bin := testenv.Binary(b)
	for _, n := range scalingSizes() {
		b.Run(fmt.Sprintf("ticks=%d", n), func(b *testing.B) { benchScalingSize(b, bin, n) })
	}
}

func benchScalingSize(b *testing.B, bin string, n int) {
	dir := b.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	keyPath, signer, allowed := benchrepo.SSHKey(b, keys)
	h := benchrepo.NewHistory(b, filepath.Join(dir, "repo"), n/scalingTasks, scalingTasks)
	history := time.Since(start)
	h.WriteSignedNotes(b, signer)
	b.Logf("generated %d ticks in %.1f s (history %.1f s, signed notes %.1f s)", n, time.Since(start).Seconds(), history.Seconds(), (time.Since(start) - history).Seconds())

	list := filepath.Join(dir, "objects.txt")
	objects := writeGateObjects(b, h, list)
	b.Logf("git-cat-file list: %d objects", objects)

	// measure runs cmd() once per op and reports the mean wall and CPU time and
	// the largest peak RSS; perTick > 0 adds CPU per tick.
	measure := func(b *testing.B, cmd func() *exec.Cmd, perTick int, check func(stdout []byte)) benchrepo.Measurement {
		var sum benchrepo.Measurement
		ops := 0
		for b.Loop() {
			c := cmd()
			var stdout, stderr bytes.Buffer
			if c.Stdout == nil {
				c.Stdout = &stdout
			}
			c.Stderr = &stderr
			m, err := benchrepo.Measure(c)
			if err != nil {
				b.Fatalf("%s: %v\n%s", strings.Join(c.Args, " "), err, stderr.Bytes())
			}
			if !m.Exact {
				b.Log("no /usr/bin/time: rss-MB is wait4's, which counts this benchmark process's own peak")
			}
			if check != nil {
				check(stdout.Bytes())
			}
			sum.Wall += m.Wall
			sum.CPU += m.CPU
			sum.MaxRSSKiB = max(sum.MaxRSSKiB, m.MaxRSSKiB)
			ops++
		}
		mean := benchrepo.Measurement{Wall: sum.Wall / time.Duration(ops), CPU: sum.CPU / time.Duration(ops), MaxRSSKiB: sum.MaxRSSKiB}
		b.ReportMetric(mean.Wall.Seconds(), "wall-s")
		b.ReportMetric(mean.CPU.Seconds(), "cpu-s")
		b.ReportMetric(float64(mean.MaxRSSKiB)/1024, "rss-MB")
		if perTick > 0 {
			b.ReportMetric(float64(mean.CPU.Microseconds())/float64(perTick), "cpu-us/tick")
		}
		return mean
	}
	taskproof := func(args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			c := exec.Command(bin, args...)
			c.Dir, c.Env = h.Dir, testenv.GitEnv()
			return c
		}
	}
	evidenced := func(want int) func([]byte) {
		return func(out []byte) {
			if !bytes.Contains(out, []byte(`"conclusion": "success"`)) && !bytes.Contains(out, []byte(`"conclusion":"success"`)) {
				b.Fatalf("verify did not conclude success: %.300s", out)
			}
			if got := bytes.Count(out, []byte(`"status": "evidenced"`)) + bytes.Count(out, []byte(`"status":"evidenced"`)); got != want {
				b.Fatalf("verify: %d evidenced ticks, want %d", got, want)
			}
		}
	}

	var git benchrepo.Measurement
	b.Run("git-cat-file", func(b *testing.B) {
		git = measure(b, func() *exec.Cmd {
			f, err := os.Open(list)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { f.Close() })
			c := exec.Command(testenv.LookPath(b, "git"), "cat-file", "--batch")
			c.Dir, c.Env, c.Stdin, c.Stdout = h.Dir, testenv.GitEnv(), f, io.Discard
			return c
		}, 0, nil)
	})
	b.Run("verify", func(b *testing.B) {
		m := measure(b, taskproof("verify", "--branch", "--base", h.Root, "--allowed-signers", allowed, "--format", "json", h.Head), n, evidenced(n))
		if git.Wall > 0 && git.CPU > 0 {
			b.ReportMetric(m.Wall.Seconds()/git.Wall.Seconds(), "x-git")
			b.ReportMetric(m.CPU.Seconds()/git.CPU.Seconds(), "x-git-cpu")
		}
	})
	b.Run("pr-gate", func(b *testing.B) {
		base := h.Ticks[len(h.Ticks)-11].Commit
		measure(b, taskproof("verify", "--branch", "--base", base, "--allowed-signers", allowed, "--format", "json", h.Head), 0, evidenced(10))
	})
	b.Run("ticks", func(b *testing.B) {
		measure(b, taskproof("ticks", "--format", "json", h.Head), n, func(out []byte) {
			if got := bytes.Count(out, []byte(`"kind":"tick"`)) + bytes.Count(out, []byte(`"kind": "tick"`)); got != n {
				b.Fatalf("ticks: %d ticks listed, want %d", got, n)
			}
		})
	})
	b.Run("audit-all", func(b *testing.B) {
		measure(b, taskproof("audit", "--all", "--format", "json"), n, func(out []byte) {
			if !bytes.Contains(out, []byte(`"statements"`)) {
				b.Fatalf("audit --all printed no statement count: %.400s", out)
			}
		})
	})
	tip := h.AddTickBranch(b, "attest")
	b.Run("attest-tick", func(b *testing.B) {
		measure(b, taskproof("attest", "tick", "--commit", tip, "--verdict", "regression_only", "--regression-reason", "planning_work",
			"--signer", "ssh", "--key", keyPath), 0, nil)
	})
}

// writeGateObjects writes to list the ids of the objects `verify --branch`
// reads over h's whole range, one a line, for `git cat-file --batch`: each tick
// commit, its root tree, specs/ and the unit's directory trees, the unit's
// tasks.md blob, and every note blob. It returns how many it wrote.
func writeGateObjects(b *testing.B, h *benchrepo.History, list string) int {
	b.Helper()
	git := testenv.LookPath(b, "git")
	commits := strings.Fields(testenv.Git(b, h.Dir, "rev-list", "--reverse", h.Root+".."+h.Head))
	if len(commits) != len(h.Ticks) {
		b.Fatalf("rev-list: %d commits, want %d", len(commits), len(h.Ticks))
	}
	// Resolve the paths with one --batch-check run (not measured).
	var query bytes.Buffer
	for i, c := range commits {
		dir := "specs/" + benchrepo.Feature(h.Ticks[i].Unit)
		fmt.Fprintf(&query, "%s^{tree}\n%s:specs\n%s:%s\n%s:%s/tasks.md\n", c, c, c, dir, c, dir)
	}
	cmd := exec.Command(git, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	var out, stderr bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = h.Dir, testenv.GitEnv(), &query, &out, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("git cat-file --batch-check: %v\n%s", err, stderr.Bytes())
	}
	resolved := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(resolved) != 4*len(commits) {
		b.Fatalf("git cat-file --batch-check: %d lines for %d paths", len(resolved), 4*len(commits))
	}
	f, err := os.Create(list)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	count := 0
	for i, c := range commits {
		fmt.Fprintln(w, c)
		count++
		for _, line := range resolved[4*i : 4*i+4] {
			id, typ, ok := strings.Cut(line, " ")
			if !ok || (typ != "tree" && typ != "blob") {
				b.Fatalf("git cat-file --batch-check: %q", line)
			}
			fmt.Fprintln(w, id)
			count++
		}
	}
	notes := strings.Split(strings.TrimSpace(testenv.Git(b, h.Dir, "notes", "--ref", benchrepo.NotesRef, "list")), "\n")
	if len(notes) != len(h.Ticks) {
		b.Fatalf("git notes list: %d notes, want %d", len(notes), len(h.Ticks))
	}
	for _, line := range notes {
		blob, _, _ := strings.Cut(line, " ")
		fmt.Fprintln(w, blob)
		count++
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return count
}

// TestScalingRepo writes a BenchmarkScaling history to the directory named by
// TASKPROOF_SCALING_REPO (TASKPROOF_SCALING_TICKS ticks, default 10,000) and
// keeps it, with the allowed signers file and a file "range" holding the root
// and head commits: for comparing two binaries' reports on one generated
// repository. Skipped unless the variable is set.
func TestScalingRepo(t *testing.T) {
	dir := os.Getenv("TASKPROOF_SCALING_REPO")
	if dir == "" {
		t.Skip("TASKPROOF_SCALING_REPO not set")
	}
	n := 10000
	if s := os.Getenv("TASKPROOF_SCALING_TICKS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatalf("TASKPROOF_SCALING_TICKS: %v", err)
		}
	}
	keys := filepath.Join(dir, "keys")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	_, signer, allowed := benchrepo.SSHKey(t, keys)
	h := benchrepo.NewHistory(t, filepath.Join(dir, "repo"), n/scalingTasks, scalingTasks)
	h.WriteSignedNotes(t, signer)
	rng := fmt.Sprintf("%s %s %s\n", h.Root, h.Head, allowed)
	if err := os.WriteFile(filepath.Join(dir, "range"), []byte(rng), 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkScalingRepoBranch is gate.BranchSpooled (as `verify` runs it) in process over the whole
// range of the history TestScalingRepo kept in TASKPROOF_SCALING_REPO, for
// -cpuprofile and -memprofile on one generated size, the Repo tuned as the
// command tunes it; TASKPROOF_SCALING_BASE gives another base (a pull
// request's range). Skipped unless set.
func BenchmarkScalingRepoBranch(b *testing.B) {
	dir := os.Getenv("TASKPROOF_SCALING_REPO")
	if dir == "" {
		b.Skip("TASKPROOF_SCALING_REPO not set")
	}
	rng, err := os.ReadFile(filepath.Join(dir, "range"))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(rng))
	g := &gateBench{h: &benchrepo.History{Dir: filepath.Join(dir, "repo"), Root: f[0], Head: f[1]}, allowed: f[2]}
	base := f[0]
	if s := os.Getenv("TASKPROOF_SCALING_BASE"); s != "" {
		base = s // a pull request's range: the commits after it
	}
	report := benchrepo.ReportCPU(b)
	for b.Loop() {
		v := g.verifier(b, gitref.Access{OnePass: true}) // as `verify` does
		rep, err := gate.BranchSpooled(v, gitref.Hash(base), gitref.Hash(f[1]), verify.GateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		rep.Close()
	}
	report()
}
