package attest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/carry"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/verify"
)

// TestTickRepeatedTaskID: a task ID written on two lines of one tasks file is
// ticked line by line (docs/format.md#choices-where-the-brief-leaves-room, "A
// tick is a line, also when its task ID repeats"). Attesting a tick of one of
// them binds the ticked line (its line_hash, title and section); a commit
// ticking both writes a statement set per line under the one subject name, and
// re-attesting replaces each line's own set; carrying them keeps them apart. A
// decision on a commit that ticks one line of the ID is about that line. Two
// lines that read the same (same line_hash) cannot be told apart: a tick of one
// is refused with the error naming both lines and nothing is written, while the
// file's other tasks attest normally. A decision (which names a task by ID
// alone) is refused for a commit ticking two lines of one ID. Looking a task up
// by its ID alone (FindTask) still refuses a repeated ID.
func TestTickRepeatedTaskID(t *testing.T) {
	r := &tickRepo{dir: t.TempDir()}
	testenv.Git(t, r.dir, "init", "-q", "-b", "main")
	const (
		t001a = "- [ ] T001 [US1] Write the failing add test"
		t001b = "- [ ] T001 Write the docs"
		t003a = "- [ ] T003 [US1] Check the sum"
		t003b = "- [ ] T003 [US2] Check the difference"
		t005  = "- [ ] T005 [US2] Implement subtract twice"
		open  = "# Tasks\n\n" + t001a + "\n- [ ] T002 [US2] Implement subtract\n" + t001b + "\n" + t003a + "\n" + t003b + "\n"
	)
	tickLine := func(s string, lines ...string) string {
		for _, l := range lines {
			s = strings.Replace(s, l+"\n", strings.Replace(l, "[ ]", "[x]", 1)+"\n", 1)
		}
		return s
	}
	const path = "specs/001-calc/tasks.md"
	writeFile(t, r.dir, "specs/001-calc/spec.md", specMD)
	writeFile(t, r.dir, path, open)
	r.c0 = commitAll(t, r.dir, "plan")
	tasks := tickLine(open, t001a, "- [ ] T002 [US2] Implement subtract")
	writeFile(t, r.dir, path, tasks)
	r.c1 = commitAll(t, r.dir, "tick T001 (US1) and T002")
	tasks = tickLine(tasks, t001b)
	writeFile(t, r.dir, path, tasks)
	r.c2 = commitAll(t, r.dir, "tick T001 (docs)")
	tasks = tickLine(tasks, t003a, t003b)
	writeFile(t, r.dir, path, tasks)
	r.c3 = commitAll(t, r.dir, "tick both T003")
	repo, notes := r.open(t)
	key, allowed := sshKey(t, "")
	req := func(c gitref.Hash, tasks ...string) attest.TickRequest {
		return attest.TickRequest{
			Commit: c, Tasks: tasks, Verdict: predicate.RegressionOnly, Time: fixedTime,
			Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{sshSigner(t, key)},
		}
	}
	v := verifier(t, repo, notes, allowed)
	objects := func(c gitref.Hash) []verify.ObjectResult {
		t.Helper()
		rs, err := v.Object(c)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	// tvs returns the task-verification predicates of c's note by line_hash.
	tvs := func(c gitref.Hash) (map[string]*predicate.Predicate, int) {
		t.Helper()
		n := note(t, r.dir, c)
		stmts, _ := statements(t, n)
		out := map[string]*predicate.Predicate{}
		for _, s := range stmts {
			if s.st.PredicateType != predicate.PredicateType {
				continue
			}
			b, err := strictjson.Canonical(s.st.Predicate)
			if err != nil {
				t.Fatal(err)
			}
			p, err := predicate.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			out[p.Task.LineHash] = p
		}
		return out, len(stmts)
	}
	hash := predicate.LineHash

	// c1 ticks the first T001 line (and T002): every tick attests, T001 with
	// its line's own facts.
	w, err := attest.Tick(context.Background(), repo, notes, req(r.c1))
	if err != nil || len(w) != 2 || w[0].Subject != "001-calc/T001" || w[1].Subject != "001-calc/T002" {
		t.Fatalf("c1: %+v, %v", w, err)
	}
	// c2 ticks the second T001 line.
	if w, err = attest.Tick(context.Background(), repo, notes, req(r.c2, "T001")); err != nil || len(w) != 1 {
		t.Fatalf("c2: %+v, %v", w, err)
	}
	for _, tt := range []struct {
		c                    gitref.Hash
		line, title, section string
	}{
		{r.c1, t001a, "Write the failing add test", "US1"},
		{r.c2, t001b, "Write the docs", ""},
	} {
		ps, _ := tvs(tt.c)
		p := ps[hash(tt.line)]
		if p == nil {
			t.Fatalf("%s: no statement binds %q", tt.c, tt.line)
		}
		section := ""
		if sp, ok := p.Spec.Get(); ok {
			section, _ = sp.Section.Get()
		}
		if p.Task.ID != "T001" || p.Task.Title != tt.title || section != tt.section {
			t.Errorf("%s: task %+v section %q; want T001 %q section %q", tt.c, p.Task, section, tt.title, tt.section)
		}
		for _, o := range objects(tt.c) {
			if o.Outcome != verify.OK {
				t.Errorf("verify %s %s: %s %+v", tt.c, o.Task, o.Outcome, o.Reasons)
			}
		}
	}

	// A decision on c2 (one T001 line ticked) is about that line: forced, it
	// replaces the line's tick statements.
	if _, err := attest.Decide(context.Background(), repo, notes, attest.DecideRequest{Commit: r.c2, Task: "T001", Verdict: predicate.Attested, By: "ada", Reason: "by hand", Signers: []signer.Signer{sshSigner(t, key)}, Force: true}); err != nil {
		t.Fatalf("Decide on c2: %v", err)
	}
	if ps, n := tvs(r.c2); n != 1 || ps[hash(t001b)] == nil || ps[hash(t001b)].Verdict != predicate.Attested {
		t.Errorf("c2 after the decision: %d statements, %v; want the attested statement of %q alone", n, ps, t001b)
	}
	if rs := objects(r.c2); len(rs) != 1 || rs[0].Outcome != verify.OK {
		t.Errorf("verify c2 after the decision: %+v", rs)
	}

	// c3 ticks both T003 lines: a decision cannot say which it accepts; attest
	// tick writes a set per line, and --task T003 names both.
	_, err = attest.Decide(context.Background(), repo, notes, attest.DecideRequest{Commit: r.c3, Task: "T003", Verdict: predicate.Attested, By: "ada", Reason: "by hand", DryRun: true})
	if !errors.Is(err, attest.ErrRequest) || !strings.Contains(err.Error(), "lines 6 and 7") {
		t.Errorf("Decide on both T003 lines: %v, want ErrRequest naming lines 6 and 7", err)
	}
	for _, ids := range [][]string{nil, {"T003"}, {"T003", "T003"}} {
		if w, err = attest.Tick(context.Background(), repo, notes, req(r.c3, ids...)); err != nil || len(w) != 2 {
			t.Fatalf("c3 --task %v: %+v, %v", ids, w, err)
		}
		ps, n := tvs(r.c3)
		if n != 4 || ps[hash(t003a)] == nil || ps[hash(t003b)] == nil {
			t.Errorf("c3 --task %v: %d statements, lines %v; want 4, both T003 lines", ids, n, ps)
		}
		rs := objects(r.c3)
		if len(rs) != 2 || rs[0].Outcome != verify.OK || rs[1].Outcome != verify.OK {
			t.Errorf("verify c3 --task %v: %+v", ids, rs)
		}
	}

	// A rebased copy of c3 (same tree, another commit): carrying c3's
	// statements gives each line its own.
	testenv.Git(t, r.dir, "checkout", "-q", "-b", "side", string(r.c2))
	writeFile(t, r.dir, path, tasks)
	side := commitAll(t, r.dir, "tick both T003 again")
	res, err := carry.Carry(context.Background(), repo, notes, carry.Request{From: r.c3, To: side, Signers: []signer.Signer{sshSigner(t, key)}, KeepFrom: true, UnverifiedFromUnsafe: true})
	if err != nil || len(res.Written) != 2 {
		t.Fatalf("carry c3 → %s: %+v, %v", side, res, err)
	}
	if ps, n := tvs(side); n != 4 || ps[hash(t003a)] == nil || ps[hash(t003b)] == nil {
		t.Errorf("carried: %d statements, lines %v; want 4, both T003 lines", n, ps)
	}
	if rs := objects(side); len(rs) != 2 || rs[0].Outcome != verify.OK || rs[1].Outcome != verify.OK {
		t.Errorf("verify the carried statements: %+v", rs)
	}
	testenv.Git(t, r.dir, "checkout", "-q", "main")

	// Two T005 lines that read the same; c5 ticks the first (and T002 is
	// ticked already, T001 too): refused, naming both lines, nothing written.
	tasks += t005 + "\n- [ ] T006 Write the changelog\n" + t005 + "\n"
	writeFile(t, r.dir, path, tasks)
	commitAll(t, r.dir, "T005 twice")
	writeFile(t, r.dir, path, tickLine(tasks, t005, "- [ ] T006 Write the changelog"))
	c5 := commitAll(t, r.dir, "tick T005 and T006")
	const dupMsg = `specfmt: duplicate task id "T005" on lines 8 and 10`
	for _, tt := range []struct {
		name  string
		tasks []string
		msg   []string // substrings of the error
	}{
		{"every tick of the commit", nil, []string{dupMsg, path, "other ticks by task"}},
		{"the repeated ID", []string{"T005"}, []string{dupMsg, "line 8"}},
		{"the repeated ID among others", []string{"T006", "T005"}, []string{dupMsg}},
	} {
		_, err := attest.Tick(context.Background(), repo, notes, req(c5, tt.tasks...))
		if !errors.Is(err, specfmt.ErrDuplicateTask) {
			t.Fatalf("%s: err = %v, want %v", tt.name, err, specfmt.ErrDuplicateTask)
		}
		for _, m := range tt.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: %q does not say %q", tt.name, err, m)
			}
		}
		if n := note(t, r.dir, c5); n != "" {
			t.Fatalf("%s: a refused tick wrote a note:\n%s", tt.name, n)
		}
	}
	if w, err = attest.Tick(context.Background(), repo, notes, req(c5, "T006")); err != nil || len(w) != 1 {
		t.Fatalf("T006: %+v, %v", w, err)
	}
	if got := objectOutcomes(t, v, c5); len(got) != 1 || got["001-calc/"+w[0].Task] != verify.OK {
		t.Errorf("verify: %v, want T006 ok only", got)
	}

	fsys, err := repo.FS(c5)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"T001", "T003", "T005"} {
		if _, _, err := attest.FindTask(fsys, id, ""); !errors.Is(err, specfmt.ErrDuplicateTask) || !strings.Contains(err.Error(), `duplicate task id "`+id+`"`) {
			t.Errorf("FindTask(%s) err = %v, want ErrDuplicateTask", id, err)
		}
	}
	if _, task, err := attest.FindTask(fsys, "T002", ""); err != nil || task.LineNo != 4 || !task.Ticked() {
		t.Errorf("FindTask(T002) = %+v, %v; want line 4, ticked", task, err)
	}
	if _, _, err := attest.FindTask(fsys, "T009", ""); !errors.Is(err, attest.ErrRequest) {
		t.Errorf("FindTask(T009) err = %v, want ErrRequest (not found)", err)
	}
}
