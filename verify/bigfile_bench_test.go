package verify

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
)

// bigTasksFile is a spec-kit tasks file of n one-line tasks; with triggers,
// its header holds one line each of what makes the tasks file reader read
// more than goldmark's reading (a footnote "[^", a "<textarea" tag, a tab, a
// table delimiter row, an item that starts empty "-"). With n = 120,000 it is
// 1.8 MB, under the 4 MiB limit.
func bigTasksFile(n int, triggers bool) string {
	var b strings.Builder
	b.WriteString("# Tasks\n\n")
	if triggers {
		b.WriteString("See the note[^1] and <textarea>x</textarea>.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n-\n\n\tindented\n\n[^1]: a footnote\n\n")
	}
	b.WriteString("## Phase 1\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] T%d x\n", i)
	}
	return b.String()
}

// BenchmarkBigTasksFile: `verify --branch` (the binary) over a range whose
// one commit ticks T1 (attested) in a 1.8 MB tasks file of 120,000 tasks,
// with and without a header holding each trigger of the tasks file reader's
// further readings. Each further reading reads only the windows around its
// triggers, and no document outlives its reading, so the two cost the same
// (docs/benchmarks.md#bounded-input). Targets: ≤ 2 s and ≤ 300 MB
// (cpu-s: the process's user and system time; maxrss-MB read by GNU time).
//
//	go test -run '^$' -bench BigTasksFile -benchtime 3x ./verify/
func BenchmarkBigTasksFile(b *testing.B) {
	for _, tc := range []struct {
		name     string
		triggers bool
	}{{"plain", false}, {"triggers", true}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			keys := filepath.Join(dir, "keys")
			if err := os.Mkdir(keys, 0o700); err != nil {
				b.Fatal(err)
			}
			key := filepath.Join(keys, "id_ed25519")
			if out, err := exec.Command(testenv.LookPath(b, "ssh-keygen"), "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
				b.Fatalf("ssh-keygen: %v\n%s", err, out)
			}
			pub, err := os.ReadFile(key + ".pub")
			if err != nil {
				b.Fatal(err)
			}
			allowed := filepath.Join(keys, "allowed_signers")
			if err := os.WriteFile(allowed, []byte(`ci@example.invalid namespaces="in-toto" `+string(pub)), 0o600); err != nil {
				b.Fatal(err)
			}
			repo := filepath.Join(dir, "repo")
			testenv.Git(b, "", "init", "-q", "-b", "main", repo)
			content := bigTasksFile(120000, tc.triggers)
			base := testenv.CommitFiles(b, repo, "plan", map[string]string{"specs/001-x/tasks.md": content})
			tick := testenv.CommitFiles(b, repo, "T1 done", map[string]string{"specs/001-x/tasks.md": strings.Replace(content, "- [ ] T1 x\n", "- [x] T1 x\n", 1)})
			bin := testenv.Binary(b)
			attest := exec.Command(bin, "attest", "tick", "--commit", tick, "--signer", "ssh", "--key", key, "--verdict", "regression_only", "--regression-reason", "planning_work")
			attest.Dir, attest.Env = repo, testenv.GitEnv()
			if out, err := attest.CombinedOutput(); err != nil {
				b.Fatalf("attest tick: %v\n%s", err, out)
			}
			var cpu, wall float64
			var rss int64
			for b.Loop() {
				c := exec.Command(bin, "verify", "--branch", "--base", base, "--allowed-signers", allowed, "--format", "json", tick)
				c.Dir, c.Env = repo, testenv.GitEnv()
				var stdout, stderr bytes.Buffer
				c.Stdout, c.Stderr = &stdout, &stderr
				m, err := benchrepo.Measure(c)
				var exit *exec.ExitError
				if err != nil && !errors.As(err, &exit) {
					b.Fatal(err)
				}
				if err != nil || !bytes.Contains(stdout.Bytes(), []byte(`"conclusion": "success"`)) {
					b.Fatalf("verify: %v\n%s\n%s", err, stdout.Bytes(), stderr.Bytes())
				}
				if !m.Exact {
					b.Log("no /usr/bin/time: maxrss-MB is wait4's, which counts this benchmark process's own peak")
				}
				cpu += m.CPU.Seconds()
				wall += m.Wall.Seconds()
				rss = max(rss, m.MaxRSSKiB)
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s")
			b.ReportMetric(wall/float64(b.N), "wall-s")
			b.ReportMetric(float64(rss)/1024, "maxrss-MB")
		})
	}
}
