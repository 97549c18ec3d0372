package attest

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// FuzzParseRegressionReason: no input panics; an accepted one names a known
// reason, and its object is canonical JSON whenever the input is UTF-8.
func FuzzParseRegressionReason(f *testing.F) {
	for _, s := range []string{"planning_work", "no_scenarios:story=US2", "author_failed:detail=a:b=c,d",
		"not_red:red_class=build_error", "already_passing", "already_passing:implemented_by=T1@abc",
		"already_passing:implemented_by=before_feature", "unrecorded", ":", "no_story:", "=", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRegressionReason(s)
		if err != nil {
			return
		}
		reason, _ := r["reason"].(string)
		if reason == "" || reason == "unrecorded" || !strings.HasPrefix(s, reason) {
			t.Fatalf("%q → reason %q", s, reason)
		}
		if _, err := strictjson.Canonical(r); err != nil && utf8.ValidString(s) {
			t.Fatalf("%q → %v not canonical: %v", s, r, err)
		}
	})
}

// FuzzMergeNote: for any old note, merging a subject's lines keeps every line
// not owned by that subject in order, ends with "\n", and is idempotent.
func FuzzMergeNote(f *testing.F) {
	owned, err := statement.Encode(statement.Subject{Name: "f/T1", GitCommit: testCommit}, predicate.PredicateType, map[string]any{})
	if err != nil {
		f.Fatal(err)
	}
	line, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: owned}).MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(""))
	f.Add([]byte("text\n"))
	f.Add(append(append([]byte("a\r\n"), line...), "\nb"...))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, old []byte) {
		got, err := MergeNote(old, "f/T1", [][]byte{line})
		if err != nil {
			return
		}
		if !bytes.HasSuffix(got, []byte("\n")) {
			t.Fatalf("result %q does not end with a newline", got)
		}
		var kept [][]byte
		for _, l := range noteline.Split(old) {
			if n, typ, ok := lineSubject(l); ok && n == "f/T1" && statement.Owned(typ) {
				continue
			}
			kept = append(kept, l)
		}
		want := append(bytes.Join(append(kept, line), []byte("\n")), '\n')
		if !bytes.Equal(got, want) {
			t.Fatalf("MergeNote(%q) = %q, want %q", old, got, want)
		}
		again, err := MergeNote(got, "f/T1", [][]byte{line})
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("not idempotent: %q, %v", again, err)
		}
	})
}
