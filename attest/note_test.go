package attest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/predicate"
)

// envelopeLine returns an unsigned envelope line holding a Statement for subject
// name with predicateType typ.
func envelopeLine(t *testing.T, name, typ string, pred map[string]any) []byte {
	t.Helper()
	st, err := EncodeStatement(Subject{Name: name, GitCommit: testCommit}, typ, pred)
	if err != nil {
		t.Fatal(err)
	}
	b, err := (&Envelope{PayloadType: PayloadType, Payload: st}).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSplitNote(t *testing.T) {
	tests := []struct {
		note string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb", []string{"a\r", "b"}},
		{"a\n\nb\n", []string{"a", "", "b"}},
		{"\n", []string{""}},
	}
	for _, tt := range tests {
		var got []string
		for _, l := range SplitNote([]byte(tt.note)) {
			got = append(got, string(l))
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitNote(%q) = %q, want %q", tt.note, got, tt.want)
		}
	}
}

func TestLineSubject(t *testing.T) {
	tv := envelopeLine(t, "f/T1", predicate.PredicateType, map[string]any{})
	tests := []struct {
		name     string
		line     []byte
		wantName string
		wantType string
		ok       bool
	}{
		{"envelope", tv, "f/T1", predicate.PredicateType, true},
		{"envelope with CR", append(append([]byte{}, tv...), '\r'), "f/T1", predicate.PredicateType, true},
		{"other predicateType", envelopeLine(t, "f/T1", "https://example.com/other/v1", map[string]any{}), "f/T1", "https://example.com/other/v1", true},
		{"plain text", []byte("hello from another tool"), "", "", false},
		{"json not envelope", []byte(`{"a":1}`), "", "", false},
		{"wrong payloadType", []byte(`{"payloadType":"text/plain","payload":"` + base64.StdEncoding.EncodeToString([]byte("x")) + `","signatures":[]}`), "", "", false},
		{"payload not a statement", []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"` + base64.StdEncoding.EncodeToString([]byte(`{"x":1}`)) + `","signatures":[]}`), "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, typ, ok := LineSubject(tt.line)
			if n != tt.wantName || typ != tt.wantType || ok != tt.ok {
				t.Errorf("LineSubject = %q, %q, %v; want %q, %q, %v", n, typ, ok, tt.wantName, tt.wantType, tt.ok)
			}
		})
	}
}

// TestMergeNoteOwnership checks SPEC §2: writing a subject's lines replaces
// exactly the lines taskproof owns for that subject and keeps every other line
// byte for byte and in order.
func TestMergeNoteOwnership(t *testing.T) {
	foreignText := []byte("  plain text line from another tool\t")
	foreignEnv := envelopeLine(t, "f/T1", "https://example.com/other/v1", map[string]any{"x": "y"})
	crLine := append(envelopeLine(t, "f/T9", "https://example.com/other/v1", map[string]any{}), '\r')
	t1Old := [][]byte{
		envelopeLine(t, "f/T1", TestResultType, map[string]any{"old": true}),
		envelopeLine(t, "f/T1", predicate.PredicateType, map[string]any{"old": true}),
		envelopeLine(t, "f/T1", VSAType, map[string]any{"old": true}),
	}
	t2 := [][]byte{
		envelopeLine(t, "f/T2", predicate.PredicateType, map[string]any{}),
		envelopeLine(t, "f/T2", VSAType, map[string]any{}),
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
	for i := 0; i < MaxNoteLines; i++ {
		lines = append(lines, line)
	}
	if _, err := MergeNote(nil, "f/T1", lines); err != nil {
		t.Fatalf("%d lines: %v", MaxNoteLines, err)
	}
	if _, err := MergeNote([]byte("foreign\n"), "f/T1", lines); !errors.Is(err, ErrNoteLimit) {
		t.Errorf("%d lines: err = %v, want ErrNoteLimit", MaxNoteLines+1, err)
	}
	big := bytes.Repeat([]byte("x"), MaxNoteSize)
	if _, err := MergeNote(big, "f/T1", [][]byte{line}); !errors.Is(err, ErrNoteLimit) {
		t.Errorf("over %d bytes: err = %v, want ErrNoteLimit", MaxNoteSize, err)
	}
	if _, err := MergeNote(nil, "f/T1", [][]byte{[]byte("a\nb")}); err == nil {
		t.Error("a new line holding a newline was accepted")
	}
}

func TestSignatureKind(t *testing.T) {
	tests := []struct {
		sig  string
		want Kind
	}{
		{"-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n", KindSSH},
		{"\n  -----BEGIN SSH SIGNATURE-----", KindSSH},
		{"-----BEGIN PGP SIGNATURE-----\n\nwnUE\n-----END PGP SIGNATURE-----", KindOpenPGP},
		{"\x30\x45\x02\x20", KindRaw},
		{"", KindRaw},
		{"-----BEGIN SSH SIGNATUR", KindRaw},
	}
	for _, tt := range tests {
		if got := SignatureKind([]byte(tt.sig)); got != tt.want {
			t.Errorf("SignatureKind(%q) = %s, want %s", tt.sig, got, tt.want)
		}
	}
}

func TestShowNote(t *testing.T) {
	tv := envelopeLine(t, "f/T1", predicate.PredicateType, map[string]any{"k": 1})
	signed := `{"payloadType":"application/vnd.in-toto+json","payload":"` +
		base64.StdEncoding.EncodeToString([]byte(`{"x":1}`)) +
		`","signatures":[{"keyid":"SHA256:abc","sig":"` + base64.StdEncoding.EncodeToString([]byte("-----BEGIN SSH SIGNATURE-----\nAA\n")) + `"}]}`
	note := string(tv) + "\nnot json\n" + signed + "\n"
	got := ShowNote([]byte(note))
	if len(got) != 3 {
		t.Fatalf("%d lines, want 3", len(got))
	}
	if got[0].Line != 1 || got[0].Error != "" || got[0].PredicateType != predicate.PredicateType ||
		len(got[0].Subjects) != 1 || got[0].Subjects[0].Name != "f/T1" || len(got[0].Signatures) != 0 ||
		!strings.Contains(string(got[0].Statement), `"predicate":{"k":1}`) {
		t.Errorf("line 1 = %+v", got[0])
	}
	if got[1].Line != 2 || got[1].Error == "" || got[1].PredicateType != "" {
		t.Errorf("line 2 = %+v, want an error", got[1])
	}
	if got[2].Line != 3 || got[2].Error == "" || len(got[2].Signatures) != 1 ||
		got[2].Signatures[0].Kind != KindSSH || got[2].Signatures[0].KeyID != "SHA256:abc" {
		t.Errorf("line 3 = %+v, want the signature summarised and a statement error", got[2])
	}
}
