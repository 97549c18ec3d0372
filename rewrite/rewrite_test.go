package rewrite

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

const tasks = "# Tasks\n\n- [ ] T001 One\n- [ ] T002 Two\n- [ ] T003 Three\n"

// history is a repository made with the real git: main holds the plan, a
// feature branch implements T001 (code, then the tick); each case rewrites
// it somehow and names FROM and TO.
type history struct {
	t         *testing.T
	dir       string
	code, tck string // the feature's commits
}

func newHistory(t *testing.T) *history {
	h := &history{t: t, dir: testenv.NewRepo(t)}
	testenv.CommitFiles(t, h.dir, "plan", map[string]string{"specs/001-x/tasks.md": tasks, "lib.go": "package lib\n\nfunc A() {}\n\nfunc B() {}\n"})
	h.git("switch", "-q", "-c", "feature")
	h.code = testenv.CommitFiles(t, h.dir, "code", map[string]string{"auth.go": "package auth // checks\n"})
	h.tck = testenv.CommitFiles(t, h.dir, "tick", map[string]string{"specs/001-x/tasks.md": strings.Replace(tasks, "[ ] T001", "[x] T001", 1)})
	return h
}

func (h *history) git(args ...string) string {
	h.t.Helper()
	return strings.TrimSpace(testenv.Git(h.t, h.dir, args...))
}

func (h *history) judge(from, to string) *Judgement {
	h.t.Helper()
	repo, err := gitref.Open(h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	j, err := Judge(repo, gitref.Hash(from), gitref.Hash(to))
	if err != nil {
		h.t.Fatal(err)
	}
	return j
}

// mainMoves adds a commit to main, changing lib.go near where the cases
// change it and ticking T003 two lines from T001, and checks it out.
func (h *history) mainMoves() string {
	h.git("switch", "-q", "main")
	return testenv.CommitFiles(h.t, h.dir, "main moves", map[string]string{
		"lib.go":               "package lib\n\nfunc A() { println() }\n\nfunc B() {}\n",
		"specs/001-x/tasks.md": strings.Replace(tasks, "[ ] T003", "[x] T003", 1),
	})
}

func TestJudge(t *testing.T) {
	for name, c := range map[string]struct {
		rewrite  func(h *history) (from, to string)
		accepted bool
		span     int
		why      []string
	}{
		"amend of the message": {func(h *history) (string, string) {
			h.git("commit", "-q", "--amend", "-m", "tick T001")
			return h.tck, h.git("rev-parse", "HEAD")
		}, true, 0, nil},
		"rebase onto a main that changed lines nearby": {func(h *history) (string, string) {
			h.mainMoves()
			h.git("switch", "-q", "feature")
			h.git("rebase", "-q", "main")
			return h.tck, h.git("rev-parse", "HEAD")
		}, true, 2, nil},
		"squash merge": {func(h *history) (string, string) {
			h.mainMoves()
			h.git("merge", "-q", "--squash", "feature")
			h.git("commit", "-q", "-m", "squash")
			return h.tck, h.git("rev-parse", "HEAD")
		}, true, 1, nil},
		"cherry-pick of both commits": {func(h *history) (string, string) {
			h.mainMoves()
			h.git("cherry-pick", h.code, h.tck)
			return h.tck, h.git("rev-parse", "HEAD")
		}, true, 2, nil},
		"fixup squashed by a rebase": {func(h *history) (string, string) {
			h.git("reset", "-q", "--hard", h.code)
			fix := testenv.CommitFiles(t, h.dir, "fixup", map[string]string{"auth.go": "package auth // checks the token\n"})
			tck := testenv.CommitFiles(t, h.dir, "tick", map[string]string{"specs/001-x/tasks.md": strings.Replace(tasks, "[ ] T001", "[x] T001", 1)})
			h.mainMoves()
			h.git("switch", "-q", "-c", "squashed")
			h.git("merge", "-q", "--squash", fix)
			h.git("commit", "-q", "-m", "code")
			h.git("cherry-pick", tck)
			return tck, h.git("rev-parse", "HEAD")
		}, true, 2, nil},
		"cherry-pick of the tick alone": {func(h *history) (string, string) {
			h.mainMoves()
			h.git("cherry-pick", h.tck)
			return h.tck, h.git("rev-parse", "HEAD")
		}, false, 0, []string{"lacks the change to auth.go"}},
		"amend that changes the code": {func(h *history) (string, string) {
			testenv.CommitFiles(t, h.dir, "edit", map[string]string{"auth.go": "package auth // checks nothing\n"})
			h.git("reset", "-q", "--soft", "HEAD~1")
			h.git("commit", "-q", "--amend", "--no-edit")
			return h.tck, h.git("rev-parse", "HEAD")
		}, false, 0, []string{"also changes auth.go"}},
		"whitespace": {func(h *history) (string, string) {
			h.git("switch", "-q", "-c", "other", "main")
			testenv.CommitFiles(t, h.dir, "code", map[string]string{"auth.go": "package auth //  checks\n"})
			h.git("cherry-pick", h.tck)
			return h.tck, h.git("rev-parse", "HEAD")
		}, false, 0, []string{"changes auth.go otherwise"}},
		"squash with a later commit": {func(h *history) (string, string) {
			testenv.CommitFiles(t, h.dir, "later", map[string]string{"later.go": "package auth\n"})
			h.mainMoves()
			h.git("merge", "-q", "--squash", "feature")
			h.git("commit", "-q", "-m", "squash")
			return h.tck, h.git("rev-parse", "HEAD")
		}, false, 0, []string{"also changes later.go"}},
		"another attempt": {func(h *history) (string, string) {
			h.git("switch", "-q", "-c", "attempt", "main")
			testenv.CommitFiles(t, h.dir, "tick", map[string]string{"auth.go": "package auth // other\n", "specs/001-x/tasks.md": strings.Replace(tasks, "[ ] T001", "[x] T001", 1)})
			return h.tck, h.git("rev-parse", "HEAD")
		}, false, 0, []string{"no run of"}},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHistory(t)
			from, to := c.rewrite(h)
			j := h.judge(from, to)
			if j.Accepted != c.accepted || j.Span != c.span || j.Earlier {
				t.Fatalf("accepted %v span %d earlier %v (%s); want accepted %v span %d", j.Accepted, j.Span, j.Earlier, j.Why, c.accepted, c.span)
			}
			for _, w := range c.why {
				if !strings.Contains(j.Why, w) {
					t.Errorf("why %q lacks %q", j.Why, w)
				}
			}
		})
	}
}

// TestJudgeEarlierTick: FROM in TO's history (ticked, unticked, ticked
// again) and FROM = TO are earlier ticks, never rewrites.
func TestJudgeEarlierTick(t *testing.T) {
	h := newHistory(t)
	testenv.CommitFiles(t, h.dir, "untick", map[string]string{"specs/001-x/tasks.md": tasks})
	again := testenv.CommitFiles(t, h.dir, "tick again", map[string]string{"specs/001-x/tasks.md": strings.Replace(tasks, "[ ] T001", "[x] T001", 1)})
	for _, from := range []string{h.tck, again} {
		if j := h.judge(from, again); j.Accepted || !j.Earlier {
			t.Errorf("%s → %s: %+v; want an earlier tick", from, again, j)
		}
	}
}
