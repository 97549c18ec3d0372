package attest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
)

// ErrAlreadyAttested: the commit's note already holds statements for a tick
// being attested, and the request does not ask to replace them (Force). The
// error is an *AttestedError naming them.
var ErrAlreadyAttested = errors.New("already attested")

// AttestedError names the statements a commit's note already holds for the
// ticks a writer (`attest tick`, `attest decide`, `attest carry`) would replace
// (docs/format.md#attesting-safely). Ref, when not empty, is the skip-record ref
// that points at Commit and that a new skip decision would move.
type AttestedError struct {
	Commit   gitref.Hash
	Ref      string
	Existing []notemerge.TickSummary
	// Why, when not "", says why the statements cannot be kept beside this
	// write's (the note holds the same statements, signed in a way this
	// write's signatures cannot join).
	Why string
}

func (e *AttestedError) Error() string {
	var parts []string
	for _, s := range e.Existing {
		parts = append(parts, fmt.Sprintf("%s (%s)", s.Subject, s.StatementsSummary))
	}
	if len(parts) == 0 {
		parts = append(parts, "the task")
	}
	where := "the note of " + e.Commit.String()
	if e.Ref != "" {
		where = fmt.Sprintf("the skip record %s at %s", e.Commit, e.Ref)
	}
	why := ""
	if e.Why != "" {
		why = " (" + e.Why + ")"
	}
	return fmt.Sprintf("%v: %s already holds statements for %s%s; replacing them must be forced (as `git notes add -f` is)",
		ErrAlreadyAttested, where, strings.Join(parts, "; "), why)
}

// Unwrap returns ErrAlreadyAttested.
func (e *AttestedError) Unwrap() error { return ErrAlreadyAttested }

// replacedStatements returns the owned statements about commit that writing
// batch into note old would replace: the lines of old about commit that the
// merged note no longer holds, summarized per tick. Lines about other commits
// (copied by `git rebase` with notes.rewriteRef) are not the commit's
// attestations and are not counted.
func replacedStatements(old []byte, commit gitref.Hash, batch []pending) ([]notemerge.TickSummary, error) {
	if len(old) == 0 {
		return nil, nil
	}
	note := old
	for _, pd := range batch {
		var err error
		if note, err = notemerge.MergeTaskNote(note, pd.w.Subject, statement.TaskKey{Dir: pd.w.Unit.Dir, LineHash: pd.line}, pd.lines); err != nil {
			return nil, err
		}
	}
	kept := map[string]bool{}
	for _, l := range noteline.Split(note) {
		kept[string(l)] = true
	}
	var gone bytes.Buffer
	for _, l := range noteline.Split(old) {
		if _, ok := notemerge.OwnedStatementAbout(l, commit); ok && !kept[string(l)] {
			gone.Write(l)
			gone.WriteByte('\n')
		}
	}
	var out []notemerge.TickSummary
	for _, s := range notemerge.SummarizeNote(gone.Bytes()) {
		if s.PayloadSHA256 != "" || s.Verdict != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// heldFor returns the owned lines of note old that writing pd would replace
// when they carry exactly the payloads of pd's lines, or of its
// task-verification line alone (what a write that did not fit the note left,
// see commitNote), with the lines of pd that hold those payloads; nil when the
// note holds other statements for pd's tick, or none. A writer run again after
// it was interrupted (a range carry killed between two pairs), or by a second
// signer in the same second, finds the statements it would write: what it
// does then is [notemerge.CosignHeld]'s.
func heldFor(old []byte, pd pending) (held, run [][]byte, err error) {
	if len(old) == 0 {
		return nil, nil, nil
	}
	merged, err := notemerge.MergeTaskNote(old, pd.w.Subject, statement.TaskKey{Dir: pd.w.Unit.Dir, LineHash: pd.line}, nil)
	if err != nil {
		return nil, nil, err
	}
	kept := map[string]bool{}
	for _, l := range noteline.Split(merged) {
		kept[string(l)] = true
	}
	payloads := map[string]bool{}
	for _, l := range noteline.Split(old) {
		if kept[string(l)] {
			continue
		}
		_, payload, ok := statement.FromLine(l)
		if !ok {
			return nil, nil, nil
		}
		payloads[string(payload)] = true
		held = append(held, l)
	}
	switch {
	case len(payloads) == 0 || len(payloads) != len(held):
		return nil, nil, nil
	case samePayloads(payloads, pd.lines):
		return held, pd.lines, nil
	case samePayloads(payloads, pd.core):
		return held, pd.core, nil
	}
	return nil, nil, nil
}

// samePayloads reports whether lines' statements are exactly the payloads of held.
func samePayloads(held map[string]bool, lines [][]byte) bool {
	want := map[string]bool{}
	for _, l := range lines {
		_, payload, ok := statement.FromLine(l)
		if !ok {
			return false
		}
		want[string(payload)] = true
	}
	if len(want) != len(held) {
		return false
	}
	for p := range want {
		if !held[p] {
			return false
		}
	}
	return true
}

// refuseMovingSkip fails with an *AttestedError when ref already points at a
// skip record (old, its value as read): a new skip decision would move the
// ref off that record and its signed statement
// (docs/format.md#attesting-safely). An absent ref (old "") is no error.
func refuseMovingSkip(notes *gitref.NotesStore, ref string, old gitref.Hash) error {
	if old == "" {
		return nil
	}
	note, err := notes.Note(old)
	if err != nil && !errors.Is(err, gitref.ErrNotesRefAbsent) && !errors.Is(err, gitref.ErrNoNote) {
		return err
	}
	return &AttestedError{Commit: old, Ref: ref, Existing: notemerge.SummarizeNote(note)}
}

// unattestedTicks splits ticks, chosen from all (every box change of commit),
// into those whose statements commit's note does not hold, to attest, and
// the others, returned as Written with AlreadyAttested (for
// TickRequest.SkipAttested). A tick is attested when the note holds an owned
// statement about commit for it (its subject, unit and task line, as a write
// would replace them), whatever its verdict or signatures; another tool's
// line, or a statement about another commit, does not count.
func unattestedTicks(repo *gitref.Repo, notes *gitref.NotesStore, commit gitref.Hash, all, ticks []tick.Tick) (todo []tick.Tick, held []Written, err error) {
	old, err := notes.Note(commit)
	if errors.Is(err, gitref.ErrNoNote) || errors.Is(err, gitref.ErrNotesRefAbsent) {
		return ticks, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	nested := false
	for _, t := range all {
		nested = nested || t.Root != ""
	}
	for _, t := range ticks {
		unit := t.ProjectUnit()
		pd := pending{w: &Written{Commit: commit, Subject: statement.SubjectName(unit.Feature, t.TaskID), Task: t.TaskID, Unit: unit,
			Signers: []WrittenSigner{}, AlreadyAttested: true}}
		if _, repeated, terr := tickTask(repo, t); terr == nil && (repeated || nested) {
			pd.line = t.LineHash
		}
		existing, err := replacedStatements(old, commit, []pending{pd})
		if err != nil {
			return nil, nil, err
		}
		if len(existing) == 0 {
			todo = append(todo, t)
			continue
		}
		held = append(held, *pd.w)
	}
	return todo, held, nil
}

// adoptHeldTime gives p the time of issue of the task-verification statement
// that note holds about subject when that statement is p's but for its time
// (docs/format.md#the-same-statement): the same command run again a second
// later, or by a second signer, then builds the held statements byte for byte
// (the VSA restates the time too) and finds them held, instead of other
// statements that only --force could replace. A statement that differs in
// anything else (or that another tool encoded differently) is other
// statements, refused as before.
// It reports whether note holds that statement.
func adoptHeldTime(note []byte, subject statement.Subject, p *predicate.Predicate) (bool, error) {
	for _, l := range noteline.Split(note) {
		st, payload, ok := statement.FromLine(l)
		if !ok || st.PredicateType != predicate.PredicateType || st.Subjects[0].Name != subject.Name ||
			st.Subjects[0].Digest["gitCommit"] != subject.GitCommit {
			continue
		}
		held, _ := st.Predicate.(map[string]any)["time"].(string)
		if held == "" || held > p.Time {
			// Both are RFC 3339 UTC to the second, so they compare as
			// strings; a time after this run's was not issued before it, and
			// signing it would date the statement ahead.
			continue
		}
		q := *p
		q.Time = held
		b, err := statement.Encode(subject, predicate.PredicateType, &q)
		if err != nil {
			return false, err
		}
		if bytes.Equal(b, payload) {
			p.Time = held
			return true, nil
		}
	}
	return false, nil
}

// heldNote is commit's note, nil when it has none.
func heldNote(notes *gitref.NotesStore, commit gitref.Hash) ([]byte, error) {
	old, err := notes.Note(commit)
	if errors.Is(err, gitref.ErrNoNote) || errors.Is(err, gitref.ErrNotesRefAbsent) {
		return nil, nil
	}
	return old, err
}
