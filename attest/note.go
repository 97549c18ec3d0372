package attest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
)

// ErrNoteLimit is matched by errors for a note that would exceed the limits of docs/format.md#limits.
var ErrNoteLimit = errors.New("note exceeds limits")

// OwnedTypes are the predicateTypes whose lines taskproof (and speccoder) own for
// a subject (docs/format.md#storage): writing a subject's statements replaces exactly these.
var OwnedTypes = map[string]bool{
	predicate.PredicateType: true,
	TestResultType:          true,
	VSAType:                 true,
}

// LineStatement decodes a note line that is a DSSE envelope, or a Sigstore
// bundle whose dsseEnvelope is one (docs/format.md#note-lines), holding an
// in-toto Statement v1 with exactly one subject: its Statement and the payload
// that holds it; ok is false for any other line (another tool's, a malformed
// one). The line is read by [noteline.Decode], so a DSSE envelope and a
// Sigstore bundle's dsseEnvelope count alike (see [lineStatement]).
func LineStatement(line []byte) (st *Statement, payload []byte, ok bool) {
	return lineStatement(noteline.Decode(line))
}

// lineStatement is the Statement a decoded note line holds: the line is an
// envelope or a bundle of payloadType [dsse.PayloadType] (kind
// [noteline.KindEnvelope] or [noteline.KindBundle]) whose payload is a
// Statement with exactly one subject; ok is false for any other line.
func lineStatement(l noteline.Line) (st *Statement, payload []byte, ok bool) {
	if l.Kind != noteline.KindEnvelope && l.Kind != noteline.KindBundle {
		return nil, nil, false
	}
	st, err := DecodeStatement(l.Envelope.Payload)
	if err != nil || len(st.Subjects) != 1 {
		return nil, nil, false
	}
	return st, l.Envelope.Payload, true
}

// ownedEnvelopeAbout returns the Statement of a note line that is a DSSE
// envelope (not a Sigstore bundle) taskproof owns ([OwnedTypes]) whose one
// subject names commit; ok is false for any other line.
func ownedEnvelopeAbout(line []byte, commit gitref.Hash) (st *Statement, ok bool) {
	return ownedAbout(noteline.Decode(line), commit, false)
}

// ownedStatementAbout is [ownedEnvelopeAbout] that also reads Sigstore
// bundles: a signed statement in a bundle is replaced by re-attesting as one in
// an envelope is, so it counts among what Force would replace.
func ownedStatementAbout(line []byte, commit gitref.Hash) (st *Statement, ok bool) {
	return ownedAbout(noteline.Decode(line), commit, true)
}

// ownedAbout is the Statement of l when taskproof owns it and its one subject
// names commit; a bundle counts only when bundles is set.
func ownedAbout(l noteline.Line, commit gitref.Hash, bundles bool) (*Statement, bool) {
	st, _, ok := lineStatement(l)
	kindOK := l.Kind == noteline.KindEnvelope || (bundles && l.Kind == noteline.KindBundle)
	if !ok || !kindOK || !OwnedTypes[st.PredicateType] || st.Subjects[0].Digest["gitCommit"] != string(commit) {
		return nil, false
	}
	return st, true
}

// TaskLineHash is a task-verification statement's task.line_hash, "" when its
// predicate has none (or it is not a string).
func TaskLineHash(st *Statement) string {
	p, _ := st.Predicate.(map[string]any)
	task, _ := p["task"].(map[string]any)
	h, _ := task["line_hash"].(string)
	return h
}

// TaskKey names the task line a statement is about: its unit's directory
// (predicate unit.dir) and its task.line_hash. Two units can share a subject
// name ("001-greeting/T001" in specs/ and in .specify/specs/), and a tasks file
// that repeats a task ID has a tick per line under one subject name, so a
// statement belongs to a tick by this key with the subject name, never by the
// subject name alone (docs/format.md#statements-belong-to-a-unit).
type TaskKey struct {
	Dir      string
	LineHash string
}

// known reports whether anything is known of the key.
func (k TaskKey) known() bool { return k.Dir != "" || k.LineHash != "" }

// TaskUnitDir is a task-verification statement's unit.dir, "" when its
// predicate has none (or it is not a string).
func TaskUnitDir(st *Statement) string {
	p, _ := st.Predicate.(map[string]any)
	unit, _ := p["unit"].(map[string]any)
	d, _ := unit["dir"].(string)
	return d
}

// StatementLines tells which task line each of one subject's statements is
// about: out[i] is the task.line_hash of the tick that wrote stmts[i] (payloads[i]
// holds it), "" when that cannot be told. It is [StatementKeys]'s LineHash.
func StatementLines(stmts []*Statement, payloads [][]byte) []string {
	keys := StatementKeys(stmts, payloads)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.LineHash
	}
	return out
}

// StatementKeys tells which unit and task line each of one subject's
// statements is about: out[i] is the [TaskKey] of the tick that wrote stmts[i]
// (payloads[i] holds it), the zero key when that cannot be told. A tick writes
// its test-result statements, its task-verification statement and a VSA naming
// the others by the SHA-256 of their payloads (docs/format.md#statements), which pairs them:
//   - a task-verification statement: its own unit.dir and task.line_hash;
//   - a VSA: the key of the task-verification statements it names, when they
//     are all of one key (zero when it names none of the subject's, or several
//     keys);
//   - a test-result statement: the key of a VSA that names it; each VSA, in
//     note order, claims one statement per digest it names, so the identical
//     test-result lines of two ticks go one to each;
//   - anything else: zero.
func StatementKeys(stmts []*Statement, payloads [][]byte) []TaskKey {
	out := make([]TaskKey, len(stmts))
	digests := make([]string, len(stmts))
	tvKey := map[string]TaskKey{} // payload SHA-256 → key, of the task-verification statements
	for i, st := range stmts {
		digests[i] = SHA256Hex(payloads[i])
		if st.PredicateType == predicate.PredicateType {
			out[i] = TaskKey{Dir: TaskUnitDir(st), LineHash: TaskLineHash(st)}
			tvKey[digests[i]] = out[i]
		}
	}
	claimed := make([]bool, len(stmts))
	for i, st := range stmts {
		if st.PredicateType != VSAType {
			continue
		}
		named := vsaInputs(st)
		var key TaskKey
		found, several := false, false
		for _, h := range named {
			if k, ok := tvKey[h]; ok {
				several = several || (found && k != key)
				key, found = k, true
			}
		}
		if !found || several || !key.known() {
			continue
		}
		out[i] = key
		for _, h := range named {
			for j := range stmts {
				if !claimed[j] && stmts[j].PredicateType == TestResultType && digests[j] == h {
					claimed[j], out[j] = true, key
					break
				}
			}
		}
	}
	return out
}

// vsaInputs are the SHA-256 digests a VSA's inputAttestations name, in order.
func vsaInputs(st *Statement) []string {
	p, _ := st.Predicate.(map[string]any)
	inputs, _ := p["inputAttestations"].([]any)
	var out []string
	for _, in := range inputs {
		m, _ := in.(map[string]any)
		d, _ := m["digest"].(map[string]any)
		if h, ok := d["sha256"].(string); ok {
			out = append(out, h)
		}
	}
	return out
}

// MergeNote returns the note old with the lines taskproof owns for subjectName
// replaced by lines (docs/format.md#storage): a line is owned when it is a DSSE envelope whose
// Statement names exactly subjectName with a predicateType in [OwnedTypes]. Every
// other line — other tasks of the same commit, other tools' lines, lines that do
// not decode — is kept byte for byte and in order; the new lines follow them. The
// result ends with "\n". It fails with [ErrNoteLimit] when the result would exceed
// [noteline.MaxNoteLines] lines or [noteline.MaxNoteSize] bytes, and when a new line contains "\n".
func MergeNote(old []byte, subjectName string, lines [][]byte) ([]byte, error) {
	return mergeNote(old, subjectName, TaskKey{}, lines)
}

// mergeNote is [MergeNote] for the tick of one unit's task: the owned lines
// of subjectName that [StatementKeys] gives another unit directory than key.Dir
// are kept, as another task's would be (two units can share a subject name,
// docs/format.md#statements-belong-to-a-unit); so are, when key.LineHash is not
// "" (the task's ID is repeated in its tasks file, so the subject names a tick
// per line: the choice "A tick is a line, also when its task ID repeats",
// docs/format.md#choices-where-the-brief-leaves-room), those of another task
// line of the unit. A line whose key cannot be told is replaced, unless the
// note holds another unit's statements for the subject (then it may be
// theirs, and is kept). A zero key matches every unit and line.
func mergeNote(old []byte, subjectName string, key TaskKey, lines [][]byte) ([]byte, error) {
	split := noteline.Split(old)
	keep := make([]bool, len(split))
	var owned []int
	var stmts []*Statement
	var payloads [][]byte
	for i, l := range split {
		st, payload, ok := LineStatement(l)
		if !ok || st.Subjects[0].Name != subjectName || !OwnedTypes[st.PredicateType] {
			keep[i] = true
			continue
		}
		owned = append(owned, i)
		stmts, payloads = append(stmts, st), append(payloads, payload)
	}
	if key.known() {
		keys := StatementKeys(stmts, payloads)
		otherUnit := false
		for _, k := range keys {
			otherUnit = otherUnit || (key.Dir != "" && k.Dir != "" && k.Dir != key.Dir)
		}
		for n, k := range keys {
			switch {
			case !k.known():
				keep[owned[n]] = otherUnit
			case key.Dir != "" && k.Dir != "" && k.Dir != key.Dir:
				keep[owned[n]] = true
			case key.LineHash != "" && k.LineHash != "" && k.LineHash != key.LineHash:
				keep[owned[n]] = true
			}
		}
	}
	var out bytes.Buffer
	n := 0
	for i, l := range split {
		if !keep[i] {
			continue
		}
		out.Write(l)
		out.WriteByte('\n')
		n++
	}
	for _, l := range lines {
		if bytes.IndexByte(l, '\n') >= 0 {
			return nil, fmt.Errorf("note line for %s contains a newline", subjectName)
		}
		out.Write(l)
		out.WriteByte('\n')
		n++
	}
	if n > noteline.MaxNoteLines {
		return nil, fmt.Errorf("%w: %d lines (at most %d)", ErrNoteLimit, n, noteline.MaxNoteLines)
	}
	if out.Len() > noteline.MaxNoteSize {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", ErrNoteLimit, out.Len(), noteline.MaxNoteSize)
	}
	return out.Bytes(), nil
}
