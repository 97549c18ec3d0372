package notemerge

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/statement"
)

// ErrNoteLimit is matched by errors for a note that would exceed the limits of docs/format.md#limits.
var ErrNoteLimit = errors.New("note exceeds limits")

// OwnedEnvelopeAbout returns the Statement of a note line that is a DSSE
// envelope (not a Sigstore bundle) taskproof owns ([statement.Owned]) whose one
// subject names commit; ok is false for any other line.
func OwnedEnvelopeAbout(line []byte, commit gitref.Hash) (st *statement.Statement, ok bool) {
	return ownedAbout(noteline.Decode(line), commit, false)
}

// OwnedStatementAbout is [OwnedEnvelopeAbout] that also reads Sigstore
// bundles: a signed statement in a bundle is replaced by re-attesting as one in
// an envelope is, so it counts among what Force would replace.
func OwnedStatementAbout(line []byte, commit gitref.Hash) (st *statement.Statement, ok bool) {
	return ownedAbout(noteline.Decode(line), commit, true)
}

// ownedAbout is the Statement of l when taskproof owns it and its one subject
// names commit; a bundle counts only when bundles is set.
func ownedAbout(l noteline.Line, commit gitref.Hash, bundles bool) (*statement.Statement, bool) {
	st, _, ok := statement.FromNoteLine(l)
	kindOK := l.Kind == noteline.KindEnvelope || (bundles && l.Kind == noteline.KindBundle)
	if !ok || !kindOK || !statement.Owned(st.PredicateType) || st.Subjects[0].Digest["gitCommit"] != string(commit) {
		return nil, false
	}
	return st, true
}

// MergeNote returns the note old with the lines taskproof owns for subjectName
// replaced by lines (docs/format.md#storage): a line is owned when it is a DSSE envelope whose
// Statement names exactly subjectName with a predicateType in [statement.Owned]. Every
// other line — other tasks of the same commit, other tools' lines, lines that do
// not decode — is kept byte for byte and in order; the new lines follow them. The
// result ends with "\n". It fails with [ErrNoteLimit] when the result would exceed
// [noteline.MaxNoteLines] lines or [noteline.MaxNoteSize] bytes, and when a new line contains "\n".
func MergeNote(old []byte, subjectName string, lines [][]byte) ([]byte, error) {
	return MergeTaskNote(old, subjectName, statement.TaskKey{}, lines)
}

// MergeTaskNote is [MergeNote] for the tick of one unit's task: the owned lines
// of subjectName that [statement.Keys] gives another unit directory than key.Dir
// are kept, as another task's would be (two units can share a subject name,
// docs/format.md#statements-belong-to-a-unit); so are, when key.LineHash is not
// "" (the task's ID is repeated in its tasks file, so the subject names a tick
// per line: the choice "A tick is a line, also when its task ID repeats",
// docs/format.md#choices-where-the-brief-leaves-room), those of another task
// line of the unit. A line whose key cannot be told is replaced, unless the
// note holds another unit's statements for the subject (then it may be
// theirs, and is kept). A zero key matches every unit and line.
func MergeTaskNote(old []byte, subjectName string, key statement.TaskKey, lines [][]byte) ([]byte, error) {
	split := noteline.Split(old)
	keep := make([]bool, len(split))
	var owned []int
	var stmts []*statement.Statement
	var payloads [][]byte
	for i, l := range split {
		st, payload, ok := statement.FromLine(l)
		if !ok || st.Subjects[0].Name != subjectName || !statement.Owned(st.PredicateType) {
			keep[i] = true
			continue
		}
		owned = append(owned, i)
		stmts, payloads = append(stmts, st), append(payloads, payload)
	}
	if key.Known() {
		keys := statement.Keys(stmts, payloads)
		otherUnit := false
		for _, k := range keys {
			otherUnit = otherUnit || (key.Dir != "" && k.Dir != "" && k.Dir != key.Dir)
		}
		for n, k := range keys {
			switch {
			case !k.Known():
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
