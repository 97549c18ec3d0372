package verify

import (
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/trust"
)

// Conclusions of a verification (docs/format.md#gate-rules).
const (
	Success = "success" // every tick is evidenced
	Failure = "failure" // at least one tick (or object) fails
	Neutral = "neutral" // nothing to check
)

// Tick statuses and sub-reasons (docs/format.md#gate-rules).
const (
	StatusEvidenced    = "evidenced"
	StatusStale        = "stale"
	StatusUnverifiable = "unverifiable"
	StatusEdited       = "edited" // a task line edited after its tick
	// StatusBornTicked: a ticked task of a tasks file new in its commit
	// (tick.KindBornTicked): in Ticks, failing, when it has no evidence;
	// listed in Report.BornTicked when the policy allows it
	// (docs/format.md#born-ticked-tasks).
	StatusBornTicked = "born_ticked"

	ReasonTickedWithoutEvidence = "ticked_without_evidence"
	ReasonCommitUnreachable     = "commit_unreachable"
	ReasonEditedAfterTick       = "edited_after_tick"
	ReasonNotVerified           = "not_verified" // --require-verified and the verdict is not verified

	// StatusNotEvaluated: a bug task a commit's Spec-Task trailer names with
	// no statement binding it (speccoder's trailer_only task: no tasks-file
	// line claims it done), as speccoder reports it: listed, not failing,
	// no evidence (docs/format.md#bug-tasks).
	StatusNotEvaluated = "not_evaluated"
	// KindBug is TickResult.Kind of a bug task.
	KindBug = "bug"

	// StatusSuperseded: a tick no line head holds comes from (unticked,
	// edited or removed later, or on a side a merge did not keep); the lines
	// head holds are judged by their origins (docs/format.md#superseded-ticks,
	// #the-gates-model). Not failing.
	StatusSuperseded = "superseded"
	// ReasonNotRegular: a tasks file, or a directory on a unit layout's
	// tasks-file path, is a symbolic link or a submodule at head or at a
	// commit of the range (docs/format.md#tasks-files-are-regular-files).
	ReasonNotRegular = "tasks_file_not_regular"
	// ReasonUnrecognizedTasksFile: a box ticked in a file named tasks.md that
	// no unit layout claims and the policy does not ignore
	// (docs/format.md#tasks-files).
	ReasonUnrecognizedTasksFile = "unrecognized_tasks_file"
	// ReasonTasksFileMovedOut: a commit of the range moved a unit's tasks
	// file to a path where it is no tasks file (its tasks left the tasks
	// files), or removed one and added a Markdown file that cannot be read to
	// tell (docs/format.md#tasks-files, "Tasks files that leave").
	ReasonTasksFileMovedOut = "tasks_file_moved_out"
)

// GateOptions tune the merge gate. The zero value is the strictest reading except
// for RequireVerified, which is opt-in (docs/format.md#gate-rules).
type GateOptions struct {
	// RequireVerified fails regression_only and attested ticks.
	RequireVerified bool
	// AllowUnsigned accepts unsigned statements (`--insecure-allow-unsigned`); by
	// default an unsigned tick fails (docs/format.md#exit-codes).
	AllowUnsigned bool
}

// TickResult is the gate's verdict on one tick of the range (docs/format.md#gate-rules).
type TickResult struct {
	// Kind is "bug" for a bug task named by a Spec-Task trailer
	// (docs/format.md#bug-tasks); absent for a tasks file's tick.
	Kind   string       `json:"kind,omitempty"`
	Commit gitref.Hash  `json:"commit"`
	Path   string       `json:"path"`
	Line   int          `json:"line"`
	Unit   specfmt.Unit `json:"unit"`
	Task   string       `json:"task"`
	TaskID string       `json:"task_id"`
	// Title is the task's title, as the tick commit's tasks file has it:
	// what names a task whose ID is derived from it (docs/format.md#naming-a-task).
	Title string `json:"title,omitempty"`
	// LineHash is the ticked line's line_hash (docs/format.md#hash-recipes): what its evidence
	// must bind; it tells apart two lines of one repeated task ID.
	LineHash string `json:"line_hash,omitempty"`
	Status   string `json:"status"`
	Reason   string `json:"reason,omitempty"`
	Failing  bool   `json:"failing"`
	// SameTreeAs is a commit with the tick commit's tree that holds the evidence
	// (a squash or rebase merge).
	SameTreeAs gitref.Hash `json:"same_tree_as,omitempty"`
	// Evidence is the commit whose note was checked; for commit_unreachable,
	// the commit holding the evidence (SameTreeAs when there is one).
	Evidence gitref.Hash `json:"evidence,omitempty"`
	Verdict  string      `json:"verdict,omitempty"`
	Outcome  Outcome     `json:"outcome,omitempty"`
	Reasons  []Reason    `json:"reasons"`
	// Warnings are the evidence's warnings: reported, counted in the summary,
	// deciding nothing.
	Warnings []Reason       `json:"warnings,omitempty"`
	Signers  []trust.Signer `json:"signers"`
	Message  string         `json:"message,omitempty"`
	// Policy are the policy rules the tick violates (or that failed to
	// evaluate on it), warn level included.
	Policy []policy.Result `json:"policy,omitempty"`
	// Via names the sub-tasks (subject names) through whose evidence a Kiro
	// parent task's tick is evidenced (docs/format.md#kiro-parent-tasks).
	Via []string `json:"via,omitempty"`
	// Hint says how to fix a failing tick (docs/gate.md "When the gate fails");
	// "" when it passes.
	Hint string `json:"hint,omitempty"`
	// EvidenceOn lists, for commit_unreachable, every commit whose note holds a
	// task-verification statement for the tick (its task line's first).
	EvidenceOn []gitref.Hash `json:"evidence_on,omitempty"`
	// SquashRange is, for commit_unreachable, the range BASE..HEAD the tick
	// commit is the squash merge of, when its evidence is on a commit of it:
	// `taskproof attest carry BASE..HEAD TICK` carries the range's evidence
	// (docs/format.md#after-a-rebase-or-squash).
	SquashRange string `json:"squash_range,omitempty"`

	Object *ObjectResult `json:"-"`

	// HintKey is the key of the hint table the judge chose for the tick's fix, when its
	// reasons alone would name one that cannot work ("": tickHint's usual
	// choice): attesting the tick for an earlier tick's evidence (no rewrite
	// to carry from), head's task no commit of the range ticks, a merge
	// checking a line again that its first parent holds,
	// a commit ticking one line in two projects, a tasks file at head that
	// cannot be read.
	HintKey string `json:"-"`
}

// Report is the result of `taskproof verify` (docs/format.md#checks-in-order; docs/gate.md "JSON output").
type Report struct {
	SchemaVersion int            `json:"schema_version"`
	Mode          string         `json:"mode"` // "objects" or "branch"
	NotesRef      string         `json:"notes_ref"`
	Base          gitref.Hash    `json:"base,omitempty"`
	Head          gitref.Hash    `json:"head,omitempty"`
	Conclusion    string         `json:"conclusion"`
	Objects       []ObjectResult `json:"objects"`
	Ticks         []TickResult   `json:"ticks"`
	Unticks       []TickResult   `json:"unticks"`
	// BornTicked lists (branch mode) the ticked tasks of tasks files that are
	// new in their commit where the verifier's policy allows born-ticked
	// tasks ([born_ticked] allow): a merged feature branch or an imported unit
	// brings its tasks file already ticked. They do not fail; they are listed
	// so that a reviewer sees them. Elsewhere a born-ticked task is judged in
	// Ticks (docs/format.md#born-ticked-tasks). A merge's repeat of a
	// born_ticked task its other parent brought in is not listed again.
	BornTicked []TickResult   `json:"born_ticked"`
	Summary    map[string]int `json:"summary"`
	// Policy are the range rules' results that count.
	Policy []policy.Result `json:"policy,omitempty"`

	// objectSpool holds (BranchSpooled) the report's leading objects, before
	// those in Objects, out of memory, and tickSpool its leading ticks, before
	// those in Ticks (tickReader, EachTick); firstPolicy and commitPolicy the
	// per-object rules' results of the first of the spooled ticks with each
	// object key, for the objects SpoolJudged and ApplyPolicy give results to:
	// commitPolicy the keys of the tick commit policyCommit, judged last,
	// whose objects are its own; firstPolicy the keys of other commits (an
	// unreachable tick's evidence) and of bugCommits, the commits whose
	// objects Objects holds after the ticks' (bugTicks).
	objectSpool  *itemSpool
	tickSpool    *tickSpool
	firstPolicy  map[objectTask][]policy.Result
	commitPolicy map[objectTask][]policy.Result
	policyCommit gitref.Hash
	bugCommits   map[gitref.Hash]bool
	// commits is the number of commits the gate walked (RangeCommits).
	commits int
}

// RangeCommits is the number of commits in the branch report's range
// base..head as the gate walked them: 0 for an empty range (head is the base
// or one of its ancestors) and for an objects report. A neutral report with
// commits and no ticks verified nothing a reviewer may think was checked.
func (r *Report) RangeCommits() int { return r.commits }

// objectTask names a tick's object: its evidence commit, task (subject name)
// and line hash (a commit may tick two lines of one task ID).
type objectTask struct {
	object   gitref.Hash
	task     string
	lineHash string
}

// Close removes what the report holds out of memory (BranchSpooled); its
// writers cannot be used after it. A report held in memory needs no Close;
// calling it is harmless.
func (rep *Report) Close() error {
	if rep == nil {
		return nil
	}
	var err error
	if rep.objectSpool != nil {
		err = rep.objectSpool.close()
	}
	if rep.tickSpool != nil {
		if terr := rep.tickSpool.close(); err == nil {
			err = terr
		}
	}
	rep.objectSpool, rep.tickSpool = nil, nil
	return err
}

// Objects verifies the given objects (docs/format.md#checks-in-order) and concludes failure when any
// object's outcome is not ok (unsigned passes only with opts.AllowUnsigned).
func (v *Verifier) Objects(ids []gitref.Hash, opts GateOptions) (*Report, error) {
	if err := v.Ready(Verified{Objects: ids}); err != nil {
		return nil, err
	}
	rep := &Report{SchemaVersion: 1, Mode: "objects", NotesRef: v.Notes.Ref(), Conclusion: Neutral, Ticks: []TickResult{}, Unticks: []TickResult{}, BornTicked: []TickResult{}, Summary: map[string]int{}}
	if _, err := v.Notes.Head(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		rs, err := v.Object(id)
		if err != nil {
			return nil, err
		}
		if err := v.tickedTasks(id, rs); err != nil {
			return nil, err
		}
		rep.Objects = append(rep.Objects, rs...)
	}
	v.ApplyPolicy(rep)
	for _, o := range rep.Objects {
		rep.Summary[string(o.Outcome)]++
		if rep.Conclusion == Neutral {
			rep.Conclusion = Success
		}
		if objectFails(&o, opts) {
			rep.Conclusion = Failure
		}
	}
	CountWarnings(rep)
	AddHints(rep, opts)
	return rep, nil
}

// tickedTasks looks up, for the results of object id that name no task (its
// note is absent or holds no statement), the tasks the commit ticks, so that
// the hint names what to attest, or says there is nothing to: attest tick
// takes the ticks and born-ticked tasks of recognized tasks files.
func (v *Verifier) tickedTasks(id gitref.Hash, rs []ObjectResult) error {
	var ticked []string
	looked := false
	for i := range rs {
		if rs[i].TaskID != "" || rs[i].Outcome != Missing {
			continue
		}
		if !looked {
			looked = true
			ticks, err := tick.OfCommit(v.Repo, id, v.PolicyOrDefault().Layouts())
			if err != nil {
				return err
			}
			seen := map[string]bool{}
			for _, t := range ticks {
				if (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked) && !t.Unrecognized && !seen[t.TaskID] {
					seen[t.TaskID] = true
					ticked = append(ticked, t.TaskID)
				}
			}
		}
		rs[i].ticked, rs[i].tickedKnown = ticked, true
	}
	return nil
}

func objectFails(o *ObjectResult, opts GateOptions) bool {
	switch o.Outcome {
	case OK:
	case Unsigned:
		if !opts.AllowUnsigned {
			return true
		}
	default:
		return true
	}
	return policy.Failing(o.Policy) || (opts.RequireVerified && o.Verdict != string(predicate.Verified))
}
