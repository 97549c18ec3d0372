package notemerge

import (
	"bytes"
	"errors"
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
)

// envelopeLine returns an unsigned envelope line holding a Statement for subject
// name with predicateType typ.
func envelopeLine(t *testing.T, name, typ string, pred map[string]any) []byte {
	t.Helper()
	st, err := statement.Encode(statement.Subject{Name: name, GitCommit: testCommit}, typ, pred)
	if err != nil {
		t.Fatal(err)
	}
	b, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: st}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMergeNoteOwnership checks docs/format.md#storage: writing a subject's lines replaces
// exactly the lines taskproof owns for that subject and keeps every other line
// byte for byte and in order.
func TestMergeNoteOwnership(t *testing.T) {
	foreignText := []byte("  plain text line from another tool\t")
	foreignEnv := envelopeLine(t, "f/T1", "https://example.com/other/v1", map[string]any{"x": "y"})
	crLine := append(envelopeLine(t, "f/T9", "https://example.com/other/v1", map[string]any{}), '\r')
	t1Old := [][]byte{
		envelopeLine(t, "f/T1", statement.TestResultType, map[string]any{"old": true}),
		envelopeLine(t, "f/T1", predicate.PredicateType, map[string]any{"old": true}),
		envelopeLine(t, "f/T1", statement.VSAType, map[string]any{"old": true}),
	}
	t2 := [][]byte{
		envelopeLine(t, "f/T2", predicate.PredicateType, map[string]any{}),
		envelopeLine(t, "f/T2", statement.VSAType, map[string]any{}),
	}
	t1New := [][]byte{envelopeLine(t, "f/T1", predicate.PredicateType, map[string]any{"new": true})}
	join := func(ls ...[]byte) []byte {
		var b bytes.Buffer
		for _, l := range ls {
			b.Write(l)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}

	// Second tick on the same commit keeps the first's lines.
	first, err := MergeNote(nil, "f/T1", t1Old)
	if err != nil {
		t.Fatal(err)
	}
	second, err := MergeNote(first, "f/T2", t2)
	if err != nil {
		t.Fatal(err)
	}
	if want := join(append(append([][]byte{}, t1Old...), t2...)...); !bytes.Equal(second, want) {
		t.Fatalf("second tick:\n%s\nwant\n%s", second, want)
	}

	// Foreign lines (text, another predicateType for the same subject, a line
	// ending in CR) stay byte for byte, in order; re-attesting T1 replaces only
	// T1's owned lines.
	old := join(foreignText, t1Old[0], foreignEnv, t2[0], t1Old[1], crLine, t1Old[2], t2[1])
	got, err := MergeNote(old, "f/T1", t1New)
	if err != nil {
		t.Fatal(err)
	}
	want := join(foreignText, foreignEnv, t2[0], crLine, t2[1], t1New[0])
	if !bytes.Equal(got, want) {
		t.Fatalf("re-attest:\n%q\nwant\n%q", got, want)
	}
	// A note without a final newline keeps its last line too.
	got, err = MergeNote(foreignText, "f/T1", t1New)
	if err != nil || !bytes.Equal(got, join(foreignText, t1New[0])) {
		t.Errorf("note without final newline: %q, %v", got, err)
	}
	// Re-merging the same lines is idempotent.
	again, err := MergeNote(got, "f/T1", t1New)
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("idempotence: %q, %v", again, err)
	}
}

func TestMergeNoteLimits(t *testing.T) {
	line := envelopeLine(t, "f/T1", predicate.PredicateType, map[string]any{})
	var lines [][]byte
	for i := 0; i < noteline.MaxNoteLines; i++ {
		lines = append(lines, line)
	}
	if _, err := MergeNote(nil, "f/T1", lines); err != nil {
		t.Fatalf("%d lines: %v", noteline.MaxNoteLines, err)
	}
	if _, err := MergeNote([]byte("foreign\n"), "f/T1", lines); !errors.Is(err, ErrNoteLimit) {
		t.Errorf("%d lines: err = %v, want ErrNoteLimit", noteline.MaxNoteLines+1, err)
	}
	big := bytes.Repeat([]byte("x"), noteline.MaxNoteSize)
	if _, err := MergeNote(big, "f/T1", [][]byte{line}); !errors.Is(err, ErrNoteLimit) {
		t.Errorf("over %d bytes: err = %v, want ErrNoteLimit", noteline.MaxNoteSize, err)
	}
	if _, err := MergeNote(nil, "f/T1", [][]byte{[]byte("a\nb")}); err == nil {
		t.Error("a new line holding a newline was accepted")
	}
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
			if st, _, ok := statement.FromLine(l); ok && st.Subjects[0].Name == "f/T1" && statement.Owned(st.PredicateType) {
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
