package gate

import (
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// TestWalkSpoolRoundTrip checks that the ticks BranchSpooled reads back from
// its walk spool are the ticks the walk found (reflect.DeepEqual, nil lists
// told apart from empty ones), commit by commit, for two corpora's whole
// histories and for ticks whose task lists are empty and not nil.
func TestWalkSpoolRoundTrip(t *testing.T) {
	var commits [][]tick.Tick
	for _, name := range []string{"speckit-youbencha", "openspec-agent-validator"} {
		repo, err := gitref.Open(testenv.CloneBundle(t, name))
		if err != nil {
			t.Fatal(err)
		}
		head, err := repo.Resolve("HEAD")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tick.Each(repo, "", head, tick.Options{}, func(ts []tick.Tick, _ []tick.Move) error {
			if len(ts) > 0 {
				commits = append(commits, ts)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	empty := tick.Tick{Kind: tick.KindTick, Commit: "c", Task: specfmt.Task{ID: "T1", Labels: []string{}, Requirements: []string{}}}
	mixed := tick.Tick{Kind: tick.KindUntick, Commit: "c", Task: specfmt.Task{ID: "T2", Labels: []string{"P"}, Requirements: nil}}
	commits = append(commits, []tick.Tick{empty, mixed, empty}, []tick.Tick{{Kind: tick.KindNotRegular, Path: "a/tasks.md", Irregular: "symlink"}})

	s, err := newWalkSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	for _, ts := range commits {
		if err := s.add(ts); err != nil {
			t.Fatal(err)
		}
	}
	next, err := s.reader()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range commits {
		got, err := next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d reads back as\n%#v\nnot\n%#v", i, got, want)
		}
	}
	if _, err := next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last record: %v, not io.EOF", err)
	}
}
