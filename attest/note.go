package attest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/predicate"
)

// Note limits (SPEC §9).
const (
	// MaxNoteSize is the largest note, in bytes (4 MiB).
	MaxNoteSize = 4 << 20
	// MaxNoteLines is the largest number of lines in one note (docs/format.md#limits):
	// the 4 MiB size is the bound that matters; 1,024 lines hold the three
	// statements of a commit that ticks 341 tasks.
	MaxNoteLines = 1024
)

// ErrNoteLimit is matched by errors for a note that would exceed SPEC §9's limits.
var ErrNoteLimit = errors.New("note exceeds limits")

// OwnedTypes are the predicateTypes whose lines taskproof (and speccoder) own for
// a subject (SPEC §2, §3): writing a subject's statements replaces exactly these.
var OwnedTypes = map[string]bool{
	predicate.PredicateType: true,
	TestResultType:          true,
	VSAType:                 true,
}

// SplitNote splits a note into its lines (SPEC §2: JSON Lines): on "\n", with a
// final "\n" not making an empty last line. Lines are returned as written (a "\r"
// before the "\n" stays part of the line).
func SplitNote(note []byte) [][]byte {
	if len(note) == 0 {
		return nil
	}
	note = bytes.TrimSuffix(note, []byte("\n"))
	return bytes.Split(note, []byte("\n"))
}

// LineSubject returns the subject name and predicateType of a note line that is a
// DSSE envelope, or a Sigstore bundle whose dsseEnvelope is one (SPEC §5 item 4),
// holding an in-toto Statement v1 with exactly one subject; ok is false for any
// other line (another tool's, a malformed one).
func LineSubject(line []byte) (name, predicateType string, ok bool) {
	st, _, ok := LineStatement(line)
	if !ok {
		return "", "", false
	}
	return st.Subjects[0].Name, st.PredicateType, true
}

// LineStatement decodes a note line as [LineSubject] reads it: its Statement
// (exactly one subject) and the payload that holds it; ok is false for any other
// line.
func LineStatement(line []byte) (st *Statement, payload []byte, ok bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	var env *Envelope
	var err error
	if IsBundle(line) {
		var b *Bundle
		if b, err = DecodeBundle(line); err == nil {
			env = b.Envelope
		}
	} else {
		env, err = DecodeEnvelope(line)
	}
	if err != nil || env.CheckPayloadType() != nil {
		return nil, nil, false
	}
	st, err = DecodeStatement(env.Payload)
	if err != nil || len(st.Subjects) != 1 {
		return nil, nil, false
	}
	return st, env.Payload, true
}

// TaskLineHash is a task-verification statement's task.line_hash, "" when its
// predicate has none (or it is not a string).
func TaskLineHash(st *Statement) string {
	p, _ := st.Predicate.(map[string]any)
	task, _ := p["task"].(map[string]any)
	h, _ := task["line_hash"].(string)
	return h
}

// StatementLines tells which task line each of one subject's statements is
// about: out[i] is the task.line_hash of the tick that wrote stmts[i] (payloads[i]
// holds it), "" when that cannot be told. A subject names a task by its ID, and
// a tasks file that repeats the ID has a tick per line under one subject name
// (README "Choices", item 10); a tick writes its test-result statements, its
// task-verification statement and a VSA naming the others by the SHA-256 of
// their payloads (SPEC §3), which pairs them:
//   - a task-verification statement: its own task.line_hash;
//   - a VSA: the line of the task-verification statements it names, when they
//     are all of one line ("" when it names none of the subject's, or several
//     lines');
//   - a test-result statement: the line of a VSA that names it; each VSA, in
//     note order, claims one statement per digest it names, so the identical
//     test-result lines of two ticks go one to each;
//   - anything else: "".
func StatementLines(stmts []*Statement, payloads [][]byte) []string {
	out := make([]string, len(stmts))
	digests := make([]string, len(stmts))
	tvLine := map[string]string{} // payload SHA-256 → line_hash, of the task-verification statements
	for i, st := range stmts {
		digests[i] = SHA256Hex(payloads[i])
		if st.PredicateType == predicate.PredicateType {
			out[i] = TaskLineHash(st)
			tvLine[digests[i]] = out[i]
		}
	}
	claimed := make([]bool, len(stmts))
	for i, st := range stmts {
		if st.PredicateType != VSAType {
			continue
		}
		named := vsaInputs(st)
		var line string
		found, several := false, false
		for _, h := range named {
			if l, ok := tvLine[h]; ok {
				several = several || (found && l != line)
				line, found = l, true
			}
		}
		if !found || several || line == "" {
			continue
		}
		out[i] = line
		for _, h := range named {
			for j := range stmts {
				if !claimed[j] && stmts[j].PredicateType == TestResultType && digests[j] == h {
					claimed[j], out[j] = true, line
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
// replaced by lines (SPEC §2): a line is owned when it is a DSSE envelope whose
// Statement names exactly subjectName with a predicateType in [OwnedTypes]. Every
// other line — other tasks of the same commit, other tools' lines, lines that do
// not decode — is kept byte for byte and in order; the new lines follow them. The
// result ends with "\n". It fails with [ErrNoteLimit] when the result would exceed
// [MaxNoteLines] lines or [MaxNoteSize] bytes, and when a new line contains "\n".
func MergeNote(old []byte, subjectName string, lines [][]byte) ([]byte, error) {
	return mergeNote(old, subjectName, "", lines)
}

// mergeNote is [MergeNote] for the tick of one task line when line (its
// task.line_hash) is not "": the task's ID is repeated in its tasks file, so the
// subject names a tick per line (README "Choices", item 10). Of the subject's
// owned lines, those [StatementLines] gives another task line are then kept, as
// another task's would be; the line's own and those of no known line are
// replaced.
func mergeNote(old []byte, subjectName, line string, lines [][]byte) ([]byte, error) {
	split := SplitNote(old)
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
	if line != "" {
		for k, l := range StatementLines(stmts, payloads) {
			keep[owned[k]] = l != "" && l != line
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
	if n > MaxNoteLines {
		return nil, fmt.Errorf("%w: %d lines (at most %d)", ErrNoteLimit, n, MaxNoteLines)
	}
	if out.Len() > MaxNoteSize {
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", ErrNoteLimit, out.Len(), MaxNoteSize)
	}
	return out.Bytes(), nil
}
