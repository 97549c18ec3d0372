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
	// MaxNoteLines is the largest number of lines in one note.
	MaxNoteLines = 64
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
		return "", "", false
	}
	st, err := DecodeStatement(env.Payload)
	if err != nil || len(st.Subjects) != 1 {
		return "", "", false
	}
	return st.Subjects[0].Name, st.PredicateType, true
}

// MergeNote returns the note old with the lines taskproof owns for subjectName
// replaced by lines (SPEC §2): a line is owned when it is a DSSE envelope whose
// Statement names exactly subjectName with a predicateType in [OwnedTypes]. Every
// other line — other tasks of the same commit, other tools' lines, lines that do
// not decode — is kept byte for byte and in order; the new lines follow them. The
// result ends with "\n". It fails with [ErrNoteLimit] when the result would exceed
// [MaxNoteLines] lines or [MaxNoteSize] bytes, and when a new line contains "\n".
func MergeNote(old []byte, subjectName string, lines [][]byte) ([]byte, error) {
	var out bytes.Buffer
	n := 0
	for _, l := range SplitNote(old) {
		if name, typ, ok := LineSubject(l); ok && name == subjectName && OwnedTypes[typ] {
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
