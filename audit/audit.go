// Package audit explains why ticks are regression_only, across a commit range
// or a whole repository: it reads every task-verification statement of the
// notes ref (docs/format.md#storage, docs/format.md#statements,
// docs/format.md#hash-recipes), revision-aware (a regression_only tick without
// a recorded reason reads as "unrecorded"), and aggregates them into a Report:
// counts per verdict, regression reasons per unit, one row per tick with its
// reason details, a trend per ISO week, and the ticks that carry no evidence.
//
// Signatures are shown, never required: without a verifier's Trust every
// statement is read and its signature status is "not_checked" (or "unsigned"
// when its envelope carries no signature); with one, each statement carries the
// docs/format.md#verification-rules outcome of verify.Verifier.Object for its task.
//
// The renderers (WriteText, WriteJSON, WriteCSV, WriteMarkdown, WriteHTML) and the
// soft gate (Gate) work on a Report and do no git I/O.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// SchemaVersion is the schema_version of the JSON report (docs/audit.md).
const SchemaVersion = 1

// Modes of a Report.
const (
	ModeAll   = "all"   // every note of the notes ref, and the ticks of all of HEAD's history
	ModeRange = "range" // the ticks of a commit range and their evidence
)

// Signature statuses a Row carries besides the
// docs/format.md#verification-rules outcomes (ok, unsigned, missing,
// bad_signature, untrusted_signer, mismatch, malformed), which are used when a
// Trust is given.
const (
	SigNotChecked = "not_checked" // no trust given: the signatures were not checked
	SigUnsigned   = "unsigned"    // the envelope carries no signature (known without trust)
)

// Reasons without evidence (Unevidenced.Why).
const (
	WhyNoNote      = "no_note"      // the tick commit has no note
	WhyNoStatement = "no_statement" // its note holds no task-verification statement for the task
	WhyUnreadable  = "unreadable"   // a statement names the task but its predicate cannot be read
	// WhyBornTicked: the task is ticked in a tasks file new in its commit
	// (tick.KindBornTicked) and has no statement: the gate fails it as
	// born_ticked unless the verifier's policy allows its path, which the
	// audit does not read.
	WhyBornTicked = "born_ticked"
)

// allReasons lists the regression reasons in the order reports show them: the nine
// reasons of revision 3 (schema $defs/RegressionReason), then "unrecorded"
// (read side only, docs/format.md#hash-recipes).
var allReasons = []predicate.Reason{
	predicate.ReasonNoStory, predicate.ReasonNoScenarios, predicate.ReasonAcceptanceOff,
	predicate.ReasonAuthorWroteNone, predicate.ReasonAuthorFailed, predicate.ReasonAlreadyPassing,
	predicate.ReasonNotRed, predicate.ReasonTestsNotCollected, predicate.ReasonPlanningWork,
	predicate.ReasonUnrecorded,
}

// allVerdicts lists the verdicts in the order reports show them (docs/format.md#verdicts).
var allVerdicts = []predicate.Verdict{predicate.Verified, predicate.RegressionOnly, predicate.Attested, predicate.Skipped}

// ErrOptions is matched by the errors of ParseSince, ParseReasons and Options
// that say the caller's input is unusable (the CLI's exit 2).
var ErrOptions = errors.New("invalid audit options")

// Options choose what Run reads.
type Options struct {
	// All reads every note of the notes ref (NotesStore.All) and the ticks of all
	// of Head's history; otherwise only the ticks of Base..Head and their notes.
	All bool
	// Base and Head bound the range (Base "": all of Head's history). With All,
	// Head is the commit whose history gives the ticks without evidence ("":
	// none are looked for).
	Base, Head gitref.Hash
	// Unit keeps only units whose dir or feature matches this path.Match glob
	// ("" keeps all).
	Unit string
	// Since keeps only statements whose predicate time is at or after it, and
	// ticks without evidence whose commit was committed at or after it (zero:
	// no bound).
	Since time.Time
	// Trust, when not nil, checks every statement's object with verify
	// (docs/format.md#verification-rules) and reports its outcome and credited
	// signers; nil reports the signature status as not_checked.
	Trust *trust.Trust
	// At is the verifier's clock for key validity windows (zero: now).
	At time.Time
}

// Report is the audit's result. Its JSON form (WriteJSON) is the documented
// schema, schema_version 1 (docs/audit.md).
type Report struct {
	SchemaVersion int         `json:"schema_version"`
	Mode          string      `json:"mode"`
	NotesRef      string      `json:"notes_ref"`
	Base          gitref.Hash `json:"base,omitempty"`
	Head          gitref.Hash `json:"head,omitempty"`
	Filters       Filters     `json:"filters"`
	// Signatures is "checked" when a Trust was given, else "not_checked".
	Signatures string `json:"signatures"`
	Totals     Totals `json:"totals"`
	// Verdicts counts the statements by verdict; the four verdicts of docs/format.md#verdicts
	// are always present, unknown verdicts are counted under their own name.
	Verdicts map[string]int `json:"verdicts"`
	// Regression counts regression_only statements per reason and per unit.
	Regression Regression `json:"regression"`
	// Weeks is the trend per ISO week of the tick commit's date (its
	// committer date: when the tick landed where it is), oldest first.
	Weeks []Week `json:"weeks"`
	// Ticks has one row per task-verification statement, sorted by time, commit
	// and task.
	Ticks []Row `json:"ticks"`
	// WithoutEvidence lists the ticks of the walked history that carry no
	// readable task-verification statement.
	WithoutEvidence []Unevidenced `json:"without_evidence"`
	// Problems are note lines that could not be read (malformed envelopes,
	// statements, predicates), and statements that disagree with their note.
	Problems []Problem `json:"problems"`
	// Gate is the soft gate's verdict, when one was asked for (SetGate).
	Gate *GateResult `json:"gate,omitempty"`
}

// SetGate judges the report with Gate and keeps the result in rep.Gate, so that
// every format shows it.
func (rep *Report) SetGate(opts GateOptions) GateResult {
	g := Gate(rep, opts)
	rep.Gate = &g
	return g
}

// Filters echo Options.Unit and Options.Since.
type Filters struct {
	Unit  string `json:"unit,omitempty"`
	Since string `json:"since,omitempty"`
}

// Totals are the report's totals.
type Totals struct {
	// Ticks is the number of ticks of the walked history in scope (the ticks
	// and born-ticked tasks `taskproof ticks` lists for the same range, after
	// the unit and since filters): what the gate asks evidence for.
	Ticks int `json:"ticks"`
	// Evidenced is how many of them carry a task-verification statement.
	Evidenced int `json:"evidenced"`
	// WithoutEvidence is Ticks - Evidenced.
	WithoutEvidence int `json:"without_evidence"`
	// Statements is the number of task-verification statements read (rows),
	// including those on objects that are not ticks of the walked history
	// (skip records, other branches) — with --all.
	Statements int `json:"statements"`
	// RegressionOnly is the number of regression_only statements.
	RegressionOnly int `json:"regression_only"`
	// RegressionShare is RegressionOnly / Statements (0 when there are none).
	RegressionShare float64 `json:"regression_share"`
}

// Regression is the regression_only breakdown.
type Regression struct {
	// ByReason counts per reason; every regression reason of revision 3 and
	// "unrecorded" is present.
	ByReason map[string]int `json:"by_reason"`
	// ByUnit has one entry per unit with at least one regression_only statement,
	// sorted by unit dir.
	ByUnit []UnitReasons `json:"by_unit"`
}

// UnitReasons is one unit's row of the reason × unit table.
type UnitReasons struct {
	Unit    specfmt.Unit   `json:"unit"`
	Total   int            `json:"total"`
	Reasons map[string]int `json:"reasons"` // only reasons with a count
}

// Week is one ISO week of the trend.
type Week struct {
	Week     string         `json:"week"` // "2026-W03"; "unknown" for a commit that cannot be read
	Total    int            `json:"total"`
	Verdicts map[string]int `json:"verdicts"`
}

// Row is one task-verification statement.
type Row struct {
	// Commit is the annotated object (the tick commit, decision commit or skip
	// record).
	Commit gitref.Hash `json:"commit"`
	// NoteLine is the statement's 1-based line in the note.
	NoteLine int `json:"note_line"`
	// Task is the subject name, "<feature>/<task id>".
	Task   string       `json:"task"`
	TaskID string       `json:"task_id"`
	Title  string       `json:"title"`
	Unit   specfmt.Unit `json:"unit"`
	// InHistory: the object is a tick of the walked history; Path and Line then
	// locate the task line in the tick commit.
	InHistory bool   `json:"in_history"`
	Path      string `json:"path,omitempty"`
	Line      int    `json:"line,omitempty"`
	Verdict   string `json:"verdict"`
	Revision  uint32 `json:"revision"`
	// Time is the predicate's time as written (what the statement claims).
	// CommitTime is the tick commit's committer date (RFC 3339, UTC; "" when
	// the commit cannot be read), and Week its ISO week ("unknown" then): the
	// trend is by when the ticks were committed, which the statements cannot
	// move.
	Time       string `json:"time"`
	CommitTime string `json:"commit_time"`
	Week       string `json:"week"`
	// Regression is set for regression_only statements only.
	Regression *Reason `json:"regression,omitempty"`
	// Decider is the decision's maker (attested, skipped).
	Decider   *Decider  `json:"decider,omitempty"`
	Signature Signature `json:"signature"`
	// NewerFields are members this version does not know (docs/format.md#hash-recipes).
	NewerFields []string `json:"newer_fields,omitempty"`
	// Problems say what is odd about this statement (another commit in its
	// subject, a duplicate statement for the task).
	Problems []string `json:"problems,omitempty"`

	time     time.Time // parsed Time; zero when unreadable
	lineHash string    // the predicate's task.line_hash: which line of a repeated task ID
	repeated bool      // another row has this row's commit and task (two lines of one ID)
}

// TaskLabel is the row's task ID as the text, Markdown and HTML reports show
// it: with its tasks file line when another row of the commit has the same
// task (two lines of one repeated task ID), "5.3 (line 49)".
func (r Row) TaskLabel() string {
	if r.repeated && r.Line > 0 {
		return fmt.Sprintf("%s (line %d)", r.TaskID, r.Line)
	}
	return r.TaskID
}

// Reason is a regression_only statement's reason with its details (schema
// $defs/RegressionReason): Story (no_scenarios), Detail (author_failed),
// RedClass (not_red), ImplementedBy (already_passing), NotCollected
// (tests_not_collected: the collection's not-collected files).
type Reason struct {
	Reason string `json:"reason"`
	// Missing: a revision ≥ 3 statement without a reason; read as unrecorded
	// and flagged (the writer broke revision 3).
	Missing  bool   `json:"missing,omitempty"`
	Story    string `json:"story,omitempty"`
	Detail   string `json:"detail,omitempty"`
	RedClass string `json:"red_class,omitempty"`
	// ImplementedBy is written for already_passing only: the tick that made the
	// tests pass, {"before_feature":true}, or null when undetermined.
	ImplementedBy *ImplementedBy `json:"-"`
	NotCollected  []NotCollected `json:"not_collected,omitempty"`
}

// ImplementedBy is which tick made already-passing tests pass.
type ImplementedBy struct {
	Task          string `json:"task,omitempty"`
	Commit        string `json:"commit,omitempty"`
	BeforeFeature bool   `json:"before_feature,omitempty"`
}

// String is "TASK@COMMIT", "before the feature", or "undetermined" for nil.
func (b *ImplementedBy) String() string {
	switch {
	case b == nil:
		return "undetermined"
	case b.BeforeFeature:
		return "before the feature"
	default:
		return b.Task + "@" + b.Commit
	}
}

// NotCollected is one test file the run did not collect (schema
// $defs/FileCollection with state not_collected).
type NotCollected struct {
	Path  string   `json:"path"`
	Why   string   `json:"why,omitempty"`
	Fixes []string `json:"fixes,omitempty"`
	Rule  string   `json:"rule,omitempty"` // the runner's rule text
}

// Decider is who decided an attested or skipped task.
type Decider struct {
	By     string `json:"by"`
	Reason string `json:"reason"`
}

// Signature is a statement's signature status.
type Signature struct {
	// Status is not_checked or unsigned without trust; with trust, the
	// docs/format.md#verification-rules outcome of the object's check for this
	// task (ok, unsigned, bad_signature, untrusted_signer, mismatch,
	// malformed).
	Status string `json:"status"`
	// Count is the number of signatures of the envelope.
	Count int `json:"count"`
	// Signers are the trusted keys credited (with trust only).
	Signers []trust.Signer `json:"signers"`
}

// Unevidenced is a tick of the walked history without a readable
// task-verification statement.
type Unevidenced struct {
	Commit gitref.Hash  `json:"commit"`
	Task   string       `json:"task"`
	TaskID string       `json:"task_id"`
	Unit   specfmt.Unit `json:"unit"`
	Path   string       `json:"path"`
	Line   int          `json:"line"`
	// Merge: the tick is a merge's change against its first parent.
	Merge bool   `json:"merge"`
	Why   string `json:"why"`
}

// Problem is a note line the audit could not use.
type Problem struct {
	Commit   gitref.Hash `json:"commit"`
	NoteLine int         `json:"note_line,omitempty"`
	Message  string      `json:"message"`
}

// Run reads the statements Options select from notes and repo and builds the
// Report. Errors are git preconditions only: the notes ref absent (wrapping
// gitref.ErrNotesRefAbsent), an unknown commit, an unreadable object; every
// problem with a note's content is in Report.Problems.
func Run(repo *gitref.Repo, notes *gitref.NotesStore, opts Options) (*Report, error) {
	if opts.Unit != "" {
		if _, err := path.Match(opts.Unit, ""); err != nil {
			return nil, fmt.Errorf("%w: unit %q: %v", ErrOptions, opts.Unit, err)
		}
	}
	if _, err := notes.Head(); err != nil {
		return nil, err
	}
	rep := newReport(notes, opts)
	// 1. The history walk, then the notes.
	rd, ticks, err := readHistory(repo, notes, opts.All, rep.Base, opts.Head)
	if err != nil {
		return nil, err
	}
	// 2. The signatures, with trust only.
	if opts.Trust != nil {
		if err := checkSignatures(repo, notes, opts, rd.rows); err != nil {
			return nil, err
		}
	}
	// 3. Ticks joined to their statements, and the ticks without one.
	if err := joinTicks(repo, rep, rd, ticks, opts); err != nil {
		return nil, err
	}
	// 4. The statements in scope, and the ticks they evidence.
	evidenced := statementsInScope(rep, rd, opts)
	if err := commitWeeks(repo, rep); err != nil {
		return nil, err
	}
	countEvidenced(rep, ticks, evidenced)
	rep.Problems = append(rep.Problems, rd.problems...)
	summarize(rep)
	return rep, nil
}

// newReport is the report's head: its mode, range, filters and whether
// signatures are checked.
func newReport(notes *gitref.NotesStore, opts Options) *Report {
	rep := &Report{SchemaVersion: SchemaVersion, Mode: ModeRange, NotesRef: notes.Ref(), Base: opts.Base, Head: opts.Head,
		Filters: Filters{Unit: opts.Unit}, Signatures: "not_checked"}
	if opts.All {
		rep.Mode = ModeAll
		rep.Base = ""
	}
	if !opts.Since.IsZero() {
		rep.Filters.Since = opts.Since.UTC().Format(time.RFC3339)
	}
	if opts.Trust != nil {
		rep.Signatures = "checked"
	}
	return rep
}

// tickRef is what the report needs of a tick of the walked history: the key
// of its statements (commit and subject name), its task line's hash (which of
// a repeated ID's lines it is) and where the line is.
type tickRef struct {
	commit   gitref.Hash
	name     string // statement.SubjectName(unit feature, task ID)
	taskID   string
	unit     specfmt.Unit
	path     string
	line     int
	lineHash string
	merge    bool
	born     bool // ticked in a tasks file new in its commit (tick.KindBornTicked)
}

// walkTicks walks base..head (head "": no walk, no ticks) and keeps, of each
// tick and born-ticked task of a recognized tasks file as tick.Stream hands
// it out, its tickRef: the gate asks evidence of both.
func walkTicks(repo *gitref.Repo, base, head gitref.Hash) ([]tickRef, error) {
	if head == "" {
		return nil, nil
	}
	var refs []tickRef
	for t, err := range tick.Stream(repo, base, head, tick.Options{}) {
		if err != nil {
			return nil, err
		}
		if t.Kind != tick.KindTick && t.Kind != tick.KindBornTicked || t.Unrecognized {
			continue
		}
		refs = append(refs, tickRef{commit: t.Commit, name: statement.SubjectName(t.Unit.Feature, t.TaskID), taskID: t.TaskID,
			unit: t.Unit, path: t.Path, line: t.Line, lineHash: t.LineHash, merge: t.Merge, born: t.Kind == tick.KindBornTicked})
	}
	return refs, nil
}

// readHistory walks the history and reads the notes to audit: every note
// (all), or those of the walk's tick commits. The walk comes first, and its
// error wins: the walk and the notes' reading each use all cores, and one
// after the other only what the walk keeps of each tick (tickRef) is held
// while the notes are read, not the walk's working set beside the rows.
func readHistory(repo *gitref.Repo, notes *gitref.NotesStore, all bool, base, head gitref.Hash) (*reader, []tickRef, error) {
	ticks, err := walkTicks(repo, base, head)
	if err != nil {
		return nil, nil, err
	}
	var rd *reader
	if all {
		rd, err = readAllNotes(repo, notes)
	} else {
		rd, err = readTickNotes(notes, ticks)
	}
	if err != nil {
		return nil, nil, err
	}
	return rd, ticks, nil
}

// readAllNotes reads every note of the notes ref (but on commits only
// speccoder's attempt refs hold), in the order the note blobs
// are stored in the packs (gitref.Repo.PackOrder): note blobs are deltas of
// one another, and in that order each one's base is still in the object
// cache. The problems are then put back in the notes' order (by commit id);
// the order of the rows does not matter, summarize sorts them by keys that
// tell every two apart.
func readAllNotes(repo *gitref.Repo, notes *gitref.NotesStore) (*reader, error) {
	entries, err := notes.All()
	if err != nil {
		return nil, err
	}
	// Commits only speccoder's attempt refs hold carry no evidence: their
	// notes are no statements to audit.
	reach, err := repo.RefReach()
	if err != nil {
		return nil, err
	}
	kept := entries[:0]
	for _, e := range entries {
		a, err := reach.Attempt(e.Commit)
		if err != nil {
			return nil, err
		}
		if a == "" {
			kept = append(kept, e)
		}
	}
	entries = kept
	order, err := notesOrder(repo, entries)
	if err != nil {
		return nil, err
	}
	rd, err := readParallel(len(entries), func(i int, rd *reader) error {
		e := entries[order[i]]
		entries[order[i]] = gitref.NoteEntry{} // read once: its paths can go
		note, err := notes.ReadEntry(e)
		if err != nil {
			var ne *gitref.NoteError
			if errors.As(err, &ne) {
				rd.problem(e.Commit, 0, ne.Error())
				return nil
			}
			return err
		}
		rd.readNote(e.Commit, note)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A note's problems are in line order; its entry is its commit's only one.
	slices.SortStableFunc(rd.problems, func(a, b Problem) int { return strings.Compare(string(a.Commit), string(b.Commit)) })
	return rd, nil
}

// notesInPackOrder: readAllNotes reads the notes in pack order (the tests
// turn it off to compare with the commit-id order of NotesStore.All).
var notesInPackOrder = true

// notesOrder is the order readAllNotes reads entries in: by the pack offset
// of each entry's first note blob.
func notesOrder(repo *gitref.Repo, entries []gitref.NoteEntry) ([]int, error) {
	if !notesInPackOrder {
		order := make([]int, len(entries))
		for i := range order {
			order[i] = i
		}
		return order, nil
	}
	blobs := make([]gitref.Hash, len(entries))
	for i, e := range entries {
		if len(e.Blobs) > 0 {
			blobs[i] = e.Blobs[0]
		}
	}
	return repo.PackOrder(blobs)
}

// readTickNotes reads the notes of the ticks' commits, each once.
func readTickNotes(notes *gitref.NotesStore, ticks []tickRef) (*reader, error) {
	var commits []gitref.Hash
	seen := map[gitref.Hash]bool{}
	for _, t := range ticks {
		if !seen[t.commit] {
			seen[t.commit] = true
			commits = append(commits, t.commit)
		}
	}
	return readParallel(len(commits), func(i int, rd *reader) error {
		note, err := notes.Note(commits[i])
		var ne *gitref.NoteError
		switch {
		case errors.Is(err, gitref.ErrNoNote):
			return nil
		case errors.As(err, &ne):
			rd.problem(commits[i], 0, ne.Error())
			return nil
		case err != nil:
			return err
		}
		rd.readNote(commits[i], note)
		return nil
	})
}

// joinTicks joins the ticks to their statements by (commit, subject name):
// each tick's own rows are marked in history with its task line, and a tick in
// scope (Options.Unit, Options.Since by commit time) without a statement is
// listed in rep.WithoutEvidence and counted.
func joinTicks(repo *gitref.Repo, rep *Report, rd *reader, ticks []tickRef, opts Options) error {
	byKey := make(map[rowKey][]int, len(rd.rows))
	for i := range rd.rows {
		k := rowKey{rd.rows[i].Commit, rd.rows[i].Task}
		byKey[k] = append(byKey[k], i)
	}
	unreadable := make(map[rowKey]bool, len(rd.unreadable))
	for _, k := range rd.unreadable {
		unreadable[k] = true
	}
	annotated := make(map[gitref.Hash]bool, len(rd.annotated))
	for _, c := range rd.annotated {
		annotated[c] = true
	}
	before := committedBefore(repo, opts.Since)
	for _, t := range ticks {
		k := rowKey{t.commit, t.name}
		idx := byKey[k]
		for _, i := range ownRows(rd.rows, idx, t.lineHash) {
			r := &rd.rows[i]
			if !r.InHistory {
				r.InHistory, r.Path, r.Line = true, t.path, t.line
			}
		}
		if !matchUnit(opts.Unit, t.unit) || len(idx) > 0 {
			// A tick with a statement is counted with its statement's filters
			// (statementsInScope).
			continue
		}
		if old, err := before(t.commit); err != nil {
			return err
		} else if old {
			continue
		}
		why := WhyNoStatement
		switch {
		case t.born:
			why = WhyBornTicked
		case unreadable[k]:
			why = WhyUnreadable
		case !annotated[t.commit]:
			why = WhyNoNote
		}
		rep.WithoutEvidence = append(rep.WithoutEvidence, Unevidenced{Commit: t.commit, Task: t.name, TaskID: t.taskID,
			Unit: t.unit, Path: t.path, Line: t.line, Merge: t.merge, Why: why})
		rep.Totals.Ticks++
		rep.Totals.WithoutEvidence++
	}
	return nil
}

// ownRows are the rows of idx about the tick's task line: a commit that ticks
// two lines of one task ID has a statement per line, each located by its
// line_hash (all of idx when none matches).
func ownRows(rows []Row, idx []int, lineHash string) []int {
	if len(idx) <= 1 {
		return idx
	}
	var own []int
	for _, i := range idx {
		if rows[i].lineHash == lineHash {
			own = append(own, i)
		}
	}
	if own == nil {
		return idx
	}
	return own
}

// committedBefore reports whether a commit was committed before since (never,
// for a zero since), reading each commit once.
func committedBefore(repo *gitref.Repo, since time.Time) func(gitref.Hash) (bool, error) {
	times := map[gitref.Hash]time.Time{}
	return func(id gitref.Hash) (bool, error) {
		if since.IsZero() {
			return false, nil
		}
		ct, ok := times[id]
		if !ok {
			c, err := repo.Commit(id)
			if err != nil {
				return false, err
			}
			ct = c.Committer.When
			times[id] = ct
		}
		return ct.Before(since), nil
	}
}

// statementsInScope moves the rows that pass the unit and since filters to
// rep.Ticks (rd.rows is nil after it), marks the rows that share a commit and
// task with another (TaskLabel), and returns the keys of those about a tick
// of the walked history.
func statementsInScope(rep *Report, rd *reader, opts Options) map[rowKey]bool {
	evidenced := make(map[rowKey]bool, len(rd.rows))
	// The rows in scope are kept in rd.rows' own array: the reader's rows are
	// not read after this.
	inScope := rd.rows[:0]
	for _, r := range rd.rows {
		if !matchUnit(opts.Unit, r.Unit) {
			continue
		}
		if !opts.Since.IsZero() && (r.time.IsZero() || r.time.Before(opts.Since)) {
			continue
		}
		inScope = append(inScope, r)
		if r.InHistory {
			evidenced[rowKey{r.Commit, r.Task}] = true
		}
	}
	clear(rd.rows[len(inScope):]) // the rows out of scope can go
	rd.rows = nil
	if len(inScope) > 0 {
		rep.Ticks = inScope // stays nil when no row is in scope (summarize makes it empty)
	}
	seen := make(map[rowKey]int, len(rep.Ticks))
	for _, r := range rep.Ticks {
		seen[rowKey{r.Commit, r.Task}]++
	}
	for i := range rep.Ticks {
		rep.Ticks[i].repeated = seen[rowKey{rep.Ticks[i].Commit, rep.Ticks[i].Task}] > 1
	}
	return evidenced
}

// countEvidenced counts the evidenced ticks: each tick once, however many
// ticks share its key (a task ticked twice in one commit).
func countEvidenced(rep *Report, ticks []tickRef, evidenced map[rowKey]bool) {
	for _, t := range ticks {
		if evidenced[rowKey{t.commit, t.name}] {
			rep.Totals.Ticks++
			rep.Totals.Evidenced++
		}
	}
}

// matchUnit reports whether glob ("" matches all) matches u's dir or feature.
func matchUnit(glob string, u specfmt.Unit) bool {
	if glob == "" {
		return true
	}
	if ok, _ := path.Match(glob, u.Dir); ok {
		return true
	}
	ok, _ := path.Match(glob, u.Feature)
	return ok
}

// checkSignatures verifies each annotated object of rows with verify
// (docs/format.md#verification-rules) and records, per row, its task's outcome
// and credited signers.
func checkSignatures(repo *gitref.Repo, notes *gitref.NotesStore, opts Options, rows []Row) error {
	v, err := verify.NewVerifier(repo, notes, opts.Trust, verify.WithTime(opts.At))
	if err != nil {
		return err
	}
	results := map[gitref.Hash]map[string]*verify.ObjectResult{}
	for i := range rows {
		r := &rows[i]
		byTask, ok := results[r.Commit]
		if !ok {
			res, err := v.Object(r.Commit)
			if err != nil {
				return err
			}
			byTask = map[string]*verify.ObjectResult{}
			for j := range res {
				byTask[res[j].Task] = &res[j]
			}
			results[r.Commit] = byTask
		}
		if or, ok := byTask[r.Task]; ok {
			r.Signature.Status = string(or.Outcome)
			r.Signature.Signers = or.Signers
		} else {
			r.Signature.Status = string(verify.Malformed)
		}
		if r.Signature.Signers == nil {
			r.Signature.Signers = []trust.Signer{}
		}
	}
	return nil
}

// summarize fills the counts, the reason × unit table and the weekly trend from
// rep.Ticks, and sorts the lists.
func summarize(rep *Report) {
	sort.SliceStable(rep.Ticks, func(i, j int) bool {
		a, b := &rep.Ticks[i], &rep.Ticks[j] // rows are large: compare in place
		if !a.time.Equal(b.time) {
			return a.time.Before(b.time)
		}
		if a.Commit != b.Commit {
			return a.Commit < b.Commit
		}
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		return a.NoteLine < b.NoteLine
	})
	sort.SliceStable(rep.WithoutEvidence, func(i, j int) bool {
		a, b := rep.WithoutEvidence[i], rep.WithoutEvidence[j]
		if a.Unit.Dir != b.Unit.Dir {
			return a.Unit.Dir < b.Unit.Dir
		}
		if a.TaskID != b.TaskID {
			return a.TaskID < b.TaskID
		}
		return a.Commit < b.Commit
	})
	rep.Verdicts = map[string]int{}
	for _, v := range allVerdicts {
		rep.Verdicts[string(v)] = 0
	}
	rep.Regression.ByReason = map[string]int{}
	for _, r := range allReasons {
		rep.Regression.ByReason[string(r)] = 0
	}
	units := map[string]*UnitReasons{}
	weeks := map[string]*Week{}
	for _, r := range rep.Ticks {
		rep.Verdicts[r.Verdict]++
		w := weeks[r.Week]
		if w == nil {
			w = &Week{Week: r.Week, Verdicts: map[string]int{}}
			for _, v := range allVerdicts {
				w.Verdicts[string(v)] = 0
			}
			weeks[r.Week] = w
		}
		w.Total++
		w.Verdicts[r.Verdict]++
		if r.Regression == nil {
			continue
		}
		rep.Totals.RegressionOnly++
		rep.Regression.ByReason[r.Regression.Reason]++
		key := r.Unit.Dir + "\x00" + string(r.Unit.Format) + "\x00" + r.Unit.Feature
		u := units[key]
		if u == nil {
			u = &UnitReasons{Unit: r.Unit, Reasons: map[string]int{}}
			units[key] = u
		}
		u.Total++
		u.Reasons[r.Regression.Reason]++
	}
	rep.Totals.Statements = len(rep.Ticks)
	if rep.Totals.Statements > 0 {
		rep.Totals.RegressionShare = float64(rep.Totals.RegressionOnly) / float64(rep.Totals.Statements)
	}
	rep.Regression.ByUnit = []UnitReasons{}
	for _, u := range units {
		rep.Regression.ByUnit = append(rep.Regression.ByUnit, *u)
	}
	sort.Slice(rep.Regression.ByUnit, func(i, j int) bool {
		a, b := rep.Regression.ByUnit[i].Unit, rep.Regression.ByUnit[j].Unit
		if a.Dir != b.Dir {
			return a.Dir < b.Dir
		}
		if a.Format != b.Format {
			return a.Format < b.Format
		}
		return a.Feature < b.Feature
	})
	rep.Weeks = []Week{}
	for _, w := range weeks {
		rep.Weeks = append(rep.Weeks, *w)
	}
	// ISO week keys sort as strings; "unknown" goes last.
	sort.Slice(rep.Weeks, func(i, j int) bool {
		a, b := rep.Weeks[i].Week, rep.Weeks[j].Week
		if (a == weekUnknown) != (b == weekUnknown) {
			return b == weekUnknown
		}
		return a < b
	})
	if rep.Ticks == nil {
		rep.Ticks = []Row{}
	}
	if rep.WithoutEvidence == nil {
		rep.WithoutEvidence = []Unevidenced{}
	}
	if rep.Problems == nil {
		rep.Problems = []Problem{}
	}
}

const weekUnknown = "unknown"

// commitWeeks sets each row's CommitTime and Week from its commit's
// committer date, reading each commit once. A commit the repository lacks (a
// note about a commit gc removed, a partial clone) leaves the week unknown;
// other errors are returned.
func commitWeeks(repo *gitref.Repo, rep *Report) error {
	type when struct{ time, week string }
	seen := map[gitref.Hash]when{}
	for i := range rep.Ticks {
		r := &rep.Ticks[i]
		w, ok := seen[r.Commit]
		if !ok {
			w = when{"", weekUnknown}
			c, err := repo.Commit(r.Commit)
			switch {
			case err == nil:
				t := c.Committer.When.UTC()
				w = when{t.Format(time.RFC3339), isoWeek(t)}
			case !errors.Is(err, gitref.ErrMissingObject) && !errors.Is(err, gitref.ErrUnknownRevision):
				return err
			}
			seen[r.Commit] = w
		}
		r.CommitTime, r.Week = w.time, w.week
	}
	return nil
}

// isoWeek is t's ISO 8601 week, "2026-W03".
func isoWeek(t time.Time) string {
	y, w := t.UTC().ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// ParseSince reads --since: a date "2006-01-02" (midnight UTC) or an RFC 3339
// time. Errors match ErrOptions.
func ParseSince(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: since %q: want a date (2026-01-02) or an RFC 3339 time", ErrOptions, s)
	}
	return t, nil
}

// ParseReasons reads --fail-on: comma-separated regression reasons (revision 3's,
// "unrecorded" included), blanks around commas ignored, duplicates dropped.
// An unknown or empty reason is an error matching ErrOptions.
func ParseReasons(s string) ([]predicate.Reason, error) {
	known := map[string]bool{}
	for _, r := range allReasons {
		known[string(r)] = true
	}
	var out []predicate.Reason
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if !known[part] {
			names := make([]string, len(allReasons))
			for i, r := range allReasons {
				names[i] = string(r)
			}
			return nil, fmt.Errorf("%w: gated reasons: unknown reason %q (want %s)", ErrOptions, part, strings.Join(names, ", "))
		}
		if !seen[part] {
			seen[part] = true
			out = append(out, predicate.Reason(part))
		}
	}
	return out, nil
}

// MarshalJSON writes the reason with implemented_by present (an object, or null
// when undetermined) for already_passing only.
func (r Reason) MarshalJSON() ([]byte, error) {
	type plain Reason
	if r.Reason != string(predicate.ReasonAlreadyPassing) {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		ImplementedBy *ImplementedBy `json:"implemented_by"`
	}{plain(r), r.ImplementedBy})
}
