package lineage_test

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/lineage"
	"github.com/taskproof/taskproof/tick"
)

const (
	unit  = "specs/001-x/tasks.md"
	tasks = "# Tasks\n\n- [ ] T001 Create the skeleton\n- [ ] T002 Write the test\n"
)

func ticked(s string) string { return strings.Replace(s, "- [ ] T001", "- [x] T001", 1) }

// history is a repository built with the real git, traced from base to head.
type history struct {
	t   *testing.T
	dir string
}

func newHistory(t *testing.T) *history {
	h := &history{t: t, dir: testenv.NewRepo(t)}
	return h
}

func (h *history) commit(msg string, files map[string]string) string {
	return testenv.CommitFiles(h.t, h.dir, msg, files)
}

func (h *history) git(args ...string) string {
	return strings.TrimSpace(testenv.Git(h.t, h.dir, args...))
}

// walk walks base..head of r into a History, finished.
func walk(tb testing.TB, r *gitref.Repo, base, head string) *lineage.History {
	tb.Helper()
	var lin *lineage.History
	opts := tick.Options{Listed: func(l *gitref.Listing) error {
		lin = lineage.New(r, nil, l)
		return nil
	}}
	if _, err := tick.Each(r, gitref.Hash(base), gitref.Hash(head), opts, func(ts []tick.Tick, ms []tick.Move) error {
		return lin.Add(ts, ms)
	}); err != nil {
		tb.Fatal(err)
	}
	if err := lin.Finish(); err != nil {
		tb.Fatal(err)
	}
	return lin
}

// trace walks base..head into a History and traces head's T001.
func (h *history) trace(base, head, path string) lineage.Result {
	h.t.Helper()
	r, err := gitref.Open(h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	defer r.Close()
	res, err := walk(h.t, r, base, head).Trace(gitref.Hash(head), lineage.Task{Path: path, ID: "T001", Nth: 1})
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

func origins(res lineage.Result) string {
	var out []string
	for _, o := range res.Origins {
		s := string(o.Commit)[:7] + " " + o.Kind.String()
		if o.Reopens {
			s += " reopens"
		}
		out = append(out, s)
	}
	for _, e := range res.Entries {
		out = append(out, "entry "+string(e.Commit)[:7]+" "+e.Path)
	}
	return strings.Join(out, ", ")
}

// TestTraceSideUntick: a side branch's untick supersedes nothing that is
// not in its history — the tick head's line comes from is the branch's.
func TestTraceSideUntick(t *testing.T) {
	h := newHistory(t)
	base := h.commit("plan", map[string]string{unit: tasks})
	h.commit("tick", map[string]string{unit: ticked(tasks)})
	c2 := h.commit("untick", map[string]string{unit: tasks})
	h.git("branch", "side")
	c3 := h.commit("tick again", map[string]string{unit: ticked(tasks)})
	h.git("switch", "-q", "side")
	h.commit("tick on the side", map[string]string{unit: ticked(tasks), "side.txt": "1"})
	h.commit("untick on the side", map[string]string{unit: tasks})
	h.git("switch", "-q", "main")
	h.git("merge", "-q", "--no-edit", "side")
	head := h.git("rev-parse", "HEAD")
	if got, want := origins(h.trace(base, head, unit)), c3[:7]+" tick"; got != want {
		t.Errorf("origins %s, want %s (c2 %s)", got, want, c2[:7])
	}
}

// TestTraceReopen: a merge keeping a line checked that its other parent
// unticked after the line's tick checks it again: the merge is the origin.
// A merge that keeps the tree of one parent is compared with it alone.
func TestTraceReopen(t *testing.T) {
	h := newHistory(t)
	base := h.commit("plan", map[string]string{unit: tasks})
	c1 := h.commit("tick", map[string]string{unit: ticked(tasks)})
	h.git("branch", "side")
	h.commit("docs", map[string]string{"docs.txt": "1"})
	h.git("switch", "-q", "side")
	h.commit("untick, rework", map[string]string{unit: tasks, "code.txt": "2"})
	h.git("switch", "-q", "main")
	h.git("merge", "-q", "--no-commit", "side")
	testenv.CommitFiles(t, h.dir, "merge, keeping T001 checked", map[string]string{unit: ticked(tasks)})
	m := h.git("rev-parse", "HEAD")
	if got, want := origins(h.trace(base, m, unit)), m[:7]+" tick reopens"; got != want {
		t.Errorf("origins %s, want %s", got, want)
	}
	h.git("reset", "-q", "--hard", "HEAD~1")
	h.git("merge", "-q", "-s", "ours", "-m", "merge, discarding the side", "side")
	ours := h.git("rev-parse", "HEAD")
	if got, want := origins(h.trace(base, ours, unit)), c1[:7]+" tick"; got != want {
		t.Errorf("-s ours: origins %s, want %s", got, want)
	}
	// From outside the range: the base's line.
	if got, want := origins(h.trace(c1, ours, unit)), "entry "+c1[:7]+" "+unit; got != want {
		t.Errorf("base %s: %s, want %s", c1[:7], got, want)
	}
}

// TestTraceMove: a tasks file moved keeps its lineage; Comes follows the
// base's own moves from where a line came into a range.
func TestTraceMove(t *testing.T) {
	h := newHistory(t)
	c0 := h.commit("plan", map[string]string{unit: ticked(tasks)})
	moved := "specs/002-y/tasks.md"
	h.git("mv", "specs/001-x", "specs/002-y")
	h.git("commit", "-q", "-m", "move")
	c1 := h.git("rev-parse", "HEAD")
	if got, want := origins(h.trace("", c1, moved)), c0[:7]+" born"; got != want {
		t.Errorf("origins %s, want %s", got, want)
	}
	r, err := gitref.Open(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	lin := walk(t, r, c0, c1)
	for _, tc := range []struct {
		from string
		want bool
	}{{unit, true}, {moved, false}} {
		ok, err := lin.Comes(gitref.Hash(c0), tc.from, gitref.Hash(c1), lineage.Task{Path: moved, ID: "T001", Nth: 1})
		if err != nil || ok != tc.want {
			t.Errorf("Comes(%s) = %v, %v; want %v", tc.from, ok, err, tc.want)
		}
	}
}
