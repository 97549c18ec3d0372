package verify

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/trust"
)

// TestWriteJSONStreamed: WriteJSON's piecewise output is byte for byte
// encoding/json's indented encoding of the whole report, for empty and full
// lists, omitted and present optional fields, and strings that look like the
// keys WriteJSON splices at.
func TestWriteJSONStreamed(t *testing.T) {
	tick := TickResult{Commit: "c1", Path: "specs/a/tasks.md", Line: 3, Task: "a/T001", TaskID: "T001", Status: StatusEvidenced,
		Reasons: []Reason{{Code: "x", Message: "<&> \"objects\": [] \u2028"}}, Signers: []trust.Signer{{Kind: "ssh", KeyID: "k"}},
		Policy: []policy.Result{{Rule: "r", Level: "warn"}}}
	obj := ObjectResult{Object: "c1", Task: "\n  \"ticks\": []", Outcome: OK}
	for name, rep := range map[string]*Report{
		"empty":   {SchemaVersion: 1, Mode: "branch", Conclusion: Neutral, Summary: map[string]int{}},
		"objects": {SchemaVersion: 1, Mode: "objects", NotesRef: "refs/notes/\"objects\": []", Conclusion: Success, Objects: []ObjectResult{obj, obj}, Summary: map[string]int{"ok": 2}},
		"branch": {SchemaVersion: 1, Mode: "branch", NotesRef: "refs/notes/speccoder", Base: "b", Head: "h", Conclusion: Failure,
			Objects: []ObjectResult{obj}, Ticks: []TickResult{tick, tick, tick}, Unticks: []TickResult{tick}, BornTicked: []TickResult{tick},
			Summary: map[string]int{"evidenced": 3, "unticked": 1}, Policy: []policy.Result{{Rule: "range", Level: "error"}}},
	} {
		var got bytes.Buffer
		if err := WriteJSON(&got, rep); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: WriteJSON wrote\n%s\nencoding/json writes\n%s", name, got.Bytes(), want.Bytes())
		}
	}
}
