package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify/internal/memo"
)

// Verifier checks the attestations of one repository's notes against the
// verifier's trust and policy (docs/format.md#checks-in-order). Build it with
// [NewVerifier]. Its methods check again what NewVerifier checks, so that a
// Verifier written as a literal, or with a field changed since, is judged
// alike: no repository, notes store or trust is a [*VerifierError], and trust
// or a policy read from a commit being verified is refused
// ([FromVerifiedError]) unless FromVerifiedUnsafe.
type Verifier struct {
	Repo  *gitref.Repo
	Notes *gitref.NotesStore
	Trust *trust.Trust
	// At is the verifier's clock for key validity windows; the zero value is
	// time.Now at each check.
	At time.Time
	// Policy is the verifier's policy; nil applies the embedded
	// default ([policy.Default]).
	Policy *policy.Policy
	// FromVerifiedUnsafe lets Branch, Objects and Explain verify a commit
	// that a trust input [trust.LoadTrust] read from git, or the policy [policy.LoadSource]
	// read from git, comes from (or, for a range, a commit of the range): by
	// default they refuse it ([FromVerifiedError]).
	FromVerifiedUnsafe bool

	memos atomic.Pointer[memo.Memos] // per-content results, made on first use (parallel.go)

	rewrites sync.Map // [2]gitref.Hash{from, to} → *rewrite.Judgement (carryhint.go)

	// tuning is how the tests run the merge gate (GateTuning).
	tuning GateTuning
}

// GateTuning is how the tests run the merge gate over a Verifier's objects;
// the zero value is how taskproof runs it.
type GateTuning struct {
	// EveryTasksFile makes the gate read and parse every tasks file at base
	// and head, as if none were unchanged: the tests' reference for the
	// gate's reading of changed files alone.
	EveryTasksFile bool
	// Window, when not 0, is how many tick commits the gate checks at a
	// time (the tests cross every window boundary with 1).
	Window int
}

// GateTuning is how the tests set v to run the merge gate.
func (v *Verifier) GateTuning() GateTuning { return v.tuning }

// VerifierOption sets an optional part of a [Verifier] in [NewVerifier].
type VerifierOption func(*Verifier)

// WithTime judges key validity windows at at instead of time.Now.
func WithTime(at time.Time) VerifierOption { return func(v *Verifier) { v.At = at } }

// WithPolicy sets the verifier's policy (default: [policy.Default]); a policy
// [policy.LoadSource] read from git carries the commit it was read from.
func WithPolicy(p *policy.Policy) VerifierOption { return func(v *Verifier) { v.Policy = p } }

// WithFromVerifiedUnsafe lets the verifier judge commits with trust or a
// policy read from them (Verifier.FromVerifiedUnsafe): whoever wrote such a
// commit chose what judges it.
func WithFromVerifiedUnsafe() VerifierOption {
	return func(v *Verifier) { v.FromVerifiedUnsafe = true }
}

// VerifierError is a [Verifier] without a part it needs: Missing is "repository",
// "notes store" or "trust". Without trust it matches [trust.ErrNoTrust].
type VerifierError struct {
	Missing string
}

// The parts a [VerifierError] names.
const (
	MissingRepo  = "repository"
	MissingNotes = "notes store"
	MissingTrust = "trust"
)

func (e *VerifierError) Error() string { return "verifier: no " + e.Missing }

// Is reports whether target is trust.ErrNoTrust for a verifier without trust.
func (e *VerifierError) Is(target error) bool {
	return e.Missing == MissingTrust && (target == trust.ErrNoTrust || target == trust.ErrTrust)
}

// NewVerifier returns a verifier of the notes in notes over repo against
// trust, with opts applied. A nil repo, notes or trust is a [*VerifierError].
// Where trust and the policy were read from is checked when a commit is
// verified, since only then is it known what is verified.
func NewVerifier(repo *gitref.Repo, notes *gitref.NotesStore, tr *trust.Trust, opts ...VerifierOption) (*Verifier, error) {
	v := &Verifier{Repo: repo, Notes: notes, Trust: tr}
	for _, o := range opts {
		o(v)
	}
	if err := v.validate(); err != nil {
		return nil, err
	}
	return v, nil
}

// validate refuses a verifier without a repository, notes store or trust.
func (v *Verifier) validate() error {
	switch {
	case v.Repo == nil:
		return &VerifierError{Missing: MissingRepo}
	case v.Notes == nil:
		return &VerifierError{Missing: MissingNotes}
	case v.Trust == nil:
		return &VerifierError{Missing: MissingTrust}
	}
	return nil
}

// Object kinds, ObjectResult.Kind (docs/format.md#checks-in-order): what the
// judged object is. A box change's kind is tick.Kind, another concept.
const (
	ObjectTick     = "tick"     // a commit ticking the task, with verified/regression_only
	ObjectDecision = "decision" // a commit ticking the task, with an attested decision
	ObjectSkip     = "skip"     // a skip record commit (docs/format.md#storage)
	ObjectBug      = "bug"      // a bug fix attested as <unit>/bug:<slug> (docs/format.md#bug-tasks)
)

// ObjectResult is the verdict on one task's attestation on one object (docs/format.md#checks-in-order):
// Outcome is the most severe of Reasons by docs/format.md#checks-in-order precedence (ok when there is
// none); Warnings are reported but decide nothing (a missing VSA). Predicate and
// View are set when the predicate could be read, for policy rules.
type ObjectResult struct {
	Object gitref.Hash `json:"object"`
	Kind   string      `json:"kind"`
	Task   string      `json:"task"`
	// Title is the task's title as the statement records it
	// (predicate task.title): what names a task whose ID is derived from it.
	Title       string         `json:"title,omitempty"`
	Verdict     string         `json:"verdict,omitempty"`
	Revision    uint32         `json:"revision,omitempty"`
	Regression  any            `json:"regression,omitempty"` // the JSON value of the reason read (docs/format.md#hash-recipes), {"reason":"unrecorded"} when a revision < 3 tick has none
	Outcome     Outcome        `json:"outcome"`
	Reasons     []Reason       `json:"reasons"`
	Warnings    []Reason       `json:"warnings,omitempty"`
	Signers     []trust.Signer `json:"signers"`
	NewerFields []string       `json:"newer_fields"`
	// Policy are the policy rules the object violates (or that failed to
	// evaluate on it), warn level included.
	Policy []policy.Result `json:"policy,omitempty"`
	// Hint says how to fix a failing object (docs/gate.md "When the gate fails");
	// "" when it passes.
	Hint string `json:"hint,omitempty"`

	// Predicate, View and Statement are the decoded task-verification
	// statement, for the policy's rules; nil when it could not be read. In
	// the results of the merge gate (Report.Objects, TickResult.Object)
	// Predicate and Statement are nil (dropped once the policy has run) and
	// View is kept.
	Predicate *predicate.Predicate `json:"-"`
	View      *predicate.View      `json:"-"`
	Statement *statement.Statement `json:"-"`
	Unit      specfmt.Unit         `json:"-"`
	TaskID    string               `json:"-"`
	// LineHash is the task-verification statement's task.line_hash as written:
	// the task line it binds. A note holds a result per subject and task line
	// (a tasks file that repeats a task ID has a tick per line under one
	// subject name: docs/format.md#choices-where-the-brief-leaves-room, "A
	// tick is a line, also when its task ID repeats"); the merge gate maps a tick to
	// the result with its subject name and line hash. In JSON: "line_hash",
	// absent when the object has no readable task-verification statement.
	LineHash string `json:"line_hash,omitempty"`
	// NoteReasons are the reasons about the note as a whole (a line that does
	// not parse, too many lines, …), charged to every task of the note and so
	// also to a tick whose own statement is among the lines not read (the
	// gate's).
	NoteReasons []Reason `json:"-"`
	// Root is the project root the statement's unit was found under ("" the
	// repository's root; docs/format.md#project-root).
	Root string `json:"-"`
	// ticked, for an object whose note names no task (objects mode), are the
	// IDs of the tasks the commit ticks against its first parent, which its
	// hint names; tickedKnown says they were looked up.
	ticked      []string
	tickedKnown bool
}

// Stale reports whether the only failed check is the spec section's hash: the
// cited requirement changed since the tick (docs/format.md#gate-rules "stale").
func (r *ObjectResult) Stale() bool {
	if len(r.Reasons) == 0 {
		return false
	}
	for _, x := range r.Reasons {
		if x.Code != CodeSectionHash {
			return false
		}
	}
	return true
}

func (r *ObjectResult) fail(o Outcome, code, field, expected, found, msg string) {
	r.Reasons = append(r.Reasons, Reason{Code: code, Field: field, Expected: expected, Found: found, Message: msg, Outcome: o})
	r.Outcome = worse(r.Outcome, o)
}

// entry is one decoded note line.
type entry struct {
	line      int
	env       *dsse.Envelope
	sigs      *trust.SignaturesResult
	statement *statement.Statement
}

func (v *Verifier) at() time.Time {
	if v.At.IsZero() {
		return time.Now()
	}
	return v.At
}

// Object verifies every task attested in commit's note (docs/format.md#checks-in-order), one result per
// task, sorted by task. A commit without a note, or whose note holds no
// task-verification statement, gives one result with Outcome missing. Errors are
// git preconditions only (gitref.ErrNotesRefAbsent, an unknown commit); every
// verdict on the note is in the results.
func (v *Verifier) Object(commit gitref.Hash) ([]ObjectResult, error) {
	if err := v.validate(); err != nil {
		return nil, err
	}
	return v.CheckObject(commit, nil, v.Notes.Note)
}

// TaskHints are tasks of an object already parsed from its tasks files (by
// the tick walk, for the merge gate), keyed by unit dir and task ID; each must be
// the one task of unit dir's tasks file at the object with that ID. checkTaskLine
// uses them instead of parsing the file again.
type TaskHints map[taskHintKey]specfmt.Task

type taskHintKey struct{ dir, id string }

// AddTick adds tick t's task line when the object check can take it as the
// task of t's ID: a tick, born-ticked task or edit of a recognized tasks file
// at its unit's tasks-file path whose ID the file does not repeat.
func (h TaskHints) AddTick(t tick.Tick) {
	if (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked || t.Kind == tick.KindEdit) && !t.Unrecognized && t.Ambiguous == "" && t.Path == t.Unit.TasksPath() {
		h[taskHintKey{t.Unit.Dir, t.TaskID}] = t.Task
	}
}

// hasTask reports whether h holds task id of a tasks file in unit dir dir:
// the walk read dir/tasks.md, a regular file, at the object and found the
// task ticked there, which is all projectRoot needs to know to return "" (a
// unit at the repository's root) without reading the object's trees again.
func (h TaskHints) hasTask(dir, id string) bool {
	_, ok := h[taskHintKey{dir, id}]
	return ok
}

// CheckObject is Object with the tasks already parsed for the object (nil:
// none), reading the note with readNote (NotesStore.Note, or a reader of the
// same notes: the merge gate indexes the notes tree once for a long range).
func (v *Verifier) CheckObject(commit gitref.Hash, hints TaskHints, readNote func(gitref.Hash) ([]byte, error)) ([]ObjectResult, error) {
	c, err := v.Repo.Commit(commit)
	if err != nil {
		return nil, err
	}
	// The checks read the first parent (policy_sha256, the tasks file's line):
	// a commit at a shallow clone's edge is a git precondition, not a mismatch.
	if err := v.Repo.Intact(commit); err != nil {
		return nil, err
	}
	note, err := readNote(commit)
	var noteErr *gitref.NoteError
	switch {
	case errors.Is(err, gitref.ErrNoNote):
		r := ObjectResult{Object: commit, Kind: ObjectTick, Outcome: Missing}
		r.Reasons = []Reason{{Code: CodeNoEvidence, Message: "no note on this commit under " + v.Notes.Ref(), Outcome: Missing}}
		return []ObjectResult{r}, nil
	case errors.As(err, &noteErr):
		r := ObjectResult{Object: commit, Kind: ObjectTick}
		r.fail(Malformed, CodeNoteMalformed, "note", "", "", noteErr.Error())
		return []ObjectResult{r}, nil
	case err != nil:
		return nil, err
	}
	rs := v.verifyNote(c, note, hints)
	checkTrailers(c, rs)
	v.pinPolicySHA256(rs)
	return rs, nil
}

// verifyNote runs the checks of docs/format.md#checks-in-order over one note's lines.
func (v *Verifier) verifyNote(c *gitref.Commit, note []byte, hints TaskHints) []ObjectResult {
	lines := noteline.Split(note)
	var noteReasons []Reason // failures of the note as a whole, charged to every task
	if len(lines) > noteline.MaxNoteLines {
		noteReasons = append(noteReasons, Reason{Code: CodeNoteMalformed, Field: "note", Expected: fmt.Sprintf("at most %d lines", noteline.MaxNoteLines), Found: fmt.Sprintf("%d lines", len(lines)), Outcome: Malformed})
		lines = nil
	}
	groups := map[string][]*entry{}
	at := v.at()
	for i, raw := range lines {
		dl := noteline.Decode(raw)
		if dl.Kind == noteline.KindBlank {
			continue
		}
		field := fmt.Sprintf("line %d", i+1)
		// 1. The line parses (limits, strict JSON); a Sigstore bundle line's
		//    signature is checked by sigstore.go (docs/format.md#signatures-dsse-v1), and a
		//    bundle it refuses is malformed.
		var sigs *trust.SignaturesResult
		var err error
		switch {
		case dl.Kind == noteline.KindMalformed:
			err = dl.Err
		case dl.Bundle != nil:
			sigs, err = trust.VerifyBundle(dl.Bundle, v.Trust, c.ID)
		}
		env := dl.Envelope
		if err != nil {
			noteReasons = append(noteReasons, Reason{Code: CodeLineMalformed, Field: field, Message: err.Error(), Outcome: Malformed})
			continue
		}
		// 2. payloadType.
		if err := env.CheckPayloadType(); err != nil {
			noteReasons = append(noteReasons, Reason{Code: CodePayloadType, Field: field + ": payloadType", Expected: dsse.PayloadType, Found: env.PayloadType, Outcome: Malformed})
			continue
		}
		// 3. Every signature against trust.
		if sigs == nil {
			sigs, err = trust.VerifySignatures(env, v.Trust, at)
		}
		if err != nil {
			noteReasons = append(noteReasons, Reason{Code: CodeSignature, Field: field, Message: err.Error(), Outcome: Malformed})
			continue
		}
		// 4. Statement _type (v1 only) and shape.
		st, err := statement.Decode(env.Payload)
		if err != nil {
			noteReasons = append(noteReasons, Reason{Code: CodeStatement, Field: field, Message: err.Error(), Outcome: Malformed})
			continue
		}
		// A task-verification predicate of another version (v1) is no
		// evidence a v0 reader can read: malformed, not another tool's line.
		if predicate.OtherRevision(st.PredicateType) {
			noteReasons = append(noteReasons, Reason{Code: CodePredicate, Field: field + ": predicateType", Expected: predicate.PredicateType, Found: st.PredicateType, Message: "the predicate is not v0", Outcome: Malformed})
			continue
		}
		name := st.Subjects[0].Name
		groups[name] = append(groups[name], &entry{line: i + 1, env: env, sigs: sigs, statement: st})
	}

	var results []ObjectResult
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		// Subjects without a task-verification statement (another tool's
		// statements, test-result/VSA lines alone) are not task attestations.
		parts := byTaskLine(groups[name])
		for _, part := range parts {
			r := ObjectResult{Object: c.ID, Task: name, Outcome: OK, NoteReasons: noteReasons}
			for _, nr := range noteReasons {
				r.fail(nr.Outcome, nr.Code, nr.Field, nr.Expected, nr.Found, nr.Message)
			}
			tv := part.tv
			if len(tv) > 1 {
				r.fail(Malformed, CodeDuplicate, fmt.Sprintf("lines %d and %d", tv[0].line, tv[1].line), "one task-verification statement", fmt.Sprintf("%d", len(tv)), "")
			}
			v.checkTask(c, &r, tv[0], part.group, hints, v.projectLines(c, tv[0], part))
			results = append(results, r)
		}
	}
	if len(results) == 0 {
		// missing stands alone (docs/format.md#checks-in-order): a note whose lines could not be
		// read is malformed, with those lines' reasons only.
		r := ObjectResult{Object: c.ID, Kind: ObjectTick, Outcome: OK}
		for _, nr := range noteReasons {
			r.fail(nr.Outcome, nr.Code, nr.Field, nr.Expected, nr.Found, nr.Message)
		}
		if len(noteReasons) == 0 {
			r.Outcome = Missing
			r.Reasons = []Reason{{Code: CodeNoEvidence, Message: "the note holds no task-verification statement", Outcome: Missing}}
		}
		results = append(results, r)
	}
	return results
}

// taskPart is the statements of one subject about one task line: tv its
// task-verification statements (one, unless the note repeats it), group every
// statement of the tick; lines is the number of parts of the subject about
// lines of the same unit directory.
type taskPart struct {
	tv, group []*entry
	lines     int
	// lineHashes are the task lines (task.line_hash) of the parts of the
	// subject with this part's unit directory, when lines > 1.
	lineHashes []string
}

// byTaskLine splits one subject's statements (g, in note order) by the unit
// and task line they are about (statement.Keys): two units can share a
// subject name (docs/format.md#statements-belong-to-a-unit), and a tasks file
// that repeats a task ID has a tick per line under one subject name
// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line,
// also when its task ID repeats"), each with its own statements. When the subject's
// task-verification statements are about one key (the usual case), the one
// part holds every statement of the subject; nil when it has no
// task-verification statement. Otherwise each key's part holds its own
// statements and those the pairing gives no key (their signatures count for
// every line); those come first, so that the last VSA of a part (checkVSA's)
// is the line's own when it has one.
func byTaskLine(g []*entry) []taskPart {
	var tv []*entry
	for _, e := range g {
		if e.statement.PredicateType == predicate.PredicateType {
			tv = append(tv, e)
		}
	}
	if len(tv) < 2 {
		if len(tv) == 0 {
			return nil
		}
		return []taskPart{{tv: tv, group: g, lines: 1}} // the usual case: nothing to pair
	}
	var owned []*entry
	var stmts []*statement.Statement
	var payloads [][]byte
	for _, e := range g {
		if statement.Owned(e.statement.PredicateType) {
			owned = append(owned, e)
			stmts, payloads = append(stmts, e.statement), append(payloads, e.env.Payload)
		}
	}
	keys := statement.Keys(stmts, payloads)
	var order []statement.TaskKey // the keys, in the order of their first statement
	tvs := map[statement.TaskKey][]*entry{}
	perDir := map[string]int{}
	for i, e := range owned {
		if e.statement.PredicateType != predicate.PredicateType {
			continue
		}
		if tvs[keys[i]] == nil {
			order = append(order, keys[i])
			perDir[keys[i].Dir]++
		}
		tvs[keys[i]] = append(tvs[keys[i]], e)
	}
	if len(order) == 1 {
		return []taskPart{{tv: tv, group: g, lines: 1}}
	}
	zero := statement.TaskKey{}
	parts := make([]taskPart, 0, len(order))
	for _, k := range order {
		p := taskPart{tv: tvs[k], lines: perDir[k.Dir]}
		for _, o := range order {
			if o.Dir == k.Dir && p.lines > 1 {
				p.lineHashes = append(p.lineHashes, o.LineHash)
			}
		}
		for i, e := range owned {
			if k != zero && keys[i] == zero && e.statement.PredicateType != predicate.PredicateType {
				p.group = append(p.group, e)
			}
		}
		for i, e := range owned {
			if keys[i] == k {
				p.group = append(p.group, e)
			}
		}
		parts = append(parts, p)
	}
	return parts
}

// creditSignatures charges r with the failed signatures of every statement of
// the task (the tick's test-result and VSA statements are part of its
// evidence) and credits the trusted signers of its task-verification
// statement tv, each key once.
func creditSignatures(r *ObjectResult, tv *entry, group []*entry) {
	signers := map[string]bool{}
	for _, e := range group {
		if !statement.Owned(e.statement.PredicateType) {
			continue
		}
		field := fmt.Sprintf("line %d", e.line)
		switch e.sigs.Status {
		case Unsigned:
			r.fail(Unsigned, CodeUnsigned, field, "a signature", "none", "")
		case OK:
		default:
			for _, s := range e.sigs.Signatures {
				if s.Status == OK {
					continue
				}
				o := s.Status
				code := CodeSignature
				if o == UntrustedSigner {
					code = CodeUntrusted
				}
				r.fail(o, code, fmt.Sprintf("%s: signatures[%d]", field, s.Index), "", "", s.Reason)
			}
		}
		if e == tv {
			for _, s := range e.sigs.Signers {
				if !signers[string(s.Kind)+s.KeyID] {
					signers[string(s.Kind)+s.KeyID] = true
					r.Signers = append(r.Signers, s)
				}
			}
		}
	}
	if r.Signers == nil {
		r.Signers = []trust.Signer{}
	}
}

// readPredicate decodes st's predicate against its schema and records it on r
// with what the report shows of it (verdict, revision, newer fields, the
// regression reason, unit, task ID, the object kind its verdict makes); a
// verdict outside the four is malformed. ok is false, r charged, when the
// predicate does not decode.
func readPredicate(r *ObjectResult, st *statement.Statement) (p *predicate.Predicate, view *predicate.View, ok bool) {
	p, err := predicate.FromValue(st.Predicate)
	if err != nil {
		r.fail(Malformed, CodePredicate, "predicate", "", "", err.Error())
		return nil, nil, false
	}
	v := p.Read()
	view = &v
	r.Predicate, r.View, r.Statement = p, view, st
	r.Verdict, r.Revision, r.NewerFields = string(p.Verdict), view.Revision, view.NewerFields
	if r.NewerFields == nil {
		r.NewerFields = []string{}
	}
	if view.Regression != nil {
		r.Regression = regressionValue(p, view)
	}
	r.Unit = specfmt.Unit{Format: specfmt.Format(p.Unit.Format), Feature: p.Unit.Feature, Dir: p.Unit.Dir}
	r.TaskID, r.Title = p.Task.ID, p.Task.Title
	// The schema types verdict as any string: only the four verdicts, spelled
	// exactly, say what a statement claims (docs/format.md#verdicts).
	if !p.Verdict.Known() {
		r.fail(Malformed, CodeVerdict, "predicate.verdict", "verified, regression_only, attested or skipped", strconv.Quote(string(p.Verdict)), "not a verdict")
	}
	switch p.Verdict {
	case predicate.Skipped:
		r.Kind = ObjectSkip
	case predicate.Attested:
		r.Kind = ObjectDecision
	default:
		r.Kind = ObjectTick
	}
	return p, view, true
}

// checkTask runs, for one task's statements, the checks of
// docs/format.md#checks-in-order from the signatures (credited) and from the
// Statement's _type onwards: tv is its task-verification statement, group every statement
// of the tick (byTaskLine); lines is the number of task lines the note's
// statements for the subject are about.
func (v *Verifier) checkTask(c *gitref.Commit, r *ObjectResult, tv *entry, group []*entry, hints TaskHints, lines int) {
	// 3. The signatures' verdicts (checked per line in verifyNote).
	creditSignatures(r, tv, group)
	st := tv.statement
	r.LineHash = statement.TaskLineHash(st)
	// 5. Exactly one subject; its gitCommit is the object.
	if len(st.Subjects) != 1 {
		r.fail(Mismatch, CodeSubjectCount, "subject", "1", fmt.Sprintf("%d", len(st.Subjects)), "")
	}
	got := st.Subjects[0].Digest["gitCommit"]
	if got != string(c.ID) {
		r.fail(Mismatch, CodeSubjectCommit, "subject[0].digest.gitCommit", string(c.ID), got, v.subjectCommitMessage(got, c.ID))
	}
	// sigstore-go's subject check of each bundle line, beside taskproof's.
	for _, e := range group {
		if e.sigs.SubjectRefusal() != "" && (e != tv || got == string(c.ID)) {
			r.fail(Mismatch, CodeSubjectCommit, fmt.Sprintf("line %d: subject", e.line), string(c.ID), "", e.sigs.SubjectRefusal())
		}
	}
	// The predicate (schema, revision-aware view).
	p, view, ok := readPredicate(r, st)
	if !ok {
		return
	}
	bug := isBugTask(p)
	if bug {
		r.Kind = ObjectBug
	}
	if want := statement.SubjectName(p.Unit.Feature, p.Task.ID); st.Subjects[0].Name != want {
		r.fail(Mismatch, CodeSubjectName, "subject[0].name", want, st.Subjects[0].Name, "")
	}
	if view.RegressionMissing {
		r.fail(Malformed, CodeRegressionReason, "predicate.regression", "a reason (revision 3)", "none", "")
	}
	// 6. tree.
	if p.Tree != string(c.Tree) {
		r.fail(Mismatch, CodeTree, "predicate.tree", string(c.Tree), p.Tree, "")
	}
	// The unit's project root: unit.dir is relative to it, and so is the
	// speccoder.toml policy_sha256 is recomputed from.
	if hints.hasTask(p.Unit.Dir, p.Task.ID) {
		r.Root = "" // the walk read Unit.Dir/tasks.md at the object: projectRoot's first step
	} else {
		r.Root = v.projectRoot(c.ID, predicateUnit(p).TasksPath(), v.hasTaskLine(c.ID, p, p.Task.LineHash))
	}
	// 7. task.line_hash: the task line read as open in the object's tasks file.
	//    A bug task is no line of a tasks file: its subject, tree, signature
	//    and policy_sha256 are what can be checked (docs/format.md#bug-tasks).
	if !bug {
		v.checkTaskLine(c, r, p, hints, lines)
	}
	// 9. policy_sha256 from the first parent's speccoder.toml.
	v.checkPolicy(c, r, p, writtenByTaskproof(tv, group))
	// 10. The VSA, when present and written by taskproof, names every other statement.
	if p.Verdict == predicate.Verified || p.Verdict == predicate.RegressionOnly {
		checkVSA(r, tv, group)
	}
}

// checkTaskLine runs the task.line_hash and spec.section_hash checks of
// docs/format.md#checks-in-order; lines is checkTask's.
func (v *Verifier) checkTaskLine(c *gitref.Commit, r *ObjectResult, p *predicate.Predicate, hints TaskHints, lines int) {
	unit, ok := v.unitFromPredicate(p)
	if !ok {
		r.fail(Mismatch, CodeTaskMissing, "predicate.unit", "a unit of a known format", fmt.Sprintf("%s %s", p.Unit.Format, p.Unit.Dir), "")
		return
	}
	path := specfmt.ProjectPath(r.Root, unit.TasksPath())
	t, hinted := hints[taskHintKey{specfmt.ProjectPath(r.Root, unit.Dir), p.Task.ID}]
	var f *specfmt.TasksFile
	var err error
	if !hinted {
		var b []byte
		b, err = v.Repo.File(c.ID, path)
		if err != nil {
			r.fail(Mismatch, CodeTaskMissing, "predicate.unit.dir", path, "", fmt.Sprintf("tasks file not readable at the object: %v", err))
			return
		}
		// Parsed leniently: a repeated task ID makes only that ID ambiguous
		// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a
		// line, also when its task ID repeats"); every other task of the file
		// is checked normally.
		var perr error
		if f, perr = specfmt.ParseTasks(unit, b, specfmt.AllowDuplicateIDs()); perr != nil {
			r.fail(Mismatch, CodeTaskMissing, "predicate.task.id", p.Task.ID, "", fmt.Sprintf("%s: %v", path, perr))
			return
		}
		t, err = f.Lookup(p.Task.ID)
	}
	switch {
	case errors.Is(err, specfmt.ErrDuplicateTask):
		// A repeated ID: a tick is a line, and the task is the one line with
		// that ID that reads as open as the statement's line_hash says
		// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a
		// line, also when its task ID repeats").
		t, err = f.LookupLine(p.Task.ID, p.Task.LineHash)
		switch {
		case errors.Is(err, specfmt.ErrTaskNotFound):
			// As for a unique ID whose line differs.
			var at []string
			for _, x := range f.Tasks {
				if x.ID == p.Task.ID {
					at = append(at, strconv.Itoa(x.LineNo))
				}
			}
			r.fail(Mismatch, CodeLineHash, "predicate.task.line_hash", "the line_hash of a line of task "+p.Task.ID, p.Task.LineHash,
				fmt.Sprintf("%s: task %s is on lines %s; none reads so", path, p.Task.ID, strings.Join(at, ", ")))
			return
		case err != nil:
			// Two lines read the same: no attestation can say which of them
			// it is about.
			r.fail(Malformed, CodeDuplicateTaskID, "predicate.task.id", p.Task.ID, "", fmt.Sprintf("%s: %v", path, err))
			return
		}
	case err != nil:
		r.fail(Mismatch, CodeTaskMissing, "predicate.task.id", p.Task.ID, "", path+" has no such task")
		return
	case lines > 1:
		// The note holds statements of several task lines for an ID that
		// names one line here: at most one of them can be about it.
		r.fail(Malformed, CodeDuplicate, "predicate.task.line_hash", "one task line's statements", fmt.Sprintf("statements of %d task lines", lines), fmt.Sprintf("%s names task %s once (line %d)", path, p.Task.ID, t.LineNo))
	}
	if got := predicate.LineHash(t.OpenLine()); got != p.Task.LineHash {
		r.fail(Mismatch, CodeLineHash, "predicate.task.line_hash", got, p.Task.LineHash, fmt.Sprintf("%s:%d", path, t.LineNo))
	}
	// 8. spec.section_hash.
	fsys, err := v.Repo.FS(c.ID)
	if err == nil {
		fsys, err = subFS(fsys, r.Root)
	}
	if err != nil {
		r.fail(Mismatch, CodeSectionHash, "predicate.spec", "", "", err.Error())
		return
	}
	sec, err := specfmt.Section(fsys, unit, t)
	switch {
	case err != nil:
		r.fail(Mismatch, CodeSectionHash, "predicate.spec", "", "", err.Error())
	case sec == nil:
		if s, ok := p.Spec.Get(); ok {
			r.fail(Mismatch, CodeSectionHash, "predicate.spec", "null", s.SectionHash, "the task cites no spec section at the object")
		}
	default:
		want := predicate.SectionHash(sec.Text)
		s, ok := p.Spec.Get()
		switch {
		case !ok && decisionWithoutSpec(p):
			r.Warnings = append(r.Warnings, Reason{Code: CodeSpecAbsent, Field: "predicate.spec", Expected: want, Message: "a " + string(p.Verdict) + " decision without spec: the task cites " + sec.Name + " (docs/format.md#decisions-without-spec)"})
		case !ok:
			r.fail(Mismatch, CodeSectionHash, "predicate.spec.section_hash", want, "null", "the task cites "+sec.Name)
		case s.SectionHash != want:
			r.fail(Mismatch, CodeSectionHash, "predicate.spec.section_hash", want, s.SectionHash, "section "+sec.Name)
		}
	}
}

// checkPolicy recomputes policy_sha256 (docs/format.md#policy_sha256). ours
// tells whether taskproof wrote the statement: another writer's value that
// differs cannot be decided and is a warning, unless the verifier's policy
// requires the recomputed value (docs/format.md#policy_sha256-of-other-writers).
func (v *Verifier) checkPolicy(c *gitref.Commit, r *ObjectResult, p *predicate.Predicate, ours bool) {
	// The file is read as attest.Tick reads it: through the parent's tree as an
	// fs.FS, absent (fs.ErrNotExist) meaning no file.
	var toml []byte
	if parent := c.FirstParent(); parent != "" {
		fsys, err := v.Repo.FS(parent)
		if err != nil {
			r.fail(Mismatch, CodePolicySHA256, "predicate.policy_sha256", "", p.PolicySHA256, err.Error())
			return
		}
		b, err := fs.ReadFile(fsys, specfmt.ProjectPath(r.Root, specfmt.ProjectConfig))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			r.fail(Mismatch, CodePolicySHA256, "predicate.policy_sha256", "", p.PolicySHA256, "speccoder.toml at the first parent: "+err.Error())
			return
		default:
			toml = b
		}
	}
	want, err := v.memo().PolicySHA256(toml)
	if err != nil {
		r.fail(Mismatch, CodePolicySHA256, "predicate.policy_sha256", "", p.PolicySHA256, "speccoder.toml at the first parent: "+err.Error())
		return
	}
	switch {
	case want == p.PolicySHA256:
	case ours || v.PolicyOrDefault().RequireRecomputedPolicySHA256():
		r.fail(Mismatch, CodePolicySHA256, "predicate.policy_sha256", want, p.PolicySHA256, "")
	default:
		r.Warnings = append(r.Warnings, Reason{Code: CodePolicySHA256Unverified, Field: "predicate.policy_sha256", Expected: want, Found: p.PolicySHA256,
			Message: "written by another tool, whose recipe includes its own version: the judge configuration cannot be recomputed (docs/format.md#policy_sha256-of-other-writers)"})
	}
}

// checkVSA checks a taskproof-written VSA names exactly the task's other
// statements; a missing VSA is a warning (speccoder's VSA recipe is not public).
func checkVSA(r *ObjectResult, tv *entry, group []*entry) {
	var vsa *entry
	want := map[string]string{} // sha256 → predicateType of the other statements
	for _, e := range group {
		switch e.statement.PredicateType {
		case statement.VSAType:
			vsa = e
		case predicate.PredicateType, statement.TestResultType:
			want[statement.SHA256Hex(e.env.Payload)] = e.statement.PredicateType
		}
	}
	if vsa == nil {
		r.Warnings = append(r.Warnings, Reason{Code: CodeVSAMissing, Message: "no verification summary for this tick"})
		return
	}
	pred, _ := vsa.statement.Predicate.(map[string]any)
	verifier, _ := pred["verifier"].(map[string]any)
	if id, _ := verifier["id"].(string); id != statement.VerifierID {
		return // another writer's VSA: its recipe is not ours to check
	}
	inputs, _ := pred["inputAttestations"].([]any)
	got := map[string]bool{}
	for _, in := range inputs {
		m, _ := in.(map[string]any)
		d, _ := m["digest"].(map[string]any)
		h, _ := d["sha256"].(string)
		got[h] = true
		if _, ok := want[h]; !ok {
			r.fail(Mismatch, CodeVSA, "inputAttestations", "", h, "the summary names a statement the note does not hold")
		}
	}
	for h, typ := range want {
		if !got[h] {
			r.fail(Mismatch, CodeVSA, "inputAttestations", h, "", "the summary does not name the "+typ+" statement")
		}
	}
}

// regressionValue is the JSON value of the regression reason the view reads
// (docs/format.md#hash-recipes): the predicate's own member as written, or {"reason":"unrecorded"}
// for a regression_only tick of revision < 3 without one.
func regressionValue(p *predicate.Predicate, view *predicate.View) any {
	if _, ok := p.Regression.Get(); ok {
		if m, err := p.Value(); err == nil {
			return m["regression"]
		}
	}
	return map[string]any{"reason": string(view.Regression.Reason)}
}

// unitFromPredicate is the predicate's unit when its tasks file
// (specfmt.Unit.TasksPath) is that unit's, or a kin format's, in the
// verifier's layouts (built-in and policy; specfmt.Layouts.Resolve).
func (v *Verifier) unitFromPredicate(p *predicate.Predicate) (specfmt.Unit, bool) {
	return v.PolicyOrDefault().Layouts().Resolve(predicateUnit(p))
}

// predicateUnit is the predicate's unit as written.
func predicateUnit(p *predicate.Predicate) specfmt.Unit {
	return specfmt.Unit{Format: specfmt.Format(p.Unit.Format), Feature: p.Unit.Feature, Dir: p.Unit.Dir}
}

// StaleAtHead recomputes the cited section at head; a different hash means the
// requirement changed since the tick. When the unit or task is no longer at head
// (an archived OpenSpec change), there is nothing newer to compare and the tick
// is not stale. When head's tasks file repeats the task's ID, the task is the
// line with that ID whose line_hash is the statement's (the tick's: o verified);
// when no line or two lines read so, the reason is duplicate_task_id
// (malformed): the task cannot be told apart at head.
func (v *Verifier) StaleAtHead(o *ObjectResult, head gitref.Hash) *Reason {
	p := o.Predicate
	if p == nil {
		return nil
	}
	unit, ok := v.unitFromPredicate(p)
	if !ok {
		return nil
	}
	f, err := v.TasksAt(head, specfmt.ProjectPath(o.Root, unit.TasksPath()), unit)
	if err != nil {
		return nil
	}
	t, err := f.Lookup(p.Task.ID)
	var de *specfmt.DuplicateTaskError
	if errors.As(err, &de) {
		// At head the file names the task's ID on several lines: the task is
		// the one that reads as the attested line (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also when its task ID repeats").
		if t, err = f.LookupLine(p.Task.ID, p.Task.LineHash); err != nil {
			// None does (the line was edited since) or two do: the task cannot
			// be told apart at head, its section cannot be recomputed, and the
			// tick is not known to be current.
			errors.As(err, &de) // two lines read the same: name them
			return &Reason{Code: CodeDuplicateTaskID, Field: unit.TasksPath(), Expected: "one task line", Found: fmt.Sprintf("lines %d and %d", de.FirstLine, de.SecondLine), Message: "at head: " + de.Error(), Outcome: Malformed}
		}
	}
	if err != nil {
		return nil
	}
	fsys, err := v.Repo.FS(head)
	if err == nil {
		fsys, err = subFS(fsys, o.Root)
	}
	if err != nil {
		return nil
	}
	sec, err := specfmt.Section(fsys, unit, t)
	if err != nil {
		return &Reason{Code: CodeSectionHash, Field: "predicate.spec", Message: "at head: " + err.Error(), Outcome: Mismatch}
	}
	old, had := p.Spec.Get()
	switch {
	case sec == nil && !had:
		return nil
	case sec == nil:
		return &Reason{Code: CodeSectionHash, Field: "predicate.spec", Expected: "null", Found: old.SectionHash, Message: "at head the task cites no section", Outcome: Mismatch}
	case !had && decisionWithoutSpec(p):
		return nil // reported at the object (spec_absent)
	case !had:
		return &Reason{Code: CodeSectionHash, Field: "predicate.spec", Expected: predicate.SectionHash(sec.Text), Found: "null", Message: "at head the task cites " + sec.Name, Outcome: Mismatch}
	}
	if now := predicate.SectionHash(sec.Text); now != old.SectionHash {
		return &Reason{Code: CodeSectionHash, Field: "predicate.spec.section_hash", Expected: now, Found: old.SectionHash, Message: "section " + sec.Name + " changed since the tick", Outcome: Mismatch}
	}
	return nil
}
