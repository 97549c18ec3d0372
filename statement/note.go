package statement

import (
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
)

// ownedTypes is the table behind [Owned].
var ownedTypes = map[string]bool{
	predicate.PredicateType: true,
	TestResultType:          true,
	VSAType:                 true,
}

// Owned reports whether predicateType is one whose note lines taskproof (and
// speccoder) own for a subject (docs/format.md#storage): the task-verification
// predicate, a test result or a VSA. Writing a subject's statements replaces
// exactly these lines.
func Owned(predicateType string) bool { return ownedTypes[predicateType] }

// FromLine decodes a note line that is a DSSE envelope, or a Sigstore
// bundle whose dsseEnvelope is one (docs/format.md#note-lines), holding an
// in-toto Statement v1 with exactly one subject: its Statement and the payload
// that holds it; ok is false for any other line (another tool's, a malformed
// one). The line is read by [noteline.Decode], so a DSSE envelope and a
// Sigstore bundle's dsseEnvelope count alike (see [FromNoteLine]).
func FromLine(line []byte) (st *Statement, payload []byte, ok bool) {
	return FromNoteLine(noteline.Decode(line))
}

// FromNoteLine is the Statement a decoded note line holds: the line is an
// envelope or a bundle of payloadType [dsse.PayloadType] (kind
// [noteline.KindEnvelope] or [noteline.KindBundle]) whose payload is a
// Statement with exactly one subject; ok is false for any other line.
func FromNoteLine(l noteline.Line) (st *Statement, payload []byte, ok bool) {
	if l.Kind != noteline.KindEnvelope && l.Kind != noteline.KindBundle {
		return nil, nil, false
	}
	st, err := Decode(l.Envelope.Payload)
	if err != nil || len(st.Subjects) != 1 {
		return nil, nil, false
	}
	return st, l.Envelope.Payload, true
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

// Known reports whether anything is known of the key.
func (k TaskKey) Known() bool { return k.Dir != "" || k.LineHash != "" }

// TaskUnitDir is a task-verification statement's unit.dir, "" when its
// predicate has none (or it is not a string).
func TaskUnitDir(st *Statement) string {
	p, _ := st.Predicate.(map[string]any)
	unit, _ := p["unit"].(map[string]any)
	d, _ := unit["dir"].(string)
	return d
}

// LineHashes tells which task line each of one subject's statements is
// about: out[i] is the task.line_hash of the tick that wrote stmts[i] (payloads[i]
// holds it), "" when that cannot be told. It is [Keys]'s LineHash.
func LineHashes(stmts []*Statement, payloads [][]byte) []string {
	keys := Keys(stmts, payloads)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.LineHash
	}
	return out
}

// Keys tells which unit and task line each of one subject's
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
func Keys(stmts []*Statement, payloads [][]byte) []TaskKey {
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
		if !found || several || !key.Known() {
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
