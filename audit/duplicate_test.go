package audit_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
)

// TestRepeatedTaskIDLines: a commit that ticks two lines of one task ID (in
// two sections, as agent-validator's 5.3) has one statement per line. audit
// reads both as rows, each located at its own line, neither a "second
// statement" problem, and counts two evidenced ticks.
func TestRepeatedTaskIDLines(t *testing.T) {
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	path := filepath.Join(dir, fxDir, "tasks.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tasks := "# Tasks\n\n## Phase 1: Stop hook\n\n- [ ] T001 Stdout carries only JSON\n\n## Phase 2: Run end\n\n- [ ] T001 Logs the fixed count\n"
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(tasks)
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-qm", "spec")
	write(strings.ReplaceAll(tasks, "- [ ] T001", "- [x] T001"))
	testenv.Git(t, dir, "commit", "-qam", "both T001 lines")
	tick := gitref.Hash(strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD")))

	f := &fixture{dir: dir}
	f.open(t)
	repo, notes := f.repo, f.notes
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: tick, Verdict: predicate.RegressionOnly, Time: when(1),
		Regression: mustReason(t, "no_story")}); err != nil {
		t.Fatalf("attest tick: %v", err)
	}
	head, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Run(repo, notes, audit.Options{All: true, Head: head})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Ticks != 2 || rep.Totals.Evidenced != 2 || rep.Totals.WithoutEvidence != 0 || len(rep.Ticks) != 2 {
		t.Fatalf("totals %+v, %d rows; want 2 ticks, both evidenced", rep.Totals, len(rep.Ticks))
	}
	lines := map[int]bool{}
	for _, r := range rep.Ticks {
		if len(r.Problems) != 0 {
			t.Errorf("row %s line %d: problems %v", r.Task, r.Line, r.Problems)
		}
		lines[r.Line] = true
	}
	if !lines[5] || !lines[9] {
		t.Errorf("rows located at lines %v, want 5 and 9", lines)
	}
	if len(rep.Problems) != 0 {
		t.Errorf("problems %v", rep.Problems)
	}
	// The text, Markdown and HTML reports tell the two rows apart by line.
	for name, write := range map[string]func(io.Writer, *audit.Report) error{
		"text": audit.WriteText, "markdown": audit.WriteMarkdown, "html": audit.WriteHTML,
	} {
		var b strings.Builder
		if err := write(&b, rep); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"T001 (line 5)", "T001 (line 9)"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s report does not show %q", name, want)
			}
		}
	}
}

func mustReason(t *testing.T, s string) map[string]any {
	t.Helper()
	r, err := attest.ParseRegressionReason(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
