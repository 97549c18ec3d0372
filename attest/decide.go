package attest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/notesref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
)

// SkipRefPrefix is where skip records live: refs/speccoder/skipped/<feature>/<task>
// (docs/format.md#storage).
const SkipRefPrefix = notesref.SkipPrefix

// DecideRequest is what `taskproof attest decide` asks for (docs/format.md#units-and-task-lines).
type DecideRequest struct {
	// Commit is, for attested, the commit that ticks the task; for skipped, the
	// commit where the skip was decided (the task is open there).
	Commit gitref.Hash
	// Task is the task ID; UnitDir picks the unit when the ID is in several.
	Task    string
	UnitDir string
	// Verdict is attested or skipped.
	Verdict predicate.Verdict
	// By and Reason are the decider.
	By, Reason string
	Signers    []signer.Signer
	Time       time.Time
	DryRun     bool
	// Force replaces what the decision would replace: for attested, the
	// statements the tick commit's note already holds for the task; for
	// skipped, an existing skip record at the task's ref. Without it Decide
	// fails with an *AttestedError naming them (docs/format.md#attesting-safely).
	Force bool
}

// Decide writes a decision statement (docs/format.md#storage,
// docs/format.md#statements): `attested` goes into the note of the commit that
// ticks the task (a person accepts it without test evidence); `skipped` writes
// a skip record commit (tree = the decision commit's tree, parent = the
// decision commit, message "skip <feature>/<task>: <reason>"), points
// refs/speccoder/skipped/<feature>/<task> at it, and puts the statement in the
// record's note. The predicate carries the decider and no test evidence; the
// decision writes the task-verification statement alone. Without req.Force a
// decision replaces no signed statement: an *AttestedError
// ([ErrAlreadyAttested]) names what it would replace. Errors: [ErrRequest]
// (missing by/reason, a task that is not open for a skip), [ErrTaskNotTicked],
// [ErrAlreadyAttested], gitref's errors.
func Decide(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, req DecideRequest) (*Written, error) {
	if strings.TrimSpace(req.By) == "" || strings.TrimSpace(req.Reason) == "" {
		return nil, fmt.Errorf("%w: a decision needs who decided (by) and a non-empty reason", ErrRequest)
	}
	when := req.Time
	if when.IsZero() {
		when = time.Now()
	}
	if err := req.CheckVerdict(); err != nil {
		return nil, err
	}
	decider := &predicate.Decider{By: req.By, Reason: req.Reason}
	if req.Verdict == predicate.Skipped {
		return decideSkipped(ctx, repo, notes, req, decider, when)
	}
	return decideAttested(ctx, repo, notes, req, decider, when)
}

// CheckVerdict refuses a verdict a decision does not record ([ErrRequest]):
// what a caller can check before it looks for a signing key. Decide checks
// it too.
func (req DecideRequest) CheckVerdict() error {
	if req.Verdict != predicate.Attested && req.Verdict != predicate.Skipped {
		return fmt.Errorf("%w: decision verdict %q: want attested or skipped", ErrRequest, req.Verdict)
	}
	return nil
}

func decideAttested(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, req DecideRequest, decider *predicate.Decider, when time.Time) (*Written, error) {
	commit, err := repo.Commit(req.Commit)
	if err != nil {
		return nil, err
	}
	ticks, err := tick.OfCommit(repo, commit.ID, nil)
	if err != nil {
		return nil, err
	}
	var named []namedTask
	for _, t := range ticks {
		if (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked) && !t.Unrecognized && (req.UnitDir == "" || t.Unit.Dir == req.UnitDir) {
			named = append(named, namedTask{t.TaskID, t.Task.Title})
		}
	}
	if req.Task, err = resolveOneTask(req.Task, named); err != nil {
		return nil, err
	}
	var found *tick.Tick
	var ids []string
	for i, t := range ticks {
		if (t.Kind != tick.KindTick && t.Kind != tick.KindBornTicked) || t.Unrecognized {
			continue // a born-ticked task is decided like a tick (docs/format.md#born-ticked-tasks)
		}
		ids = append(ids, t.TaskID)
		if t.TaskID == req.Task && (req.UnitDir == "" || t.Unit.Dir == req.UnitDir) {
			switch {
			case found != nil && found.Path == t.Path:
				// A decision names a task by its ID, which cannot say which of
				// the lines it accepts.
				return nil, fmt.Errorf("%w: %s ticks two lines of task %s in %s (lines %d and %d): a decision cannot name one of them (attest tick attests each ticked line)", ErrRequest, commit.ID, req.Task, t.Path, found.Line, t.Line)
			case found != nil:
				return nil, fmt.Errorf("%w: %s ticks task %s in %s and %s; name the unit", ErrRequest, commit.ID, req.Task, found.Unit.Dir, t.Unit.Dir)
			}
			found = &ticks[i]
		}
	}
	if found == nil {
		if len(ids) == 0 {
			return nil, fmt.Errorf("%w: %s ticks no task; a decision goes on the commit that ticks the task", ErrNoTick, commit.ID)
		}
		return nil, fmt.Errorf("%w: %s does not tick task %s (it ticks %s)", ErrTaskNotTicked, commit.ID, req.Task, strings.Join(ids, ", "))
	}
	task, repeated, err := tickTask(repo, *found)
	if err != nil {
		return nil, err
	}
	line := ""
	if repeated || found.Root != "" {
		// A nested project's statement is owned by its line too: another
		// project may have the unit.dir (docs/format.md#project-root).
		line = predicate.LineHash(task.OpenLine())
	}
	// The decision is written under the tick's project root, as attest tick
	// writes (docs/format.md#project-root).
	policy, err := readOptional(repo, commit.FirstParent(), specfmt.ProjectPath(found.Root, specfmt.ProjectConfig))
	if err != nil {
		return nil, err
	}
	fsys, err := repo.FS(commit.ID)
	if err != nil {
		return nil, err
	}
	if found.Root != "" {
		if fsys, err = fs.Sub(fsys, found.Root); err != nil {
			return nil, err
		}
	}
	unit := specfmt.Dialect(fsys, found.ProjectUnit())
	section, err := specfmt.Section(fsys, unit, task)
	if err != nil {
		return nil, fmt.Errorf("spec section of %s: %w", req.Task, err)
	}
	p, err := predicate.Build(predicate.Input{Unit: unit, Task: task, Section: section, Tree: string(commit.Tree),
		Policy: policy, Verdict: predicate.Attested, Decider: decider, Time: when})
	if err != nil {
		return nil, err
	}
	return write(ctx, notes, commit.ID, unit, req.Task, line, p, req.Signers, req.DryRun, req.Force)
}

func decideSkipped(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, req DecideRequest, decider *predicate.Decider, when time.Time) (*Written, error) {
	decision, err := repo.Commit(req.Commit)
	if err != nil {
		return nil, err
	}
	fsys, err := repo.FS(decision.ID)
	if err != nil {
		return nil, err
	}
	// The task is named by its ID, its title or the start of the title.
	named, err := unitTaskNames(fsys, req.UnitDir)
	if err != nil {
		return nil, err
	}
	if req.Task, err = resolveOneTask(req.Task, named); err != nil {
		return nil, err
	}
	unit, task, err := findTask(fsys, req.Task, req.UnitDir)
	if err != nil {
		return nil, err
	}
	if !task.Open() {
		return nil, fmt.Errorf("%w: task %s in %s is not open at %s; only an open task can be skipped", ErrRequest, req.Task, unit.Dir, decision.ID)
	}
	unit = specfmt.Dialect(fsys, unit)
	section, err := specfmt.Section(fsys, unit, task)
	if err != nil {
		return nil, fmt.Errorf("spec section of %s: %w", req.Task, err)
	}
	// The record's first parent is the decision commit: policy_sha256 comes from
	// the decision commit's speccoder.toml, as the verifier recomputes it.
	policy, err := readOptional(repo, decision.ID, "speccoder.toml")
	if err != nil {
		return nil, err
	}
	subject := statement.SubjectName(unit.Feature, req.Task)
	ref := SkipRefPrefix + subject
	msg := fmt.Sprintf("skip %s: %s\n", subject, req.Reason)
	// The ref moves by compare-and-swap from the value read here: a record
	// another decision points it at meanwhile is refused like one found now.
	prev, err := repo.ReadRef(ref)
	if err != nil {
		return nil, err
	}
	if !req.Force && prev != "" {
		// The same decision run again (after an interruption, or by a
		// second signer) finds its statement in the record the ref points
		// at: held, or co-signed, never a second record.
		w, err := sameSkipRecord(ctx, repo, notes, prev, decision, unit, req, predicate.Input{Unit: unit, Task: task, Section: section,
			Tree: string(decision.Tree), Policy: policy, Verdict: predicate.Skipped, Decider: decider, Time: when})
		if w != nil || err != nil {
			return w, err
		}
	}
	if !req.Force {
		if err := refuseMovingSkip(notes, ref, prev); err != nil {
			return nil, err
		}
	}
	if req.DryRun {
		p, err := predicate.Build(predicate.Input{Unit: unit, Task: task, Section: section, Tree: string(decision.Tree),
			Policy: policy, Verdict: predicate.Skipped, Decider: decider, Time: when})
		if err != nil {
			return nil, err
		}
		return write(ctx, notes, decision.ID, unit, req.Task, "", p, req.Signers, true, true)
	}
	record, err := repo.WriteCommit(decision.Tree, decision.ID, msg)
	if err != nil {
		return nil, err
	}
	p, err := predicate.Build(predicate.Input{Unit: unit, Task: task, Section: section, Tree: string(decision.Tree),
		Policy: policy, Verdict: predicate.Skipped, Decider: decider, Time: when})
	if err != nil {
		return nil, err
	}
	// The note first, then the ref: a crash in between leaves an unreferenced
	// record, never a ref to a record without its statement.
	w, err := write(ctx, notes, record, unit, req.Task, "", p, req.Signers, false, true)
	if err != nil {
		return nil, err
	}
	if err := repo.SetRef(ref, prev, record); err != nil {
		if now, rerr := repo.ReadRef(ref); errors.Is(err, gitref.ErrRefChanged) && rerr == nil && now != "" {
			if req.Force {
				return nil, fmt.Errorf("pointing %s at the skip record %s: another decision moved it to %s meanwhile; run the decision again to replace that one: %w", ref, record, now, err)
			}
			if aerr := refuseMovingSkip(notes, ref, now); aerr != nil {
				return nil, aerr
			}
		}
		return nil, fmt.Errorf("pointing %s at the skip record %s: %w", ref, record, err)
	}
	w.Warnings = append(w.Warnings, fmt.Sprintf("skip record %s at %s (push it with `git push origin %s`)", record, ref, ref))
	return w, nil
}

// findTask finds task id among the units' tasks files of a tree
// (docs/format.md#units-and-task-lines unit paths). unitDir, when not empty,
// picks the unit. A task ID found in several units without unitDir is an error
// naming them (ErrRequest); a task ID that a tasks file repeats is a
// *specfmt.DuplicateTaskError naming both lines (specfmt.ErrDuplicateTask) —
// only that ID: the file's other tasks are found.
func findTask(fsys fs.FS, id, unitDir string) (specfmt.Unit, specfmt.Task, error) {
	type hit struct {
		u specfmt.Unit
		t specfmt.Task
	}
	var hits []hit
	err := unitTasksFiles(fsys, unitDir, func(p string, f *specfmt.TasksFile) error {
		t, err := f.Lookup(id)
		switch {
		case err == nil:
			hits = append(hits, hit{f.Unit, t})
		case !errors.Is(err, specfmt.ErrTaskNotFound):
			// The file repeats id: refused however many units hold it
			// (other tasks of the file are found normally).
			return fmt.Errorf("%s: %w", p, err)
		}
		return nil
	})
	if err != nil {
		return specfmt.Unit{}, specfmt.Task{}, err
	}
	switch len(hits) {
	case 0:
		where := "any unit"
		if unitDir != "" {
			where = unitDir
		}
		return specfmt.Unit{}, specfmt.Task{}, fmt.Errorf("%w: task %s not found in %s", ErrRequest, id, where)
	case 1:
		return hits[0].u, hits[0].t, nil
	}
	var dirs []string
	for _, h := range hits {
		dirs = append(dirs, h.u.Dir)
	}
	return specfmt.Unit{}, specfmt.Task{}, fmt.Errorf("%w: task %s is in %s; name the unit (its directory)", ErrRequest, id, strings.Join(dirs, ", "))
}

// unitTaskNames are the tasks of the units' tasks files of a tree (of
// unitDir when not empty), for a decision that names a task by its title.
func unitTaskNames(fsys fs.FS, unitDir string) ([]namedTask, error) {
	var out []namedTask
	err := unitTasksFiles(fsys, unitDir, func(_ string, f *specfmt.TasksFile) error {
		for _, t := range f.Tasks {
			out = append(out, namedTask{t.ID, t.Title})
		}
		return nil
	})
	return out, err
}

// unitTasksFiles calls visit with each tasks file of a unit in a tree (of
// unitDir when not empty) at the built-in layouts' paths, parsed with
// repeated IDs allowed.
func unitTasksFiles(fsys fs.FS, unitDir string, visit func(path string, f *specfmt.TasksFile) error) error {
	// The built-in layouts' patterns are fs.Glob patterns (no "**");
	// UnitForTasksPath drops what a glob matches and its layout refuses (the
	// change named "archive").
	for _, lay := range specfmt.BuiltinLayouts() {
		paths, _ := fs.Glob(fsys, lay.Tasks)
		for _, p := range paths {
			u, ok := specfmt.UnitForTasksPath(p)
			if !ok || (unitDir != "" && u.Dir != unitDir) {
				continue
			}
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			f, err := specfmt.ParseTasks(u, b, specfmt.AllowDuplicateIDs())
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if err := visit(p, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// sameSkipRecord writes a skip decision into the skip record prev, the one its
// ref points at, when that record is of the decision commit and its note holds
// the decision's statement but for its time of issue
// (docs/format.md#the-same-statement): the statement is then held, or
// co-signed, as attest tick's are. It returns nil, nil when prev records
// another decision.
func sameSkipRecord(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, prev gitref.Hash, decision *gitref.Commit, unit specfmt.Unit, req DecideRequest, in predicate.Input) (*Written, error) {
	rec, err := repo.Commit(prev)
	if err != nil || rec.FirstParent() != decision.ID || rec.Tree != decision.Tree {
		// A ref at something else is another decision: the caller refuses it.
		return nil, nil
	}
	held, err := heldNote(notes, prev)
	if err != nil || held == nil {
		return nil, err
	}
	p, err := predicate.Build(in)
	if err != nil {
		return nil, err
	}
	same, err := adoptHeldTime(held, statement.Subject{Name: statement.SubjectName(unit.Feature, req.Task), GitCommit: string(prev)}, p)
	if err != nil || !same {
		return nil, err
	}
	return write(ctx, notes, prev, unit, req.Task, "", p, req.Signers, req.DryRun, false)
}
