package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/verify"
)

// The merge gate benchmark's repository (issue 5): benchUnits spec-kit units of
// benchTasks tasks, every task ticked in its own commit and attested as
// `attest tick` does (task-verification statement and VSA, each signed with an
// ed25519 SSH key): 10,000 ticks, 20,000 signatures.
const (
	benchUnits = 100
	benchTasks = 100
)

type gateBench struct {
	h                *benchrepo.History
	allowed, keyPath string
}

// newGateBench generates the repository under the benchmark's temp dir (not
// measured: about 5 s).
func newGateBench(b *testing.B, units, tasks int) *gateBench {
	b.Helper()
	dir := b.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		b.Fatal(err)
	}
	keyPath, signer, allowed := benchrepo.SSHKey(b, keys)
	h := benchrepo.NewHistory(b, filepath.Join(dir, "repo"), units, tasks)
	h.WriteNotes(b, h.SignedNotes(b, signer))
	return &gateBench{h: h, allowed: allowed, keyPath: keyPath}
}

func (g *gateBench) verifier(b *testing.B) *verify.Verifier {
	b.Helper()
	repo, err := gitref.Open(g.h.Dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { repo.Close() })
	notes, err := repo.Notes("")
	if err != nil {
		b.Fatal(err)
	}
	as, err := verify.LoadAllowedSigners(g.allowed)
	if err != nil {
		b.Fatal(err)
	}
	trust, err := verify.NewTrust(verify.WithAllowedSigners(as))
	if err != nil {
		b.Fatal(err)
	}
	return &verify.Verifier{Repo: repo, Notes: notes, Trust: trust}
}

func checkGateReport(b *testing.B, rep *verify.Report, ticks int) {
	b.Helper()
	if rep.Conclusion != verify.Success || len(rep.Ticks) != ticks || rep.Summary[verify.StatusEvidenced] != ticks {
		b.Fatalf("conclusion %s, %d ticks, summary %v; want success with %d evidenced", rep.Conclusion, len(rep.Ticks), rep.Summary, ticks)
	}
}

// BenchmarkBranch is Verifier.Branch over the 10,000 ticks (in process: what
// `verify --branch` does less flag parsing and report rendering). Profile it
// with -cpuprofile/-memprofile.
//
//	go test -run '^$' -bench 'Branch$' -benchtime 3x -benchmem ./verify/
func BenchmarkBranch(b *testing.B) {
	g := newGateBench(b, benchUnits, benchTasks)
	v := g.verifier(b)
	for b.Loop() {
		rep, err := v.Branch(gitref.Hash(g.h.Root), gitref.Hash(g.h.Head), verify.GateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		checkGateReport(b, rep, benchUnits*benchTasks)
	}
}

// BenchmarkGate is issue 5's side-by-side comparison, in one run: the taskproof
// binary's `verify --branch --format json` over the 10,000 ticks, and
// scripts/bench-baseline.sh (git CLI and `ssh-keygen -Y verify` per commit) over
// the same range. Each reports its wall time (ns/op) and the child's peak RSS
// (maxrss-MB, from wait4's rusage). Targets (taskproof): ≤ 1.5 s, ≤ 200 MB, ≥ 20×
// faster than the baseline. The baseline takes minutes: BENCH_GATE_BASELINE=0
// skips it.
//
//	make bench-gate   (or: go test -run '^$' -bench Gate -benchtime 1x -timeout 60m ./verify/)
func BenchmarkGate(b *testing.B) {
	g := newGateBench(b, benchUnits, benchTasks)
	bin := testenv.Binary(b)
	ticks := benchUnits * benchTasks
	var walls = map[string]time.Duration{}
	run := func(b *testing.B, name string, cmd func() *exec.Cmd, check func(stdout []byte)) {
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			var rss int64
			for b.Loop() {
				c := cmd()
				var stdout, stderr bytes.Buffer
				c.Stdout, c.Stderr = &stdout, &stderr
				start := time.Now()
				if err := c.Run(); err != nil {
					b.Fatalf("%s: %v\n%s", name, err, stderr.Bytes())
				}
				total += time.Since(start)
				if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
					rss = max(rss, ru.Maxrss) // KiB on Linux
				}
				check(stdout.Bytes())
			}
			walls[name] = total / time.Duration(b.N)
			b.ReportMetric(float64(rss)/1024, "maxrss-MB")
			b.ReportMetric(walls[name].Seconds(), "wall-s")
		})
	}
	run(b, "taskproof", func() *exec.Cmd {
		c := exec.Command(bin, "verify", "--branch", "--base", g.h.Root, "--allowed-signers", g.allowed, "--format", "json", g.h.Head)
		c.Dir, c.Env = g.h.Dir, testenv.GitEnv()
		return c
	}, func(out []byte) {
		if !bytes.Contains(out, []byte(`"conclusion": "success"`)) && !bytes.Contains(out, []byte(`"conclusion":"success"`)) {
			b.Fatalf("taskproof did not conclude success: %.300s", out)
		}
		if n := bytes.Count(out, []byte(`"status": "evidenced"`)) + bytes.Count(out, []byte(`"status":"evidenced"`)); n != ticks {
			b.Fatalf("taskproof: %d evidenced ticks, want %d", n, ticks)
		}
	})
	if os.Getenv("BENCH_GATE_BASELINE") == "0" {
		return
	}
	script := filepath.Join(testenv.RepoRoot(b), "scripts", "bench-baseline.sh")
	run(b, "baseline", func() *exec.Cmd {
		c := exec.Command("sh", script, g.h.Dir, g.h.Root, g.h.Head, g.allowed, "bench@example.invalid")
		c.Env = testenv.GitEnv()
		return c
	}, func(out []byte) {
		if want := fmt.Sprintf("baseline: %d commits, %d signatures verified, 0 failures", ticks, 2*ticks); !bytes.Contains(out, []byte(want)) {
			b.Fatalf("baseline printed %q, want %q", out, want)
		}
	})
	if walls["taskproof"] > 0 {
		b.Logf("baseline/taskproof wall ratio: %.1f× (GOMAXPROCS %d)", float64(walls["baseline"])/float64(walls["taskproof"]), runtime.GOMAXPROCS(0))
	}
}
