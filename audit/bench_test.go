package audit_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/benchrepo"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// The benchmark repository: benchUnits units of benchTasks tasks, 10,000 ticks.
// (1000 units of 10 tasks takes about ten times longer: tick.Range decodes the
// 1000-entry specs/ tree twice per commit; see docs/benchmarks.md.)
const (
	benchUnits = 100
	benchTasks = 100
)

func benchTasksFile(unit, ticked int) string {
	var b strings.Builder
	b.WriteString("# Tasks\n\n## Phase 1\n\n")
	for i := 1; i <= benchTasks; i++ {
		box := " "
		if i <= ticked {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] T%03d Task %d of unit %d\n", box, i, i, unit)
	}
	return b.String()
}

func fiData(w *bufio.Writer, s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }

// benchRepo builds, with git fast-import, a repository of benchUnits spec-kit
// units whose benchUnits×benchTasks tasks are each ticked in their own commit,
// and a notes ref with one unsigned task-verification statement per tick
// (regression reasons cycled), written by fast-import's N command.
func benchRepo(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	testenv.Git(b, dir, "init", "-q", "-b", "main")
	git := testenv.LookPath(b, "git")
	marks := filepath.Join(dir, "marks")
	run := func(stream []byte, args ...string) {
		cmd := exec.Command(git, append([]string{"fast-import", "--quiet"}, args...)...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), bytes.NewReader(stream)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("fast-import: %v\n%s", err, out)
		}
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	when := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC).Unix()
	fmt.Fprintf(w, "commit refs/heads/main\nmark :1\ncommitter Dev <dev@example.invalid> %d +0000\n", when)
	fiData(w, "spec")
	for u := 0; u < benchUnits; u++ {
		fmt.Fprintf(w, "M 100644 inline specs/%03d-u/tasks.md\n", u)
		fiData(w, benchTasksFile(u, 0))
	}
	mark := 1
	for u := 0; u < benchUnits; u++ {
		for i := 1; i <= benchTasks; i++ {
			mark++
			fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Dev <dev@example.invalid> %d +0000\n", mark, when+int64(mark))
			fiData(w, fmt.Sprintf("T%03d of %d", i, u))
			fmt.Fprintf(w, "from :%d\nM 100644 inline specs/%03d-u/tasks.md\n", mark-1, u)
			fiData(w, benchTasksFile(u, i))
		}
	}
	w.Flush()
	run(buf.Bytes(), "--export-marks="+marks)

	ids := map[int]string{}
	mb, err := os.ReadFile(marks)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(mb)), "\n") {
		var m int
		var id string
		if _, err := fmt.Sscanf(line, ":%d %s", &m, &id); err != nil {
			b.Fatal(err)
		}
		ids[m] = id
	}
	reasons := []string{"no_story", "acceptance_off", "author_wrote_none", "planning_work", "not_red:red_class=flaky",
		"author_failed:detail=x", "already_passing", "no_scenarios:story=US1", "tests_not_collected"}
	buf.Reset()
	w = bufio.NewWriter(&buf)
	fmt.Fprintf(w, "commit refs/notes/speccoder\ncommitter taskproof <taskproof@users.noreply.invalid> %d +0000\n", when)
	fiData(w, "notes")
	mark = 1
	for u := 0; u < benchUnits; u++ {
		for i := 1; i <= benchTasks; i++ {
			mark++
			feature := fmt.Sprintf("%03d-u", u)
			id := fmt.Sprintf("T%03d", i)
			reason, _ := attest.ParseRegressionReason(reasons[mark%len(reasons)])
			pred := map[string]any{
				"revision": 3, "verdict": "regression_only",
				"unit":          map[string]any{"format": "speckit", "feature": feature, "dir": "specs/" + feature},
				"task":          map[string]any{"id": id, "line_hash": predicate.LineHash(fmt.Sprintf("- [ ] %s Task %d of unit %d", id, i, u)), "title": fmt.Sprintf("Task %d of unit %d", i, u)},
				"tree":          strings.Repeat("0", 40),
				"spec":          nil,
				"policy_sha256": strings.Repeat("a", 64),
				"time":          time.Unix(when+int64(mark)*600, 0).UTC().Format(time.RFC3339),
				"regression":    reason,
			}
			st, err := statement.Encode(statement.Subject{Name: statement.SubjectName(feature, id), GitCommit: ids[mark]}, predicate.PredicateType, toValue(pred))
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(w, "N inline %s\n", ids[mark])
			fiData(w, string(envelopeLine(b, st))+"\n")
		}
	}
	w.Flush()
	run(buf.Bytes())
	return dir
}

// toValue turns Go ints into json.Number, as a decoded value tree holds them.
func toValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = toValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toValue(e)
		}
		return out
	case int:
		return x
	}
	return v
}

// BenchmarkAuditAll is `audit --all` on 10,000 ticks (target: docs/benchmarks.md): every
// note read and decoded, all history walked for ticks, report built and
// rendered as JSON. Each op opens the repository afresh, as a run of the
// command does, so that no op finds the objects a previous one decoded in the
// Repo's caches (the operating system's page cache is warm, as it is for a
// command run twice).
//
//   - cli: the taskproof binary, `audit --all --format json` (wall time, and
//     its peak RSS as maxrss-MB, read by GNU time: benchrepo.RunMeasured): the
//     figure the target is about;
//
//   - all: audit.Run and WriteJSON in process (for -cpuprofile);
//
//   - notes-only: the same without the history walk for ticks without
//     evidence (Head ""), i.e. audit's own reading of 10,000 notes.
//
//     go test -run '^$' -bench AuditAll -benchtime 4x ./audit/
func BenchmarkAuditAll(b *testing.B) {
	dir := benchRepo(b)
	open := func(b *testing.B) (*gitref.Repo, *gitref.NotesStore, gitref.Hash) {
		repo, err := gitref.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		notes, err := repo.Notes("")
		if err != nil {
			b.Fatal(err)
		}
		head, err := repo.Resolve("HEAD")
		if err != nil {
			b.Fatal(err)
		}
		return repo, notes, head
	}
	b.Run("cli", func(b *testing.B) {
		bin := testenv.Binary(b)
		var rss int64
		defer benchrepo.ReportCPU(b)() // this process only: the child's CPU is not counted
		for b.Loop() {
			var stdout, stderr bytes.Buffer
			c := exec.Command(bin, "audit", "--all", "--format", "json")
			c.Dir, c.Env, c.Stdout, c.Stderr = dir, testenv.GitEnv(), &stdout, &stderr
			_, kb, exact, err := benchrepo.RunMeasured(c)
			if err != nil {
				b.Fatalf("audit --all: %v\n%s", err, stderr.Bytes())
			}
			if !exact {
				b.Log("no /usr/bin/time: maxrss-MB is wait4's, which counts this benchmark process's own peak")
			}
			rss = max(rss, kb)
			if want := fmt.Sprintf(`"statements": %d,`, benchUnits*benchTasks); !bytes.Contains(stdout.Bytes(), []byte(want)) {
				b.Fatalf("audit --all printed no %s: %.400s", want, stdout.Bytes())
			}
		}
		b.ReportMetric(float64(rss)/1024, "maxrss-MB")
	})
	for _, bc := range []struct {
		name string
		all  bool
	}{{"all", true}, {"notes-only", false}} {
		b.Run(bc.name, func(b *testing.B) {
			defer benchrepo.ReportCPU(b)()
			for b.Loop() {
				repo, notes, head := open(b)
				if !bc.all {
					head = ""
				}
				rep, err := audit.Run(repo, notes, audit.Options{All: true, Head: head})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Totals.Statements != benchUnits*benchTasks || (head != "" && rep.Totals.Evidenced != benchUnits*benchTasks) {
					b.Fatalf("totals = %+v", rep.Totals)
				}
				if err := audit.WriteJSON(&bytes.Buffer{}, rep); err != nil {
					b.Fatal(err)
				}
				repo.Close()
			}
		})
	}
}
