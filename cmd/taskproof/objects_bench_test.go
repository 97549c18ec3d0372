package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
)

// objectsBenchSizes are BenchmarkHistoryLength's history lengths in ticks;
// TASKPROOF_BENCH_50K=0 leaves 50k out (for a quick run).
func objectsBenchSizes() []int {
	if os.Getenv("TASKPROOF_BENCH_50K") == "0" {
		return []int{1000, 10000}
	}
	return []int{1000, 50000}
}

// attestRuns is how many `attest tick` runs one op of the attest-tick
// sub-benchmark measures (a run takes tens of milliseconds; GNU time counts
// CPU in 10 ms steps).
const attestRuns = 10

// BenchmarkHistoryLength runs the taskproof binary on generated spec-kit
// histories of 1k and 50k ticks (500 tasks a unit, one SSH-signed note per
// tick, as benchrepo writes them) and reports, per size, for the commands whose
// cost should not grow with history length, or grow only linearly in bounded
// memory: the child's CPU time (cpu-ms, user + system), wall time and peak RSS
// (rss-MB), read by GNU time (benchrepo.Measure).
//
//   - attest-tick: `attest tick` of a tick commit at the tip of the history,
//     each run with the notes ref reset to the generated one (so every run reads
//     the packed notes as the first attestation does); at the largest size also
//     x-1k, its CPU over the 1k history's (the target: within 1.2);
//   - ticks: `ticks --format json` of all of HEAD's history, with rss-kB/tick;
//   - audit-all: `audit --all --format json`, with rss-kB/tick.
//
// No figure is asserted; generating a size is not measured.
//
//	TASKPROOF_BIN=$PWD/bin/taskproof go test -run '^$' -bench HistoryLength -benchtime 1x ./cmd/taskproof/
func BenchmarkHistoryLength(b *testing.B) {
	bin := testenv.Binary(b)
	var attest1k time.Duration
	for _, n := range objectsBenchSizes() {
		b.Run(fmt.Sprintf("ticks=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			keys := filepath.Join(dir, "keys")
			if err := os.Mkdir(keys, 0o700); err != nil {
				b.Fatal(err)
			}
			keyPath, signer, _ := benchrepo.SSHKey(b, keys)
			h := benchrepo.NewHistory(b, filepath.Join(dir, "repo"), n/500, 500)
			h.WriteSignedNotes(b, signer)
			notes := strings.TrimSpace(testenv.Git(b, h.Dir, "rev-parse", benchrepo.NotesRef))
			tip := h.AddTickBranch(b, "attest")

			run := func(b *testing.B, args ...string) benchrepo.Measurement {
				c := exec.Command(bin, args...)
				var stderr bytes.Buffer
				c.Dir, c.Env, c.Stderr = h.Dir, testenv.GitEnv(), &stderr
				m, err := benchrepo.Measure(c)
				if err != nil {
					b.Fatalf("taskproof %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
				}
				return m
			}
			report := func(b *testing.B, m benchrepo.Measurement, perTick bool) {
				b.ReportMetric(float64(m.CPU.Milliseconds()), "cpu-ms")
				b.ReportMetric(m.Wall.Seconds(), "wall-s")
				b.ReportMetric(float64(m.MaxRSSKiB)/1024, "rss-MB")
				if perTick {
					b.ReportMetric(float64(m.MaxRSSKiB)*1.024/float64(n), "rss-kB/tick")
				}
			}
			b.Run("attest-tick", func(b *testing.B) {
				var sum benchrepo.Measurement
				runs := 0
				for b.Loop() {
					for range attestRuns {
						b.StopTimer()
						testenv.Git(b, h.Dir, "update-ref", benchrepo.NotesRef, notes)
						b.StartTimer()
						m := run(b, "attest", "tick", "--force", "--commit", tip, "--verdict", "regression_only",
							"--regression-reason", "planning_work", "--signer", "ssh", "--key", keyPath)
						sum.CPU += m.CPU
						sum.Wall += m.Wall
						sum.MaxRSSKiB = max(sum.MaxRSSKiB, m.MaxRSSKiB)
						runs++
					}
				}
				mean := benchrepo.Measurement{CPU: sum.CPU / time.Duration(runs), Wall: sum.Wall / time.Duration(runs), MaxRSSKiB: sum.MaxRSSKiB}
				report(b, mean, false)
				if n == 1000 {
					attest1k = mean.CPU
				} else if attest1k > 0 {
					b.ReportMetric(mean.CPU.Seconds()/attest1k.Seconds(), "x-1k")
				}
			})
			for _, c := range []struct {
				name string
				args []string
			}{
				{"ticks", []string{"ticks", "--format", "json", h.Head}},
				{"audit-all", []string{"audit", "--all", "--format", "json"}},
			} {
				b.Run(c.name, func(b *testing.B) {
					var worst benchrepo.Measurement
					for b.Loop() {
						m := run(b, c.args...)
						if m.MaxRSSKiB >= worst.MaxRSSKiB {
							worst = m
						}
					}
					report(b, worst, true)
				})
			}
		})
	}
}
