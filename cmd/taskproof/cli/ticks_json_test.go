package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// TestWriteTicksJSONMatchesEncoder: the streamed `ticks --format json`
// document is byte for byte what json.Encoder (indent "  ") writes for the
// whole document, for no ticks, one, and many with text JSON escapes (HTML
// characters, control characters, non-ASCII).
func TestWriteTicksJSONMatchesEncoder(t *testing.T) {
	mk := func(i int) tick.Tick {
		return tick.Tick{
			Kind: tick.KindTick, Commit: gitref.Hash(fmt.Sprintf("%040x", i)), Parent: gitref.Hash(fmt.Sprintf("%040x", i+1)),
			Merge: i%3 == 0, Path: "specs/001-a/tasks.md", OldPath: "specs/001-a/tasks.md", Line: i + 4, OldLine: i + 3,
			TaskID: fmt.Sprintf("T%03d", i), Unit: specfmt.Unit{Format: specfmt.Speckit, Feature: "001-a", Dir: "specs/001-a"},
			Before: "- [ ] T001 <b>&é\u2028\x01", After: "- [x] T001 <b>&é\u2028\x01", LineHash: "sha256:ab",
			Born: i%2 == 0, Derived: i%5 == 0, Ambiguous: map[bool]string{true: "repeated_id"}[i%4 == 0],
			Unrecognized: i%7 == 0, Root: map[bool]string{true: "sub"}[i%6 == 0],
		}
	}
	for _, n := range []int{0, 1, 2, 40} {
		var ticks []tick.Tick
		for i := range n {
			ticks = append(ticks, mk(i))
		}
		recs := make([]tickRecord, 0, n)
		for _, t := range ticks {
			recs = append(recs, newTickRecord(t))
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			SchemaVersion int          `json:"schema_version"`
			Ticks         []tickRecord `json:"ticks"`
		}{1, recs}); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeTicksJSON(&got, seqOf(ticks), nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("%d ticks: streamed\n%s\nwant\n%s", n, got.Bytes(), want.Bytes())
		}
	}
}

// seqOf yields ticks as tick.Stream yields a walk's.
func seqOf(ticks []tick.Tick) iter.Seq2[tick.Tick, error] {
	return func(yield func(tick.Tick, error) bool) {
		for _, t := range ticks {
			if !yield(t, nil) {
				return
			}
		}
	}
}

// TestWriteTicksJSONError: a walk that fails writes no document and returns
// the walk's error.
func TestWriteTicksJSONError(t *testing.T) {
	boom := errors.New("unreadable tree")
	var got bytes.Buffer
	err := writeTicksJSON(&got, func(yield func(tick.Tick, error) bool) {
		if yield(tick.Tick{Kind: tick.KindTick, Commit: gitref.Hash(fmt.Sprintf("%040x", 1))}, nil) {
			yield(tick.Tick{}, boom)
		}
	}, nil)
	if !errors.Is(err, boom) || got.Len() != 0 {
		t.Fatalf("err %v, %d bytes written", err, got.Len())
	}
}
