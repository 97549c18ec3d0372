package attest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/taskproof/taskproof/evidence"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/errkind"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
)

// Errors of [Tick] that say what the caller must fix (the CLI maps them to exit 2).
var (
	// ErrNoTick: the commit ticks no task (against its first parent).
	ErrNoTick = errors.New("commit ticks no task")
	// ErrTaskNotTicked: a requested task is not one the commit ticks.
	ErrTaskNotTicked = errors.New("task not ticked by commit")
	// ErrRequest: the request itself is incomplete or contradictory.
	ErrRequest = evidence.ErrRequest
)

// TickRequest is what `taskproof attest tick` asks for (docs/format.md#statements).
type TickRequest struct {
	// Commit is the tick commit.
	Commit gitref.Hash
	// Tasks name the tasks to attest, by ID, title or the start of the
	// title (docs/format.md#naming-a-task); empty: every task the commit
	// ticks.
	Tasks []string
	// Unit, when not "", is the unit directory (predicate unit.dir, e.g.
	// "specs/001-greeting") whose ticks are attested: two units of one commit
	// can tick tasks of one subject name (docs/format.md#statements-belong-to-a-unit).
	Unit string
	// Layouts are the unit layouts and ignored paths of the verifier's
	// policy (nil: the built-in layouts alone), so that a tick in a tasks
	// file of a policy layout can be attested.
	Layouts *specfmt.Layouts
	// Verdict is verified or regression_only; empty: the verdict follows from
	// Reports (docs/format.md#verdict-from-evidence).
	Verdict predicate.Verdict
	// Evidence is the evidence file's bytes (a JSON object, see docs/guide.md "The evidence file"), or nil.
	Evidence []byte
	// Regression is the regression reason object (see [ParseRegressionReason]);
	// nil: the evidence's own "regression" member, if any.
	Regression map[string]any
	// Red is the red run, or nil.
	Red *predicate.RedRun
	// RedOutputName names the file Red's output was read from, for
	// messages ("" when none); RedShows, when set, is that output as
	// [evidence.ReadRedOutput] read it (Red is its Run), else Red's Output is read.
	RedOutputName string
	RedShows      *evidence.RedOutput
	// Signers sign every envelope; none: the envelopes are written unsigned.
	Signers []signer.Signer
	// Time is when it is recorded (now when zero).
	Time time.Time
	// DryRun builds and signs the statements without writing the note.
	DryRun bool
	// Reports are the tick's test reports, one per phase (`--test-report
	// PHASE=FILE`): they give the trace rows, test-result statements,
	// collection, red and (Verdict empty) the verdict (docs/format.md#test-reports).
	Reports []evidence.PhaseReport
	// TestFiles are the test files the task added or changed, judged against
	// the green report; nil: defaultTestFiles; empty: none.
	TestFiles []string
	// RedKindSet says Red.Kind was chosen by the caller (checked against the
	// red report), not defaulted.
	RedKindSet bool
	// Force writes a Verdict, regression reason or red kind that contradicts
	// the reports (with a warning) instead of refusing it, and replaces
	// statements the note already holds for the ticks; without it Tick fails
	// with an *AttestedError naming them (docs/format.md#attesting-safely).
	Force bool
	// SkipAttested attests only the ticks the note holds no statements for,
	// leaving the others as they are (Written.AlreadyAttested). Without a
	// verdict or reports it attests nothing: every tick must then be
	// attested already (an ErrRequest names those that are not).
	SkipAttested bool
}

// Written is what [Tick], [Decide] or [Reissue] wrote (or would write, on a dry run) for one
// task.
type Written struct {
	Commit  gitref.Hash `json:"commit"`
	Subject string      `json:"subject"`
	Task    string      `json:"task"`
	// Title is the task's title (predicate task.title): what names a task
	// whose ID is derived from it (docs/format.md#naming-a-task).
	Title       string          `json:"title,omitempty"`
	Unit        specfmt.Unit    `json:"unit"`
	Verdict     string          `json:"verdict"`
	Statements  []WrittenStmt   `json:"statements"`
	Signed      bool            `json:"signed"`
	Signers     []WrittenSigner `json:"signers"`
	NotesCommit gitref.Hash     `json:"notes_commit,omitempty"`
	// Why is why the test reports give the verdict, when it came from them.
	Why *evidence.Why `json:"verdict_reason,omitempty"`
	// Warnings are things the caller should know (a line edited in the tick, …).
	Warnings []string `json:"warnings,omitempty"`
	// Lines are the note lines (envelopes) written.
	Lines []json.RawMessage `json:"-"`
	// AlreadyHeld: the note held these statements already, with every
	// signature this write would add (a writer run again after an
	// interruption); its lines were kept as they were.
	AlreadyHeld bool `json:"already_held,omitempty"`
	// CoSigned: the note held these statements without this write's
	// signatures, which were added to them (docs/format.md#co-signing);
	// Lines are the envelopes as the note now holds them.
	CoSigned bool `json:"cosigned,omitempty"`
	// AlreadyAttested: the note held other statements for the tick, which
	// TickRequest.SkipAttested leaves as they are; nothing was written.
	AlreadyAttested bool `json:"already_attested,omitempty"`
}

// noteWrite says how commitNote treats the statements a note already holds
// for the ticks it writes.
type noteWrite struct {
	dryRun bool
	// force replaces them.
	force bool
	// skipAttested leaves a tick whose statements differ as it is
	// (Written.AlreadyAttested) instead of refusing the write.
	skipAttested bool
}

// rawLines are note lines as Written.Lines holds them.
func rawLines(lines [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(lines))
	for i, l := range lines {
		out[i] = l
	}
	return out
}

// joinLines is lines as a note ("\n" after each).
func joinLines(lines [][]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	return b
}

// WrittenStmt names one Statement written: its predicateType and the SHA-256 of
// its canonical payload; Statement is the payload itself.
type WrittenStmt struct {
	PredicateType string          `json:"predicateType"`
	SHA256        string          `json:"sha256"`
	Statement     json.RawMessage `json:"statement"`
}

// WrittenSigner is one signature's kind and keyid.
type WrittenSigner struct {
	Kind  signer.Kind `json:"kind"`
	KeyID string      `json:"keyid"`
}

// Tick attests the tasks a commit ticks (docs/format.md#storage): for each, it computes the
// tree, line_hash and title (the tick commit's task line read as open — what the
// verifier recomputes from the object's tasks file, docs/format.md#checks-in-order — so a tick that
// also rewrites the task's text binds the new text), the cited spec section at the
// tick commit, policy_sha256 from the parent's speccoder.toml, builds the
// predicate (merging the evidence), writes the Statements of docs/format.md#statements, signs them,
// and replaces the task's owned lines in the commit's note (for a task ID its
// tasks file repeats, those of the ticked line: each ticked line is a tick of
// its own, docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also when its task ID repeats"). Errors: [ErrNoTick],
// [ErrTaskNotTicked], [ErrRequest], predicate.ErrBuild (bad evidence), gitref's
// errors, signing errors.
func Tick(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, req TickRequest) ([]Written, error) {
	if err := req.CheckVerdict(); err != nil {
		return nil, err
	}
	commit, err := repo.Commit(req.Commit)
	if err != nil {
		return nil, err
	}
	all, err := tick.OfCommit(repo, commit.ID, req.Layouts)
	if err != nil {
		return nil, err
	}
	ticks, err := chooseTicks(commit.ID, all, req)
	if err != nil {
		return nil, err
	}
	var skipped []Written
	if req.SkipAttested {
		if ticks, skipped, err = unattestedTicks(repo, notes, commit.ID, all, ticks); err != nil {
			return nil, err
		}
		if len(ticks) == 0 {
			return skipped, nil
		}
		if req.Verdict == "" && len(req.Reports) == 0 {
			var ids []string
			for _, t := range ticks {
				ids = append(ids, t.TaskID)
			}
			return nil, fmt.Errorf("%w: no verdict for the ticks of %s whose statements the note does not hold (%s): give a verdict, or the red and green test reports it follows from", ErrRequest, commit.ID, strings.Join(ids, ", "))
		}
	}
	var urls map[string]string
	er := evidence.Request{
		Verdict: req.Verdict, Evidence: req.Evidence, Regression: req.Regression, Red: req.Red, RedKindSet: req.RedKindSet,
		RedOutputName: req.RedOutputName, RedShows: req.RedShows, Reports: req.Reports, TestFiles: req.TestFiles,
		Layouts: req.Layouts, Force: req.Force,
	}
	reportWarnings, err := evidence.CheckRedOutput(er)
	if err != nil {
		return nil, err
	}
	var why *evidence.Why
	if len(req.Reports) > 0 {
		o, err := evidence.FromReports(repo, commit, ticks, sharingTicks(all, ticks), er)
		if err != nil {
			return nil, err
		}
		req.Evidence, req.Red, req.Verdict, req.Regression = o.Evidence, o.Red, o.Verdict, o.Regression
		urls, why = o.URLs, o.Why
		reportWarnings = append(reportWarnings, o.Warnings...)
	}
	evidenceJSON, err := mergeRegression(req.Evidence, req.Regression)
	if err != nil {
		return nil, err
	}
	when := req.Time
	if when.IsZero() {
		when = time.Now()
	}
	// Each tick is attested under its project's root
	// (docs/format.md#project-root): unit.dir relative to it, its
	// speccoder.toml hashed, its files read for the section.
	policies, err := projectPolicies(repo, commit.FirstParent(), ticks)
	if err != nil {
		return nil, err
	}
	nested := false
	for _, t := range all {
		nested = nested || t.Root != ""
	}
	repoFS, err := repo.FS(commit.ID)
	if err != nil {
		return nil, err
	}
	var held []byte // the note, whose statements a run again writes as they are
	if !req.Force {
		if held, err = heldNote(notes, commit.ID); err != nil {
			return nil, err
		}
	}
	var batch []pending
	for _, t := range ticks {
		task, repeated, err := tickTask(repo, t)
		if err != nil {
			if len(req.Tasks) == 0 && len(ticks) > 1 && errors.Is(err, specfmt.ErrDuplicateTask) {
				// Nothing is written; the commit's other ticks are not ambiguous.
				return nil, fmt.Errorf("%w; attest the commit's other ticks by task", err)
			}
			return nil, err
		}
		unit := t.ProjectUnit()
		p, err := tickPredicate(repoFS, t, task, predicate.Input{
			Tree: string(commit.Tree), Policy: policies[t.Root], Red: req.Red, Evidence: evidenceJSON, Verdict: req.Verdict, Time: when,
		})
		if err != nil {
			return nil, err
		}
		if _, err := adoptHeldTime(held, statement.Subject{Name: statement.SubjectName(unit.Feature, t.TaskID), GitCommit: string(commit.ID)}, p); err != nil {
			return nil, err
		}
		pd, err := prepare(ctx, commit.ID, unit, t.TaskID, p, req.Signers, urls)
		if err != nil {
			return nil, err
		}
		if len(batch) == 0 {
			pd.w.Warnings = append(pd.w.Warnings, reportWarnings...)
		}
		if why != nil && string(why.Verdict) == pd.w.Verdict {
			pd.w.Why = why
		}
		// Two projects' units may share a unit.dir and a subject name: in a
		// commit that ticks a nested project's task, a statement's note lines
		// are owned by its unit.dir and line hash, so that another project's
		// statement of another line is kept.
		if repeated || nested {
			pd.line = p.Task.LineHash
		}
		pd.w.Warnings = append(pd.w.Warnings, tickNotes(t)...)
		batch = append(batch, pd)
	}
	written, err := writeTicks(notes, commit.ID, batch, req)
	if err != nil {
		return nil, err
	}
	return append(skipped, written...), nil
}

// writeTicks writes the statements of every tick of commit in one note
// update, refusing (unless req.Force) to replace statements the note holds
// for them, and returns what it wrote.
func writeTicks(notes *gitref.NotesStore, commit gitref.Hash, batch []pending, req TickRequest) ([]Written, error) {
	// One note update for every task: the tick is written whole or not at all
	// (a note over the limits of docs/format.md#limits leaves the note as it was).
	nc, err := commitNote(notes, commit, batch, noteWrite{dryRun: req.DryRun, force: req.Force, skipAttested: req.SkipAttested})
	if err != nil {
		return nil, err
	}
	var out []Written
	for _, pd := range batch {
		pd.w.NotesCommit = nc
		out = append(out, *pd.w)
	}
	return out, nil
}

// tickPredicate builds tick t's predicate from in (tree, policy, red run,
// evidence, verdict, time) with t's project-relative unit, its task and the
// spec section the task cites, read from repoFS under t's project root.
func tickPredicate(repoFS fs.FS, t tick.Tick, task specfmt.Task, in predicate.Input) (*predicate.Predicate, error) {
	unit, fsys := t.ProjectUnit(), repoFS
	if t.Root != "" {
		var err error
		if fsys, err = fs.Sub(repoFS, t.Root); err != nil {
			return nil, err
		}
	}
	unit = specfmt.Dialect(fsys, unit)
	section, err := specfmt.Section(fsys, unit, task)
	if err != nil {
		return nil, fmt.Errorf("spec section of %s in %s: %w", t.TaskID, t.Path, err)
	}
	in.Unit, in.Task, in.Section = unit, task, section
	p, err := predicate.Build(in)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.TaskID, err)
	}
	return p, nil
}

// Check refuses a request whose parts contradict each other, or that leaves
// the statements without what they need ([ErrRequest]): Force with
// SkipAttested, a verdict [TickRequest.CheckVerdict] refuses, TestFiles
// without Reports to judge them against, regression_only with no reason (nor
// Evidence or Reports that could give one), a Regression reason with another
// verdict. What `taskproof attest tick` checks before it looks for a signing
// key; Tick itself checks the verdict alone ([TickRequest.CheckVerdict]).
func (req TickRequest) Check() error {
	if req.Force && req.SkipAttested {
		return errkind.New(ErrRequest, "--force replaces the statements the note holds, --skip-attested keeps them: give one")
	}
	if err := req.CheckVerdict(); err != nil {
		return err
	}
	if len(req.TestFiles) > 0 && len(req.Reports) == 0 {
		return errkind.New(ErrRequest, "--test-files goes with --test-report green=FILE")
	}
	if req.Verdict == predicate.RegressionOnly && req.Regression == nil && req.Evidence == nil && len(req.Reports) == 0 {
		return errkind.New(ErrRequest, "--verdict regression_only needs --regression-reason (or a `regression` member in the --evidence file)")
	}
	if req.Regression != nil && req.Verdict != predicate.RegressionOnly && req.Verdict != "" {
		return errkind.New(ErrRequest, "--regression-reason goes with --verdict regression_only")
	}
	return nil
}

// CheckVerdict refuses a request without a verdict or reports to follow it
// from, and a verdict attest tick does not write ([ErrRequest]): what a
// caller can check before it looks for a signing key. Tick checks it too.
func (req TickRequest) CheckVerdict() error {
	if req.Verdict == "" && len(req.Reports) == 0 && !req.SkipAttested {
		return fmt.Errorf("%w: no verdict: give a verdict, or the red and green test reports it follows from", ErrRequest)
	}
	if req.Verdict != "" && req.Verdict != predicate.Verified && req.Verdict != predicate.RegressionOnly {
		return fmt.Errorf("%w: verdict %q: attest tick writes verified or regression_only (use attest decide for attested and skipped)", ErrRequest, req.Verdict)
	}
	return nil
}

// sharingTicks is how many of the commit's ticks share the default test
// files of the chosen ones: its ticks of their units, which have one range
// (docs/format.md#verdict-from-evidence).
func sharingTicks(all, chosen []tick.Tick) int {
	type unitKey struct{ root, dir string }
	units := map[unitKey]bool{}
	for _, t := range chosen {
		units[unitKey{t.Root, t.Unit.Dir}] = true
	}
	n := 0
	for _, t := range all {
		if (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked) && !t.Unrecognized && units[unitKey{t.Root, t.Unit.Dir}] {
			n++
		}
	}
	return n
}

// chooseTicks picks, from all the box changes of commit, the ticks req asks
// to attest: ticks and born-ticked tasks of recognized units, of req.Unit
// when set, of req.Tasks when set (every line of each ID). Errors:
// [ErrNoTick], [ErrTaskNotTicked], [ErrRequest] for two projects' ticks a
// statement could not tell apart.
func chooseTicks(commit gitref.Hash, all []tick.Tick, req TickRequest) ([]tick.Tick, error) {
	// A task ticked in a tasks file new in the commit (born_ticked) is
	// attested like a tick: the gate asks for its evidence
	// (docs/format.md#born-ticked-tasks). A file no unit layout claims has no
	// unit to attest.
	var ticks []tick.Tick
	for _, t := range all {
		if (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked) && !t.Unrecognized {
			ticks = append(ticks, t)
		}
	}
	if len(ticks) == 0 {
		return nil, fmt.Errorf("%w: %s (no task box goes from open to ticked against its first parent; attest the commit that ticks the task)", ErrNoTick, commit)
	}
	if req.Unit != "" {
		var inUnit []tick.Tick
		var dirs []string
		for _, t := range ticks {
			if t.Unit.Dir == req.Unit {
				inUnit = append(inUnit, t)
			} else if !slices.Contains(dirs, t.Unit.Dir) {
				dirs = append(dirs, t.Unit.Dir)
			}
		}
		if len(inUnit) == 0 {
			return nil, fmt.Errorf("%w: %s ticks no task of unit %s (it ticks tasks of %s)", ErrTaskNotTicked, commit, req.Unit, strings.Join(dirs, ", "))
		}
		ticks = inUnit
	}
	// Two projects' ticks that read the same to a statement (project-relative
	// unit.dir, task ID, line_hash) cannot be told apart by one: refuse rather
	// than sign a statement the gate could credit to the other project
	// (docs/format.md#project-root-in-the-gate).
	seen := map[string]string{}
	for _, t := range all {
		if t.Kind != tick.KindTick && t.Kind != tick.KindBornTicked {
			continue
		}
		k := t.ProjectUnit().Dir + "\x00" + t.TaskID + "\x00" + t.LineHash
		if r, ok := seen[k]; ok && r != t.Root {
			for _, c := range ticks {
				if c.ProjectUnit().Dir+"\x00"+c.TaskID+"\x00"+c.LineHash == k {
					return nil, fmt.Errorf("%w: %s ticks the same task line of %s (task %s) in two projects (%q and %q); a statement names its unit only project-relative and could not tell them apart: tick them in separate commits", ErrRequest, commit, t.ProjectUnit().Dir, t.TaskID, r, t.Root)
				}
			}
		}
		seen[k] = t.Root
	}
	if len(req.Tasks) > 0 {
		// A task ID names every line the commit ticks with it (a tasks file
		// may repeat an ID: each ticked line is a tick of its own).
		byID := map[string][]tick.Tick{}
		var named []namedTask
		for _, t := range ticks {
			byID[t.TaskID] = append(byID[t.TaskID], t)
			named = append(named, namedTask{t.TaskID, t.Task.Title})
		}
		ids, err := resolveTaskNames(req.Tasks, named)
		if err != nil {
			return nil, err
		}
		var chosen []tick.Tick
		for _, id := range ids {
			ts, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("%w: %s does not tick task %s (it ticks %s)", ErrTaskNotTicked, commit, id, taskList(named))
			}
			chosen = append(chosen, ts...)
		}
		ticks = chosen
	}
	return ticks, nil
}

// projectPolicies reads each tick's project's speccoder.toml at parent (nil
// when absent), by project root.
func projectPolicies(repo *gitref.Repo, parent gitref.Hash, ticks []tick.Tick) (map[string][]byte, error) {
	policies := map[string][]byte{}
	for _, t := range ticks {
		if _, ok := policies[t.Root]; ok {
			continue
		}
		policy, err := readOptional(repo, parent, specfmt.ProjectPath(t.Root, specfmt.ProjectConfig))
		if err != nil {
			return nil, err
		}
		policies[t.Root] = policy
	}
	return policies, nil
}

// tickTask returns the tick's task as the tick commit has it: the line an
// attestation binds (docs/format.md#hash-recipes line_hash and title, read as open), which is what
// a verifier recomputes from the object's tasks file (docs/format.md#checks-in-order). repeated is
// true when the tasks file repeats the task's ID at the commit. A tick is a
// line (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a line, also when its task ID repeats"): an unambiguous tick carries its parsed task
// (tick.Tick.Task) and is not parsed again; for a tick gitref marked
// Ambiguous the commit's tasks file is read, and a repeated ID's task is the
// ticked line itself, found by its ID and line_hash (TasksFile.LookupLine) —
// refused with the *specfmt.DuplicateTaskError naming both lines
// (specfmt.ErrDuplicateTask) when another line with that ID reads the same, as
// no attestation could say which of the two it binds. (A parent that repeats
// the ID does not matter: the tick is the commit's line.)
func tickTask(repo *gitref.Repo, t tick.Tick) (task specfmt.Task, repeated bool, err error) {
	if t.Ambiguous == "" && t.Task.ID == t.TaskID {
		// gitref parsed both sides already: the ID is unique at the parent and
		// at the commit, and t.Task is the commit's task.
		return t.Task, false, nil
	}
	b, err := repo.File(t.Commit, t.Path)
	if err != nil {
		return specfmt.Task{}, false, err
	}
	// Parsed leniently: a repeated ID makes only that ID ambiguous; the file's
	// other tasks attest normally.
	f, err := specfmt.ParseTasks(t.Unit, b, specfmt.AllowDuplicateIDs())
	if err != nil {
		return specfmt.Task{}, false, fmt.Errorf("%s at %s: %w", t.Path, t.Commit, err)
	}
	task, err = f.Lookup(t.TaskID)
	switch {
	case err == nil:
		return task, false, nil
	case errors.Is(err, specfmt.ErrTaskNotFound):
		return specfmt.Task{}, false, fmt.Errorf("%s at %s: task %s not found", t.Path, t.Commit, t.TaskID)
	case !errors.Is(err, specfmt.ErrDuplicateTask):
		return specfmt.Task{}, false, fmt.Errorf("%s at %s: %w", t.Path, t.Commit, err)
	}
	task, err = f.LookupLine(t.TaskID, t.LineHash)
	if errors.Is(err, specfmt.ErrDuplicateTask) {
		return specfmt.Task{}, false, fmt.Errorf("%s at %s: the ticked line %d of task %s reads the same as another line with that ID, so no attestation can tell them apart (%w); make the lines differ", t.Path, t.Commit, t.Line, t.TaskID, err)
	}
	if err != nil {
		return specfmt.Task{}, false, fmt.Errorf("%s at %s: the ticked line %d of task %s: %w", t.Path, t.Commit, t.Line, t.TaskID, err)
	}
	return task, true, nil
}

// tickNotes are the notes [Tick] (and [Reissue]) give about a tick that is not
// the plain "[ ]" → "[x]" of one line: a tick that also rewrites the task's
// text, and a task that is new in the tick commit (tick.Tick.Born).
func tickNotes(t tick.Tick) []string {
	var notes []string
	if t.TextChanged {
		notes = append(notes, fmt.Sprintf("%s:%d: the tick also rewrites task %s's text (%q at the parent); the attestation covers the text as ticked", t.Path, t.Line, t.TaskID, t.Before))
	}
	if t.Born {
		notes = append(notes, fmt.Sprintf("%s:%d: task %s is new in %s, added already ticked (no open line at the parent); it is attested as a tick", t.Path, t.Line, t.TaskID, t.Commit))
	}
	return notes
}

// readOptional returns a file's bytes at commit, nil when no entry of that name
// exists there. An entry that is not a regular file (a directory, a symbolic
// link) is an error, not an absent file. (gitref's Repo.File errors match
// gitref.ErrNotFound, not fs.ErrNotExist, and do not tell the two apart; the
// io/fs view does.)
func readOptional(repo *gitref.Repo, commit gitref.Hash, path string) ([]byte, error) {
	if commit == "" {
		return nil, nil
	}
	fsys, err := repo.FS(commit)
	if err != nil {
		return nil, err
	}
	b, err := fs.ReadFile(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", path, commit, err)
	}
	return b, nil
}

// pending is one task's signed note lines, not yet written.
type pending struct {
	w     *Written
	lines [][]byte
	// line is the task.line_hash of a task whose ID its tasks file repeats, ""
	// otherwise: the note keeps the statements of the subject's other task
	// lines (MergeTaskNote).
	line string
	// core is the task-verification line alone, and coreStmt its statement: what
	// is written when the whole set does not fit in the note (see commitNote).
	core     [][]byte
	coreStmt []WrittenStmt
}

// write builds the statements of p for one task, signs them and writes the note;
// line is pending.line. Unless force, it refuses to replace statements the note
// holds (see commitNote).
func write(ctx context.Context, notes *gitref.NotesStore, commit gitref.Hash, unit specfmt.Unit, taskID, line string, p *predicate.Predicate, signers []signer.Signer, dryRun, force bool) (*Written, error) {
	if !force {
		held, err := heldNote(notes, commit)
		if err != nil {
			return nil, err
		}
		if _, err := adoptHeldTime(held, statement.Subject{Name: statement.SubjectName(unit.Feature, taskID), GitCommit: string(commit)}, p); err != nil {
			return nil, err
		}
	}
	pd, err := prepare(ctx, commit, unit, taskID, p, signers, nil)
	if err != nil {
		return nil, err
	}
	pd.line = line
	nc, err := commitNote(notes, commit, []pending{pd}, noteWrite{dryRun: dryRun, force: force})
	if err != nil {
		return nil, err
	}
	pd.w.NotesCommit = nc
	return pd.w, nil
}

// prepare builds the statements of p for one task (docs/format.md#statements) and signs them;
// urls name the phases' test reports (see tickStatementsWithReports).
func prepare(ctx context.Context, commit gitref.Hash, unit specfmt.Unit, taskID string, p *predicate.Predicate, signers []signer.Signer, urls map[string]string) (pending, error) {
	subject := statement.Subject{Name: statement.SubjectName(unit.Feature, taskID), GitCommit: string(commit)}
	stmts, err := tickStatementsWithReports(subject, p, urls)
	if err != nil {
		return pending{}, err
	}
	w := &Written{Commit: commit, Subject: subject.Name, Task: taskID, Title: p.Task.Title, Unit: unit, Verdict: string(p.Verdict),
		Signed: len(signers) > 0, Signers: []WrittenSigner{}}
	var lines [][]byte
	var pd pending
	for _, s := range stmts {
		line, err := signedLine(ctx, s, signers) // a DSSE envelope, or a Sigstore bundle (sigstore.go)
		if err != nil {
			return pending{}, fmt.Errorf("signing %s: %w", subject.Name, err)
		}
		lines = append(lines, line)
		w.Lines = append(w.Lines, line)
		st, err := statement.Decode(s)
		if err != nil {
			return pending{}, err
		}
		ws := WrittenStmt{PredicateType: st.PredicateType, SHA256: statement.SHA256Hex(s), Statement: s}
		w.Statements = append(w.Statements, ws)
		if st.PredicateType == predicate.PredicateType {
			pd.core, pd.coreStmt = [][]byte{line}, []WrittenStmt{ws}
		}
	}
	for _, sg := range signers {
		w.Signers = append(w.Signers, WrittenSigner{Kind: sg.Kind(), KeyID: sg.KeyID()})
	}
	pd.w, pd.lines = w, lines
	return pd, nil
}

// commitNote merges every pending task's lines into commit's note in one update
// (docs/format.md#storage) and returns the new notes commit. On a dry run it only checks that
// the merged note would stay within the limits of docs/format.md#limits and writes nothing.
//
// Unless force, it refuses with an *AttestedError to replace statements the
// note holds about commit for a pending task (docs/format.md#attesting-safely).
// The check is part of the merge, so it is made again on every note the
// update merges into: another writer that moved the notes ref first is seen
// under the ref's lock, never replaced unnamed. Unless force, a task whose
// statements the note holds already (heldAlready) is left as it is and marked
// AlreadyHeld.
//
// When the whole set of statements (docs/format.md#statements) does not fit in one note (docs/format.md#limits:
// 64 lines) — a commit that ticks many tasks at once — the tasks' task-verification
// statements are written alone, with a warning: the test-result and VSA
// statements only restate the predicate's trace and verdict, and a missing VSA is
// reported, not failed (docs/format.md#checks-in-order). When even those do not fit, nothing is written.
func commitNote(notes *gitref.NotesStore, commit gitref.Hash, batch []pending, opts noteWrite) (gitref.Hash, error) {
	dryRun, force := opts.dryRun, opts.force
	compact := false
	var todo []pending
	mergeWith := func(old []byte, core bool) ([]byte, error) {
		note := old
		for _, pd := range todo {
			lines := pd.lines
			if core {
				lines = pd.core
			}
			var err error
			if note, err = notemerge.MergeTaskNote(note, pd.w.Subject, statement.TaskKey{Dir: pd.w.Unit.Dir, LineHash: pd.line}, lines); err != nil {
				return nil, err
			}
		}
		return note, nil
	}
	merge := func(old []byte) ([]byte, error) {
		compact, todo = false, todo[:0]
		var fresh []pending // the ticks whose statements the note does not hold
		for _, pd := range batch {
			pd.w.AlreadyHeld, pd.w.CoSigned, pd.w.AlreadyAttested = false, false, false
			pd.w.Lines = rawLines(pd.lines)
			if force { // forced, the statements are written again (re-signed)
				todo = append(todo, pd)
				continue
			}
			held, run, err := heldFor(old, pd)
			if err != nil {
				return nil, err
			}
			if held != nil {
				switch state, lines := notemerge.CosignHeld(held, run); state {
				case notemerge.HeldSame:
					pd.w.AlreadyHeld = true
					continue
				case notemerge.HeldCosign:
					pd.w.CoSigned = true
					pd.lines, pd.core = lines, lines
					pd.w.Lines = rawLines(lines)
					todo = append(todo, pd)
					continue
				case notemerge.HeldIncompatible:
					return nil, &AttestedError{Commit: commit, Existing: notemerge.SummarizeNote(joinLines(held)),
						Why: "the note holds these statements signed in a Sigstore bundle, or holds a bundle of them, and a bundle carries exactly one signature: this write's signature cannot be added to it"}
				}
			}
			if opts.skipAttested {
				existing, err := replacedStatements(old, commit, []pending{pd})
				if err != nil {
					return nil, err
				}
				if len(existing) > 0 {
					pd.w.AlreadyAttested = true
					continue
				}
			}
			todo = append(todo, pd)
			fresh = append(fresh, pd)
		}
		if !force {
			existing, err := replacedStatements(old, commit, fresh)
			if err != nil {
				return nil, err
			}
			if len(existing) > 0 {
				return nil, &AttestedError{Commit: commit, Existing: existing}
			}
		}
		note, err := mergeWith(old, false)
		if errors.Is(err, notemerge.ErrNoteLimit) {
			compact = true
			note, err = mergeWith(old, true)
		}
		return note, err
	}
	defer func() {
		if !compact {
			return
		}
		warned := false // the warning is about the commit: given once, with its first task
		for _, pd := range todo {
			if len(pd.lines) == len(pd.core) {
				continue
			}
			pd.w.Lines = nil
			for _, l := range pd.core {
				pd.w.Lines = append(pd.w.Lines, l)
			}
			pd.w.Statements = pd.coreStmt
			if warned {
				continue
			}
			warned = true
			pd.w.Warnings = append(pd.w.Warnings, fmt.Sprintf("%s ticks %d task(s): their statements do not all fit in one note (docs/format.md#limits: %d lines), so only the task-verification statements were written (no test-result or VSA statements)", commit, len(batch), noteline.MaxNoteLines))
		}
	}()
	wrap := func(err error) error {
		var ae *AttestedError
		if errors.As(err, &ae) {
			return err
		}
		if errors.Is(err, notemerge.ErrNoteLimit) {
			return fmt.Errorf("writing the note of %s for %d task(s): %w even with the task-verification statements alone; nothing was written (a note holds at most %d lines: tick fewer tasks per commit)", commit, len(batch), err, noteline.MaxNoteLines)
		}
		return fmt.Errorf("writing the note of %s: %w", commit, err)
	}
	if dryRun {
		old, err := notes.Note(commit)
		if errors.Is(err, gitref.ErrNoNote) || errors.Is(err, gitref.ErrNotesRefAbsent) {
			old, err = nil, nil
		}
		if err != nil {
			return "", wrap(err)
		}
		if _, err := merge(old); err != nil {
			return "", wrap(err)
		}
		return "", nil
	}
	nc, err := notes.Update(commit, merge)
	if err != nil {
		return "", wrap(err)
	}
	return nc, nil
}

// mergeRegression returns the evidence ev with its "regression" member set to reason
// (when reason is not nil), as canonical JSON. Evidence that already has a
// different regression member is an error: the caller must choose one.
func mergeRegression(ev []byte, reason map[string]any) ([]byte, error) {
	if reason == nil {
		return ev, nil
	}
	obj, err := evidence.Object(ev)
	if err != nil {
		return nil, err
	}
	if old, ok := obj["regression"]; ok && old != nil {
		a, _ := strictjson.Canonical(old)
		b, _ := strictjson.Canonical(reason)
		if string(a) != string(b) {
			return nil, fmt.Errorf("%w: the evidence file has a regression reason %s and the request gives %s; give one", ErrRequest, a, b)
		}
	}
	obj["regression"] = reason
	return strictjson.Canonical(obj)
}

// ParseRegressionReason parses `--regression-reason R[:key=value]` into the
// regression object of the schema's RegressionReason (docs/format.md#hash-recipes): R is one of the
// reasons (no_story, no_scenarios, acceptance_off, author_wrote_none,
// author_failed, already_passing, not_red, tests_not_collected, planning_work);
// the value after "key=" is taken verbatim (it may hold commas and colons).
// Required keys: no_scenarios story=US2; author_failed detail=TEXT; not_red
// red_class=CLASS. already_passing takes an optional implemented_by=TASK@COMMIT or
// implemented_by=before_feature (absent: null, undetermined). "unrecorded" is a
// read-side reason and is refused.
func ParseRegressionReason(s string) (map[string]any, error) {
	reason, rest, hasRest := strings.Cut(s, ":")
	var key, val string
	if hasRest {
		var ok bool
		if key, val, ok = strings.Cut(rest, "="); !ok {
			return nil, fmt.Errorf("%w: regression reason %q: want REASON[:key=value]", ErrRequest, s)
		}
	}
	want := regressionReasonKeys
	k, known := want[reason]
	if !known {
		names := make([]string, 0, len(want))
		for n := range want {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%w: unknown regression reason %q (one of %s)", ErrRequest, reason, strings.Join(names, ", "))
	}
	out := map[string]any{"reason": reason}
	switch {
	case hasRest && key != k:
		if k == "" {
			return nil, fmt.Errorf("%w: regression reason %s takes no key (got %q)", ErrRequest, reason, key)
		}
		return nil, fmt.Errorf("%w: regression reason %s takes %s=…, not %q", ErrRequest, reason, k, key)
	case !hasRest && k != "" && reason != "already_passing":
		return nil, fmt.Errorf("%w: regression reason %s needs %s=… (e.g. %s:%s=…)", ErrRequest, reason, k, reason, k)
	}
	switch reason {
	case "already_passing":
		switch {
		case !hasRest:
			out["implemented_by"] = nil
		case val == "before_feature":
			out["implemented_by"] = map[string]any{"before_feature": true}
		default:
			task, commit, ok := strings.Cut(val, "@")
			if !ok || task == "" || commit == "" {
				return nil, fmt.Errorf("%w: implemented_by=%q: want TASK@COMMIT or before_feature", ErrRequest, val)
			}
			out["implemented_by"] = map[string]any{"task": task, "commit": commit}
		}
	default:
		if k != "" {
			if val == "" {
				return nil, fmt.Errorf("%w: regression reason %s: %s is empty", ErrRequest, reason, k)
			}
			out[k] = val
		}
	}
	return out, nil
}
