package attest

import (
	"bytes"
	"encoding/base64"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
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
			n, typ, ok := lineSubject(tt.line)
			if n != tt.wantName || typ != tt.wantType || ok != tt.ok {
				t.Errorf("lineSubject = %q, %q, %v; want %q, %q, %v", n, typ, ok, tt.wantName, tt.wantType, tt.ok)
			}
		})
	}
}

func TestSignatureKind(t *testing.T) {
	tests := []struct {
		sig  string
		want signer.Kind
	}{
		{"-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n", signer.KindSSH},
		{"\n  -----BEGIN SSH SIGNATURE-----", signer.KindSSH},
		{"-----BEGIN PGP SIGNATURE-----\n\nwnUE\n-----END PGP SIGNATURE-----", signer.KindOpenPGP},
		{"\x30\x45\x02\x20", signer.KindRaw},
		{"", signer.KindRaw},
		{"-----BEGIN SSH SIGNATUR", signer.KindRaw},
	}
	for _, tt := range tests {
		if got := keys.SignatureKind([]byte(tt.sig)); got != tt.want {
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
		got[2].Signatures[0].Kind != signer.KindSSH || got[2].Signatures[0].KeyID != "SHA256:abc" {
		t.Errorf("line 3 = %+v, want the signature summarised and a statement error", got[2])
	}
}

// repeatedTick returns the unsigned note lines one regression_only tick with a
// green test phase writes for subject 001-x/T001 (test-result,
// task-verification, VSA), its task line being lineHash and its time at: two
// ticks of one repeated task ID with the same evidence write the same
// test-result line.
func repeatedTick(t *testing.T, lineHash string, at time.Time) [][]byte {
	t.Helper()
	p := testPredicate(t, predicate.RegressionOnly, `{"regression":{"reason":"planning_work"},"trace":[{"phase":"green","test":"TestAdd","result":"pass"}]}`)
	p.Task.LineHash, p.Time = lineHash, at.UTC().Format(time.RFC3339)
	stmts, err := TickStatements(statement.Subject{Name: "001-x/T001", GitCommit: testCommit}, p)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, s := range stmts {
		b, err := (&dsse.Envelope{PayloadType: dsse.PayloadType, Payload: s}).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) != 3 {
		t.Fatalf("%d statements, want test-result, task-verification, VSA", len(out))
	}
	return out
}

// TestMergeNoteRepeatedID: a tasks file that repeats a task ID has a tick per
// line under one subject name
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also
// when its task ID repeats"). Writing one line's statements (MergeTaskNote with its
// line hash) keeps the other line's — its test-result line too, though it has
// the same bytes as this line's — and replaces its own; MergeNote (a unique ID)
// replaces every owned line of the subject. LineHashes pairs the
// statements, and unionNote unions two lines' ticks without a conflict.
func TestMergeNoteRepeatedID(t *testing.T) {
	hA, hB := strings.Repeat("a", 64), strings.Repeat("b", 64)
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	a, b, a2 := repeatedTick(t, hA, t0), repeatedTick(t, hB, t0), repeatedTick(t, hA, t0.Add(time.Hour))
	if !bytes.Equal(a[0], b[0]) || bytes.Equal(a[1], b[1]) || bytes.Equal(a[1], a2[1]) {
		t.Fatal("want the two lines' test-result lines equal, their task-verification lines not")
	}
	foreign := envelopeLine(t, "001-x/T001", "https://example.com/other/v1", map[string]any{})
	join := func(ls ...[]byte) []byte {
		var buf bytes.Buffer
		for _, l := range ls {
			buf.Write(l)
			buf.WriteByte('\n')
		}
		return buf.Bytes()
	}
	cat := func(lss ...[][]byte) [][]byte {
		var out [][]byte
		for _, ls := range lss {
			out = append(out, ls...)
		}
		return out
	}

	note, err := notemerge.MergeTaskNote(join(foreign), "001-x/T001", statement.TaskKey{LineHash: hA}, a)
	if err != nil {
		t.Fatal(err)
	}
	if note, err = notemerge.MergeTaskNote(note, "001-x/T001", statement.TaskKey{LineHash: hB}, b); err != nil {
		t.Fatal(err)
	}
	if want := join(cat([][]byte{foreign}, a, b)...); !bytes.Equal(note, want) {
		t.Fatalf("second line's tick:\n%s\nwant\n%s", note, want)
	}
	lines := func(note []byte) []string {
		var stmts []*statement.Statement
		var payloads [][]byte
		for _, l := range noteline.Split(note) {
			if st, payload, ok := statement.FromLine(l); ok && statement.Owned(st.PredicateType) {
				stmts, payloads = append(stmts, st), append(payloads, payload)
			}
		}
		return statement.LineHashes(stmts, payloads)
	}
	if got, want := lines(note), []string{hA, hA, hA, hB, hB, hB}; !reflect.DeepEqual(got, want) {
		t.Errorf("LineHashes = %v, want %v", got, want)
	}
	// Re-attesting line A replaces A's three lines and keeps B's.
	again, err := notemerge.MergeTaskNote(note, "001-x/T001", statement.TaskKey{LineHash: hA}, a2)
	if err != nil {
		t.Fatal(err)
	}
	if want := join(cat([][]byte{foreign}, b, a2)...); !bytes.Equal(again, want) {
		t.Errorf("re-attesting line A:\n%s\nwant\n%s", again, want)
	}
	if got, want := lines(again), []string{hB, hB, hB, hA, hA, hA}; !reflect.DeepEqual(got, want) {
		t.Errorf("LineHashes after re-attesting = %v, want %v", got, want)
	}
	// And again: the same note (no line added twice).
	if third, err := notemerge.MergeTaskNote(again, "001-x/T001", statement.TaskKey{LineHash: hA}, a2); err != nil || !bytes.Equal(third, again) {
		t.Errorf("re-attesting line A twice: %v\n%s", err, third)
	}
	// A unique ID's tick replaces every owned line of its subject.
	if got, err := notemerge.MergeNote(note, "001-x/T001", a2); err != nil || !bytes.Equal(got, join(cat([][]byte{foreign}, a2)...)) {
		t.Errorf("MergeNote: %v\n%s", err, got)
	}
	// Statements of no known line (a VSA naming both lines' task-verification
	// statements, a test-result line no VSA claims) are replaced with the
	// line written.
	both := repeatedTick(t, hA, t0)
	vsa := envelopeLine(t, "001-x/T001", statement.VSAType, map[string]any{"inputAttestations": []any{
		map[string]any{"name": predicate.PredicateType, "digest": map[string]any{"sha256": statement.SHA256Hex(payloadOf(t, a[1]))}},
		map[string]any{"name": predicate.PredicateType, "digest": map[string]any{"sha256": statement.SHA256Hex(payloadOf(t, b[1]))}},
	}})
	odd := join(a[1], b[1], vsa, both[0])
	if got, want := lines(odd), []string{hA, hB, "", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("LineHashes of unpaired statements = %q, want %q", got, want)
	}
	if got, err := notemerge.MergeTaskNote(odd, "001-x/T001", statement.TaskKey{LineHash: hA}, a2); err != nil || !bytes.Equal(got, join(cat([][]byte{b[1]}, a2)...)) {
		t.Errorf("MergeTaskNote over unpaired statements: %v\n%s", err, got)
	}

	// unionNote: the two lines' ticks written on two sides are unioned; one
	// line's tick written differently on the two sides is a conflict (the
	// later statement wins, whichever side it is on).
	merged, conflicts, err := unionNote(join(a...), join(b...))
	if err != nil || len(conflicts) != 0 || !bytes.Equal(merged, join(cat(a, b)...)) {
		t.Errorf("unionNote(line A, line B) = %v, %v\n%s", conflicts, err, merged)
	}
	merged, conflicts, err = unionNote(join(cat(a, b)...), join(cat(b, a2)...))
	if err != nil || !reflect.DeepEqual(conflicts, []string{"001-x/T001"}) || !bytes.Equal(merged, join(cat(b, a2)...)) {
		t.Errorf("unionNote(A and B, B and A') = %v, %v\n%s", conflicts, err, merged)
	}
}

// payloadOf is the payload of an envelope line.
func payloadOf(t *testing.T, line []byte) []byte {
	t.Helper()
	env, err := dsse.DecodeEnvelope(line)
	if err != nil {
		t.Fatal(err)
	}
	return env.Payload
}

// unionNote is [notemerge.MergeNotes] reduced to the merged note and the
// subjects whose ticks conflicted.
func unionNote(local, remote []byte) (merged []byte, conflicts []string, err error) {
	m, err := notemerge.MergeNotes(local, remote)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range m.Conflicts {
		if !slices.Contains(conflicts, c.Subject) {
			conflicts = append(conflicts, c.Subject)
		}
	}
	return m.Merged, conflicts, nil
}
