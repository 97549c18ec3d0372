package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/taskproof/taskproof/gitref"
)

// TestStreamJSONMatchesEncoder: WriteJSON's streamed document is byte for byte
// what json.Encoder (indent "  ") writes for the whole report, with each list
// nil, empty or filled, text that JSON escapes (HTML characters, control
// characters, U+2028), and a gate.
func TestStreamJSONMatchesEncoder(t *testing.T) {
	text := "<b>&é\u2028\x01\"\\"
	rows := func(n int) []Row {
		var out []Row
		for i := range n {
			out = append(out, Row{Commit: gitref.Hash("c" + fmt.Sprint(i)), NoteLine: i + 1, Task: "001-a/T00" + fmt.Sprint(i) + text, TaskID: "T00" + fmt.Sprint(i)})
		}
		return out
	}
	for _, n := range []int{-1, 0, 1, 3} { // -1: nil lists
		rep := &Report{SchemaVersion: 1, Mode: "all", NotesRef: "refs/notes/x" + text, Signatures: "not_checked",
			Verdicts: map[string]int{"verified": n, "regression_only": 2}}
		if n >= 0 {
			rep.Ticks = rows(n)
			rep.WithoutEvidence = make([]Unevidenced, 0)
			rep.Problems = make([]Problem, 0)
			for i := range n {
				rep.WithoutEvidence = append(rep.WithoutEvidence, Unevidenced{Commit: "u", Task: text, Line: i, Merge: i%2 == 0})
				rep.Problems = append(rep.Problems, Problem{Commit: "p", NoteLine: i, Message: text})
			}
			rep.Weeks = []Week{{}}
		}
		if n == 3 {
			rep.Gate = &GateResult{Failed: true, Message: text}
			rep.Problems = nil // a nil list after filled ones
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, rep); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("n=%d: streamed\n%s\nwant\n%s", n, got.Bytes(), want.Bytes())
		}
	}
}
