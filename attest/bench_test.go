package attest_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
)

// historyRepo generates, with `git fast-import`, a repository of n commits: the
// first plans ten tasks, the next n-2 each change an unrelated file, and the
// last ticks T001. It returns the directory and the tick commit.
func historyRepo(b *testing.B, n int) (string, gitref.Hash) {
	b.Helper()
	dir := b.TempDir()
	testenv.Git(b, dir, "init", "-q", "-b", "main")
	var tasks strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&tasks, "- [ ] T%03d [US1] Task number %d\n", i, i)
	}
	open := tasks.String()
	ticked := strings.Replace(open, "- [ ] T001", "- [x] T001", 1)
	spec := "# Spec\n\n### User Story 1 - Bench\n\nText.\n"

	var s bytes.Buffer
	blob := func(mark int, content string) {
		fmt.Fprintf(&s, "blob\nmark :%d\ndata %d\n%s\n", mark, len(content), content)
	}
	blob(1, open)
	blob(2, ticked)
	blob(3, spec)
	when := int64(1767225600) // 2026-01-01
	for i := 1; i <= n; i++ {
		msg := fmt.Sprintf("commit %d", i)
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.invalid> %d +0000\ndata %d\n%s\n",
			100+i, when+int64(i), len(msg), msg)
		if i > 1 {
			fmt.Fprintf(&s, "from :%d\n", 100+i-1)
		}
		switch {
		case i == 1:
			s.WriteString("M 100644 :1 specs/001-bench/tasks.md\nM 100644 :3 specs/001-bench/spec.md\n")
		case i == n:
			s.WriteString("M 100644 :2 specs/001-bench/tasks.md\n")
		default:
			content := fmt.Sprintf("change %d\n", i)
			fmt.Fprintf(&s, "M 100644 inline src/file%d.txt\ndata %d\n%s\n", i%50, len(content), content)
		}
		s.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), &s
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	head := strings.TrimSpace(testenv.Git(b, dir, "rev-parse", "main"))
	if got := strings.TrimSpace(testenv.Git(b, dir, "rev-list", "--count", "main")); got != fmt.Sprint(n) {
		b.Fatalf("%s commits generated, want %d", got, n)
	}
	return dir, gitref.Hash(head)
}

// BenchmarkAttestTick measures `attest tick` for one task (T001, regression_only,
// signed with an ed25519 SSH key, note written) at the tip of histories of 1,000
// and 10,000 commits: the time should not grow with the history's length, since
// a tick is found against the commit's first parent only.
func BenchmarkAttestTick(b *testing.B) {
	key, _ := sshKey(b, "")
	sg := sshSigner(b, key)
	for _, n := range []int{1000, 10000} {
		dir, head := historyRepo(b, n)
		b.Run(fmt.Sprintf("commits=%d", n), func(b *testing.B) {
			repo, err := gitref.Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer repo.Close()
			notes, err := repo.Notes("")
			if err != nil {
				b.Fatal(err)
			}
			req := attest.TickRequest{
				Commit: head, Tasks: []string{"T001"}, Verdict: predicate.RegressionOnly,
				Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{sg},
				Time: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w, err := attest.Tick(context.Background(), repo, notes, req)
				if err != nil || len(w) != 1 {
					b.Fatalf("Tick: %v", err)
				}
			}
		})
	}
}
