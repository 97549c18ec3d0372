package notemerge

import (
	"context"
	"sort"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
)

// ConflictsRef is the notes ref that keeps the statements a notes merge
// displaced for notesRef: notesRef + "-conflicts"
// (docs/format.md#conflicting-statements-of-one-tick).
func ConflictsRef(notesRef string) string { return notesRef + "-conflicts" }

// SyncConflict is a [NoteConflict] of one commit's note.
type SyncConflict struct {
	Commit string `json:"commit"`
	NoteConflict
}

// DisplacedStatement is a task-verification statement that reached the local
// conflicts ref from the remote: another clone's merge displaced it.
type DisplacedStatement struct {
	Commit    string            `json:"commit"`
	Subject   string            `json:"subject"`
	Displaced StatementsSummary `json:"displaced"`
	// Kept is the tick's statements the notes ref holds after the sync (nil
	// when none); Differs and Rule explain the choice against them
	// (NoteConflict's).
	Kept    *StatementsSummary `json:"kept,omitempty"`
	Differs []string           `json:"differs,omitempty"`
	Rule    string             `json:"rule,omitempty"`

	lines [][]byte // the displaced line
}

// NotesSync is what [SyncNotes] did.
type NotesSync struct {
	*gitref.SyncResult
	// ConflictsRef is the notes ref that keeps the displaced lines.
	ConflictsRef string
	// Conflicts lists each tick this merge attested differently on the two
	// sides, once (a merge run again after a lost push race reports it once),
	// in commit order; never nil.
	Conflicts []SyncConflict
	// DisplacedElsewhere lists the statements that arrived in the conflicts
	// ref from the remote and are not this merge's own Conflicts, by commit
	// and payload SHA-256; never nil.
	DisplacedElsewhere []DisplacedStatement
	// MissingUpstream lists, when someone else rewrote the remote's notes
	// ref (SyncResult.Rewritten), the statements it held before that it no
	// longer holds and the local notes do (kept by fetch, pushed back by
	// push), by commit and payload SHA-256; never nil.
	MissingUpstream []UpstreamStatement
}

// UpstreamStatement is a statement the remote's notes held before someone
// else rewrote them, and hold no longer.
type UpstreamStatement struct {
	Commit    string            `json:"commit"`
	Subject   string            `json:"subject"`
	Statement StatementsSummary `json:"statement"`
}

// SyncNotes fetches (push false) or pushes (push true) notes's ref and its
// conflicts ref ([ConflictsRef]) to or from opts.Remote, merging the notes
// that both sides changed line by line with [MergeNotesWith] (judged with mo) and the conflicts
// ref with [UnionLines] (docs/format.md#sharing-notes-between-clones). It
// sets opts.Merge, opts.ConflictsRef and opts.MergeConflicts; the other
// options are [gitref.NotesStore.Sync]'s, whose errors it returns.
func SyncNotes(ctx context.Context, notes *gitref.NotesStore, push bool, opts gitref.SyncOptions, mo MergeOptions) (*NotesSync, error) {
	var conflicts []SyncConflict
	opts.ConflictsRef = ConflictsRef(notes.Ref())
	opts.MergeConflicts = UnionLines
	opts.Merge = func(commit gitref.Hash, local, remote []byte) ([]byte, []byte, error) {
		m, err := MergeNotesWith(local, remote, mo)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range m.Conflicts {
			conflicts = append(conflicts, SyncConflict{string(commit), c})
		}
		var displaced []byte
		for _, l := range m.Displaced {
			displaced = append(append(displaced, l...), '\n')
		}
		return m.Merged, displaced, nil
	}
	var res *gitref.SyncResult
	var err error
	opts.Push = push
	res, err = notes.Sync(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := &NotesSync{SyncResult: res, ConflictsRef: opts.ConflictsRef, Conflicts: uniqueConflicts(conflicts)}
	out.DisplacedElsewhere = []DisplacedStatement{}
	out.MissingUpstream = []UpstreamStatement{}
	if res.Rewritten != nil {
		for _, m := range displacedStatements(res.Rewritten.Missing) {
			out.MissingUpstream = append(out.MissingUpstream, UpstreamStatement{m.Commit, m.Subject, m.Displaced})
		}
	}
	for _, a := range displacedStatements(res.Arrived) {
		own := false // displaced by this very merge: reported with the conflict
		for _, x := range out.Conflicts {
			own = own || (x.Commit == a.Commit && x.Displaced.PayloadSHA256 == a.Displaced.PayloadSHA256)
		}
		// A statement someone acknowledged (taskproof notes conflicts
		// --resolve) arrives with its acknowledgement: not reported again.
		if _, acked := acknowledgements(res.Arrived[gitref.Hash(a.Commit)])[a.Displaced.PayloadSHA256]; own || acked {
			continue
		}
		current, err := notes.Note(gitref.Hash(a.Commit))
		if err != nil && !isNoNote(err) {
			return nil, err
		}
		out.DisplacedElsewhere = append(out.DisplacedElsewhere, explainDisplaced(a, current))
	}
	return out, nil
}

// uniqueConflicts sorts conflicts by commit and keeps each (commit, subject,
// line hash, displaced payload) once.
func uniqueConflicts(conflicts []SyncConflict) []SyncConflict {
	sort.SliceStable(conflicts, func(i, j int) bool { return conflicts[i].Commit < conflicts[j].Commit })
	out := []SyncConflict{}
	for i, x := range conflicts {
		if i > 0 && x.Commit == conflicts[i-1].Commit && x.Subject == conflicts[i-1].Subject &&
			x.LineHash == conflicts[i-1].LineHash && x.Displaced.PayloadSHA256 == conflicts[i-1].Displaced.PayloadSHA256 {
			continue
		}
		out = append(out, x)
	}
	return out
}

// displacedStatements names each task-verification statement among lines
// by commit (those that arrived in the conflicts ref, those missing
// upstream), sorted by commit and payload SHA-256.
func displacedStatements(arrived map[gitref.Hash][]byte) []DisplacedStatement {
	out := []DisplacedStatement{}
	for commit, lines := range arrived {
		for _, l := range noteline.Split(lines) {
			for _, t := range SummarizeNote(append(append([]byte{}, l...), '\n')) {
				if t.PayloadSHA256 != "" {
					out = append(out, DisplacedStatement{Commit: string(commit), Subject: t.Subject, Displaced: t.StatementsSummary, lines: [][]byte{l}})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Commit != out[j].Commit {
			return out[i].Commit < out[j].Commit
		}
		return out[i].Displaced.PayloadSHA256 < out[j].Displaced.PayloadSHA256
	})
	return out
}
