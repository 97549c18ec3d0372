package notemerge

import (
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/statement"
)

// envLine is an unsigned envelope line holding a statement about subject.
func envLine(t *testing.T, subject, predicateType, marker string) string {
	t.Helper()
	st, err := statement.Encode(statement.Subject{Name: subject, GitCommit: strings.Repeat("a", 40)}, predicateType, map[string]any{"m": marker})
	if err != nil {
		t.Fatal(err)
	}
	b, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: st}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unionNote is [MergeNotes] reduced to the merged note and the subjects whose
// ticks conflicted, for the tests that only look at those.
func unionNote(local, remote []byte) (merged []byte, conflicts []string, err error) {
	m, err := MergeNotes(local, remote)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, c := range m.Conflicts {
		if !seen[c.Subject] {
			seen[c.Subject] = true
			conflicts = append(conflicts, c.Subject)
		}
	}
	return m.Merged, conflicts, nil
}

func TestUnionNote(t *testing.T) {
	tv := "https://speccoder.dev/task-verification/v0"
	l1 := envLine(t, "f/T1", tv, "local")
	r1 := envLine(t, "f/T1", tv, "remote")
	r2 := envLine(t, "f/T2", tv, "remote")
	r2vsa := envLine(t, "f/T2", statement.VSAType, "remote")
	timed := func(marker, at string) string {
		st, err := statement.Encode(statement.Subject{Name: "f/T1", GitCommit: strings.Repeat("a", 40)}, tv, map[string]any{"m": marker, "time": at})
		if err != nil {
			t.Fatal(err)
		}
		b, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: st}).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	e1, l1late := timed("early", "2026-01-01T00:00:00Z"), timed("late", "2026-01-02T00:00:00Z")
	small, big := timed("x", "2026-01-01T00:00:00Z"), timed("y", "2026-01-01T00:00:00Z")
	if groupDigest([][]byte{[]byte(small)}) > groupDigest([][]byte{[]byte(big)}) {
		small, big = big, small
	}
	other := `{"tool":"x"}`
	foreign := envLine(t, "f/T1", "https://example.com/other/v1", "x")
	for _, tc := range []struct {
		name          string
		local, remote []string
		want          []string
		conflicts     []string
	}{
		{"remote-only subject added", []string{l1}, []string{r2, r2vsa}, []string{l1, r2, r2vsa}, nil},
		{"same subject differs: the later statement wins (remote)", []string{e1}, []string{l1late, r2}, []string{l1late, r2}, []string{"f/T1"}},
		{"same subject differs: the later statement wins (local)", []string{l1late}, []string{e1, r2}, []string{l1late, r2}, []string{"f/T1"}},
		{"same subject, same time: the smaller digest wins", []string{small}, []string{big}, []string{small}, []string{"f/T1"}},
		{"same lines: no conflict", []string{l1, r2}, []string{r2, l1}, []string{l1, r2}, nil},
		{"other lines unioned once", []string{other, l1}, []string{other, foreign}, []string{other, l1, foreign}, nil},
		{"empty local", nil, []string{r1}, []string{r1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			join := func(ls []string) []byte {
				if len(ls) == 0 {
					return nil
				}
				return []byte(strings.Join(ls, "\n") + "\n")
			}
			got, conflicts, err := unionNote(join(tc.local), join(tc.remote))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(join(tc.want)) {
				t.Errorf("merged:\n%s\nwant:\n%s", got, join(tc.want))
			}
			if strings.Join(conflicts, ",") != strings.Join(tc.conflicts, ",") {
				t.Errorf("conflicts %v, want %v", conflicts, tc.conflicts)
			}
		})
	}
	var many []string
	for i := 0; i < noteline.MaxNoteLines; i++ {
		many = append(many, `{"n":`+strings.Repeat("1", i+1)+`}`)
	}
	if _, _, err := unionNote([]byte(strings.Join(many, "\n")+"\n"), []byte(`{"extra":1}`+"\n")); !errors.Is(err, ErrNoteLimit) {
		t.Errorf("over the line limit: %v, want ErrNoteLimit", err)
	}
}
