package tick

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

// tickHistory commits a history of n tick commits over two units (a spec-kit
// and an OpenSpec unit of 60 tasks each, ticked in turn), with an untick
// every 9th commit and the OpenSpec unit moved to its archive halfway, and
// returns its head.
func tickHistory(t *testing.T, n int) (dir string, head gitref.Hash) {
	t.Helper()
	dir = newRepo(t)
	const tasks = 60
	boxes := [2][]bool{make([]bool, tasks), make([]bool, tasks)}
	render := func(u int) string {
		var b strings.Builder
		for i, x := range boxes[u] {
			box := " "
			if x {
				box = "x"
			}
			if u == 0 {
				fmt.Fprintf(&b, "- [%s] T%03d Task %d\n", box, i+1, i+1)
			} else {
				fmt.Fprintf(&b, "- [%s] 1.%d Task %d\n", box, i+1, i+1)
			}
		}
		return b.String()
	}
	paths := [2]string{"specs/001-a/tasks.md", "openspec/changes/add-b/tasks.md"}
	head = commitFiles(t, dir, "start", map[string]string{paths[0]: render(0), paths[1]: render(1)})
	for c := 1; c <= n; c++ {
		u, i := c%2, (c/2)%tasks
		boxes[u][i] = c%9 != 0
		files := map[string]string{paths[u]: render(u)}
		if c == n/2 {
			files[paths[1]] = ""
			paths[1] = "openspec/changes/archive/2026-01-01-add-b/tasks.md"
			files[paths[1]] = render(1)
		}
		head = commitFiles(t, dir, fmt.Sprintf("commit %d", c), files)
	}
	return dir, head
}

// sequentialWalk is the walk's oracle: every commit of the range compared in
// order by one tickCtx, no fan-out, no chunks, no batches.
func sequentialWalk(t *testing.T, r *gitref.Repo, head gitref.Hash, opts Options) ([]Tick, []Move) {
	t.Helper()
	commits, err := r.List("", head, opts.FirstParent)
	if err != nil {
		t.Fatal(err)
	}
	tc := &tickCtx{r: r, parsed: map[parseKey]*parsedFile{}, layouts: opts.Layouts}
	ticks := []Tick{}
	var moves []Move
	for i := range commits.Len() {
		ts, ms, err := tc.commitTicks(commits.Link(i))
		if err != nil {
			t.Fatal(err)
		}
		ticks, moves = append(ticks, ts...), append(moves, ms...)
	}
	return ticks, moves
}

// TestStreamMatchesSequential checks the streaming walk (Stream, and Walk
// built on it) against sequentialWalk on the corpora and a generated history,
// with the default sizes and with chunks and batches small enough that every
// range is cut into many of each.
func TestStreamMatchesSequential(t *testing.T) {
	gen, _ := tickHistory(t, 90)
	dirs := map[string]string{
		"speckit-youbencha":        testenv.CloneBundle(t, "speckit-youbencha"),
		"openspec-agent-validator": testenv.CloneBundle(t, "openspec-agent-validator"),
		"generated":                gen,
	}
	for name, dir := range dirs {
		r := open(t, dir)
		head, err := r.Resolve("HEAD")
		if err != nil {
			t.Fatal(err)
		}
		for _, fp := range []bool{false, true} {
			opts := Options{FirstParent: fp}
			wantTicks, wantMoves := sequentialWalk(t, r, head, opts)
			if len(wantTicks) == 0 || name == "generated" && len(wantMoves) != 1 {
				t.Fatalf("%s: %d ticks, %d moves", name, len(wantTicks), len(wantMoves))
			}
			for _, sz := range []walkSizes{{}, {chunk: 1, batch: 1}, {chunk: 3, batch: 2}, {chunk: 7, batch: 5}} {
				t.Run(fmt.Sprintf("%s/fp=%v/chunk=%d,batch=%d", name, fp, sz.chunk, sz.batch), func(t *testing.T) {
					ticks := []Tick{}
					var moves []Move
					if _, err := walk(r, "", head, opts, sz, func(ts []Tick, ms []Move) bool {
						ticks, moves = append(ticks, ts...), append(moves, ms...)
						return true
					}); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(ticks, wantTicks) || !reflect.DeepEqual(moves, wantMoves) {
						t.Errorf("walk: %d ticks, %d moves; sequential: %d, %d (or they differ)", len(ticks), len(moves), len(wantTicks), len(wantMoves))
					}
				})
			}
			var streamed []Tick
			for tk, err := range Stream(r, "", head, opts) {
				if err != nil {
					t.Fatal(err)
				}
				streamed = append(streamed, tk)
			}
			w, err := Walk(r, "", head, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(streamed, wantTicks) || !reflect.DeepEqual(w.Ticks, wantTicks) || !reflect.DeepEqual(w.Moves, wantMoves) {
				t.Errorf("%s fp=%v: Stream, Walk and the sequential walk differ", name, fp)
			}
			revList := []string{"rev-list", "--count", string(head)}
			if fp {
				revList = []string{"rev-list", "--count", "--first-parent", string(head)}
			}
			if want := strings.TrimSpace(testenv.Git(t, dir, revList...)); strconv.Itoa(w.Commits) != want {
				t.Errorf("%s fp=%v: Walk compared %d commits, git rev-list --count says %s", name, fp, w.Commits, want)
			}
		}
	}
}

// TestStreamStops checks that breaking out of Stream's loop ends the walk
// (the workers done when Stream returns) with the ticks seen so far in order.
func TestStreamStops(t *testing.T) {
	dir, head := tickHistory(t, 150)
	r := open(t, dir)
	want, _ := sequentialWalk(t, r, head, Options{})
	for _, stopAt := range []int{0, 1, 100, len(want) - 1} {
		var got []Tick
		for tk, err := range Stream(r, "", head, Options{}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, tk)
			if len(got) == stopAt+1 {
				break
			}
		}
		if !reflect.DeepEqual(got, want[:stopAt+1]) {
			t.Errorf("stopped at %d: got %d ticks, not the first %d in order", stopAt, len(got), stopAt+1)
		}
		// Many small batches: the stop comes while later ones are compared.
		got = nil
		_, err := walk(r, "", head, Options{}, walkSizes{chunk: 2, batch: 3}, func(ts []Tick, _ []Move) bool {
			got = append(got, ts...)
			return len(got) <= stopAt
		})
		if err != nil || !reflect.DeepEqual(got, want[:len(got)]) || len(got) != stopAt+1 {
			t.Errorf("walk stopped at %d: %v, %d ticks", stopAt, err, len(got))
		}
	}
}

// TestStreamError checks that an unreadable range yields its error once.
func TestStreamError(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "one", map[string]string{"README": "x\n"})
	r := open(t, dir)
	n := 0
	var got error
	for _, err := range Stream(r, "", gitref.Hash("0123456789012345678901234567890123456789"), Options{}) {
		n++
		got = err
	}
	if n != 1 || got == nil {
		t.Fatalf("got %d values, last error %v; want one error", n, got)
	}
	if _, err := Walk(r, "", "0123456789012345678901234567890123456789", Options{}); !errors.Is(err, got) && err.Error() != got.Error() {
		t.Errorf("Walk: %v; Stream: %v", err, got)
	}
}

// TestEachMatchesWalk checks that Each hands out Walk's ticks and moves,
// commit by commit in Walk's order, with its commit count, and that fn's
// error stops the walk and is returned.
func TestEachMatchesWalk(t *testing.T) {
	dir, head := tickHistory(t, 150)
	r := open(t, dir)
	want, err := Walk(r, "", head, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := Walked{Ticks: []Tick{}}
	n, err := Each(r, "", head, Options{}, func(ts []Tick, ms []Move) error {
		if len(ts) == 0 && len(ms) == 0 {
			t.Error("Each handed out a commit without ticks or moves")
		}
		for _, tk := range ts {
			if tk.Commit != ts[0].Commit {
				t.Errorf("one call holds ticks of %s and %s", ts[0].Commit, tk.Commit)
			}
		}
		got.Ticks, got.Moves = append(got.Ticks, ts...), append(got.Moves, ms...)
		return nil
	})
	got.Commits = n
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Each: %v, %d ticks, %d moves, %d commits; Walk: %d, %d, %d", err, len(got.Ticks), len(got.Moves), got.Commits, len(want.Ticks), len(want.Moves), want.Commits)
	}
	stop := errors.New("stop")
	calls := 0
	if _, err := Each(r, "", head, Options{}, func([]Tick, []Move) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	}); err != stop || calls != 3 {
		t.Errorf("stopped at the third commit: %v after %d calls", err, calls)
	}
}
