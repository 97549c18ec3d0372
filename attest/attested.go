package attest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
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
	Existing []TickSummary
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
	return fmt.Sprintf("%v: %s already holds statements for %s; replacing them must be forced (as `git notes add -f` is)",
		ErrAlreadyAttested, where, strings.Join(parts, "; "))
}

// Unwrap returns ErrAlreadyAttested.
func (e *AttestedError) Unwrap() error { return ErrAlreadyAttested }

// replacedStatements returns the owned statements about commit that writing
// batch into note old would replace: the lines of old about commit that the
// merged note no longer holds, summarized per tick. Lines about other commits
// (copied by `git rebase` with notes.rewriteRef) are not the commit's
// attestations and are not counted.
func replacedStatements(old []byte, commit gitref.Hash, batch []pending) ([]TickSummary, error) {
	if len(old) == 0 {
		return nil, nil
	}
	note := old
	for _, pd := range batch {
		var err error
		if note, err = mergeNote(note, pd.w.Subject, TaskKey{Dir: pd.w.Unit.Dir, LineHash: pd.line}, pd.lines); err != nil {
			return nil, err
		}
	}
	kept := map[string]bool{}
	for _, l := range noteline.Split(note) {
		kept[string(l)] = true
	}
	var gone bytes.Buffer
	for _, l := range noteline.Split(old) {
		if _, ok := ownedStatementAbout(l, commit); ok && !kept[string(l)] {
			gone.Write(l)
			gone.WriteByte('\n')
		}
	}
	var out []TickSummary
	for _, s := range SummarizeNote(gone.Bytes()) {
		if s.PayloadSHA256 != "" || s.Verdict != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// refuseReplacing fails with an *AttestedError when writing batch would replace
// statements commit's note holds about commit.
func refuseReplacing(notes *gitref.NotesStore, commit gitref.Hash, batch []pending) error {
	old, err := notes.Note(commit)
	if errors.Is(err, gitref.ErrNotesRefAbsent) || errors.Is(err, gitref.ErrNoNote) {
		return nil
	}
	if err != nil {
		return err
	}
	existing, err := replacedStatements(old, commit, batch)
	if err != nil || len(existing) == 0 {
		return err
	}
	return &AttestedError{Commit: commit, Existing: existing}
}

// commitNoteRefusing is commitNote, after refuseReplacing unless force.
func commitNoteRefusing(notes *gitref.NotesStore, commit gitref.Hash, batch []pending, dryRun, force bool) (gitref.Hash, error) {
	if !force {
		if err := refuseReplacing(notes, commit, batch); err != nil {
			return "", err
		}
	}
	return commitNote(notes, commit, batch, dryRun)
}

// refuseMovingSkip fails with an *AttestedError when ref already points at a
// skip record: a new skip decision would move the ref off that record and its
// signed statement (docs/format.md#attesting-safely). An absent ref is no error.
func refuseMovingSkip(repo *gitref.Repo, notes *gitref.NotesStore, ref string) error {
	old, err := repo.ReadRef(ref)
	if err != nil || old == "" {
		return err
	}
	note, err := notes.Note(old)
	if err != nil && !errors.Is(err, gitref.ErrNotesRefAbsent) && !errors.Is(err, gitref.ErrNoNote) {
		return err
	}
	return &AttestedError{Commit: old, Ref: ref, Existing: SummarizeNote(note)}
}
