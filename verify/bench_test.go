package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// The merge gate benchmark's repository: benchUnits spec-kit units of
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

func (g *gateBench) verifier(b testing.TB, access ...gitref.Access) *verify.Verifier {
	b.Helper()
	repo, err := gitref.Open(g.h.Dir, access...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { repo.Close() })
	notes, err := repo.Notes("")
	if err != nil {
		b.Fatal(err)
	}
	as, err := trust.LoadAllowedSigners(g.allowed)
	if err != nil {
		b.Fatal(err)
	}
	trust, err := trust.NewTrust(trust.WithAllowedSigners(as))
	if err != nil {
		b.Fatal(err)
	}
	v, err := verify.NewVerifier(repo, notes, trust)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

func checkGateReport(b *testing.B, rep *verify.Report, ticks int) {
	b.Helper()
	if rep.Conclusion != verify.Success || len(rep.Ticks) != ticks || rep.Summary[verify.StatusEvidenced] != ticks {
		b.Fatalf("conclusion %s, %d ticks, summary %v; want success with %d evidenced", rep.Conclusion, len(rep.Ticks), rep.Summary, ticks)
	}
}

// BenchmarkBranch is gate.Branch over the 10,000 ticks (in process: what
// `verify --branch` does less flag parsing and report rendering). Profile it
// with -cpuprofile/-memprofile.
//
//	go test -run '^$' -bench 'Branch$' -benchtime 3x -benchmem ./verify/
func BenchmarkBranch(b *testing.B) {
	g := newGateBench(b, benchUnits, benchTasks)
	v := g.verifier(b)
	report := benchrepo.ReportCPU(b)
	for b.Loop() {
		rep, err := gate.Branch(v, gitref.Hash(g.h.Root), gitref.Hash(g.h.Head), verify.GateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		checkGateReport(b, rep, benchUnits*benchTasks)
	}
	report()
}

// BenchmarkGate is the side-by-side comparison, in one run: the taskproof
// binary's `verify --branch --format json` over the 10,000 ticks, and
// scripts/bench-baseline.sh (git CLI and `ssh-keygen -Y verify` per commit) over
// the same range. Each reports its wall time (ns/op) and the child's peak RSS
// (maxrss-MB, read by GNU time: benchrepo.RunMeasured). Targets (taskproof): ≤ 1.5 s, ≤ 200 MB, ≥ 20×
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
				wall, kb, exact, err := benchrepo.RunMeasured(c)
				if err != nil {
					b.Fatalf("%s: %v\n%s", name, err, stderr.Bytes())
				}
				if !exact {
					b.Logf("%s: no /usr/bin/time: maxrss-MB is wait4's, which counts this benchmark process's own peak", name)
				}
				total += wall
				rss = max(rss, kb)
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

// TestBenchBaselineScript checks scripts/bench-baseline.sh, the baseline of
// BenchmarkGate, on a small generated repository: it verifies every signature
// and tree, and fails on a note whose payload was altered.
func TestBenchBaselineScript(t *testing.T) {
	testenv.LookPath(t, "ssh-keygen")
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	_, signer, allowed := benchrepo.SSHKey(t, keys)
	h := benchrepo.NewHistory(t, filepath.Join(dir, "repo"), 2, 3)
	notes := h.SignedNotes(t, signer)
	h.WriteNotes(t, notes)
	script := filepath.Join(testenv.RepoRoot(t), "scripts", "bench-baseline.sh")
	run := func() (string, error) {
		c := exec.Command("sh", script, h.Dir, h.Root, h.Head, allowed, "bench@example.invalid")
		c.Env = testenv.GitEnv()
		out, err := c.CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if want := "baseline: 6 commits, 12 signatures verified, 0 failures"; err != nil || !strings.Contains(out, want) {
		t.Fatalf("baseline on a good repository: %v\n%s\nwant %q", err, out, want)
	}
	// One envelope's signature altered: that commit fails, once.
	victim, other := h.Ticks[4], h.Ticks[1]
	bad := map[string][]byte{}
	for c, n := range notes {
		bad[c] = n
	}
	lines := bytes.SplitAfter(notes[victim.Commit], []byte("\n"))
	lines[0] = bytes.Replace(lines[0], []byte(`"sig":"`), []byte(`"sig":"AAAA`), 1)
	bad[victim.Commit] = bytes.Join(lines, nil)
	h.WriteNotes(t, bad)
	out, err = run()
	if err == nil || !strings.Contains(out, victim.Commit+": bad signature") || !strings.Contains(out, " 1 failures") {
		t.Fatalf("baseline with one bad signature: %v\n%s", err, out)
	}
	// Another commit's (validly signed) note: its tree does not match.
	bad[victim.Commit] = notes[other.Commit]
	h.WriteNotes(t, bad)
	out, err = run()
	if err == nil || !strings.Contains(out, victim.Commit+": tree mismatch") || !strings.Contains(out, " 1 failures") {
		t.Fatalf("baseline with another commit's note: %v\n%s", err, out)
	}
}

// TestBranchWorkers runs the merge gate with one worker and with several on a
// generated repository where one note is tampered with and one tick has no
// note: the reports are identical, in tick order, and name exactly those two
// ticks. Run with -race (the workers share the Repo and the parse cache).
func TestBranchWorkers(t *testing.T) {
	testenv.LookPath(t, "ssh-keygen")
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	_, signer, allowed := benchrepo.SSHKey(t, keys)
	h := benchrepo.NewHistory(t, filepath.Join(dir, "repo"), 4, 80) // 320 commits: Ticks uses 4 workers at GOMAXPROCS 4, notes read from one index (NotesStore.NoteReader)
	notes := h.SignedNotes(t, signer)
	tampered, bare := h.Ticks[5], h.Ticks[250]
	notes[tampered.Commit] = bytes.Replace(notes[tampered.Commit], []byte(`"sig":"`), []byte(`"sig":"AAAA`), 1)
	delete(notes, bare.Commit)
	h.WriteNotes(t, notes)
	g := &gateBench{h: h, allowed: allowed}
	var reports [][]byte
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		v := g.verifier(t)
		rep, err := gate.Branch(v, gitref.Hash(h.Root), gitref.Hash(h.Head), verify.GateOptions{})
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Ticks) != len(h.Ticks) {
			t.Fatalf("GOMAXPROCS %d: %d ticks, want %d", procs, len(rep.Ticks), len(h.Ticks))
		}
		for i, tr := range rep.Ticks {
			want := verify.StatusEvidenced
			if tr.Commit == gitref.Hash(tampered.Commit) || tr.Commit == gitref.Hash(bare.Commit) {
				want = verify.StatusUnverifiable
			}
			if tr.Commit != gitref.Hash(h.Ticks[i].Commit) || tr.Status != want {
				t.Errorf("GOMAXPROCS %d: tick %d = %s %s, want %s %s", procs, i, tr.Commit, tr.Status, h.Ticks[i].Commit, want)
			}
		}
		// The gate reads notes from one listing of the notes tree; Object looks
		// each one up: the verdicts agree.
		for _, tr := range rep.Ticks {
			rs, err := v.Object(tr.Commit)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Object == nil {
				if tr.Commit != gitref.Hash(bare.Commit) || rs[0].Outcome != verify.Missing {
					t.Errorf("tick %s: no object result in the gate; Object says %s", tr.Commit, rs[0].Outcome)
				}
				continue
			}
			if len(rs) != 1 || rs[0].Outcome != tr.Object.Outcome || len(rs[0].Reasons) != len(tr.Object.Reasons) {
				t.Errorf("tick %s: gate %s %v, Object %s %v", tr.Commit, tr.Object.Outcome, tr.Object.Reasons, rs[0].Outcome, rs[0].Reasons)
			}
		}
		var buf bytes.Buffer
		if err := verify.WriteJSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		reports = append(reports, buf.Bytes())
	}
	if !bytes.Equal(reports[0], reports[1]) {
		t.Errorf("reports differ between 1 and 4 workers:\n%s\n%s", reports[0], reports[1])
	}
}
