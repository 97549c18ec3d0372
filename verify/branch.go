package verify

import (
	"errors"
	"fmt"
	"sort"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// Conclusions of a verification (SPEC §8).
const (
	Success = "success" // every tick is evidenced
	Failure = "failure" // at least one tick (or object) fails
	Neutral = "neutral" // nothing to check
)

// Tick statuses and sub-reasons (SPEC §8).
const (
	StatusEvidenced    = "evidenced"
	StatusStale        = "stale"
	StatusUnverifiable = "unverifiable"
	StatusEdited       = "edited" // a task line edited after its tick
	// StatusBornTicked: a ticked task of a tasks file new in its commit
	// (gitref.KindBornTicked): not a tick, listed in Report.BornTicked.
	StatusBornTicked = "born_ticked"

	ReasonTickedWithoutEvidence = "ticked_without_evidence"
	ReasonCommitUnreachable     = "commit_unreachable"
	ReasonEditedAfterTick       = "edited_after_tick"
	ReasonNotVerified           = "not_verified" // --require-verified and the verdict is not verified
)

// GateOptions tune the merge gate. The zero value is the strictest reading except
// for RequireVerified, which is opt-in (SPEC §8).
type GateOptions struct {
	// RequireVerified fails regression_only and attested ticks.
	RequireVerified bool
	// AllowUnsigned accepts unsigned statements (`--require-signed=false`); by
	// default an unsigned tick fails (SPEC §10).
	AllowUnsigned bool
}

// TickResult is the gate's verdict on one tick of the range (SPEC §8).
type TickResult struct {
	Commit gitref.Hash  `json:"commit"`
	Path   string       `json:"path"`
	Line   int          `json:"line"`
	Unit   specfmt.Unit `json:"unit"`
	Task   string       `json:"task"`
	TaskID string       `json:"task_id"`
	// LineHash is the ticked line's line_hash (SPEC §4): what its evidence
	// must bind; it tells apart two lines of one repeated task ID.
	LineHash string `json:"line_hash,omitempty"`
	Status   string `json:"status"`
	Reason   string `json:"reason,omitempty"`
	Failing  bool   `json:"failing"`
	// SameTreeAs is a commit with the tick commit's tree that holds the evidence
	// (a squash or rebase merge).
	SameTreeAs gitref.Hash `json:"same_tree_as,omitempty"`
	// Evidence is the commit whose note was checked.
	Evidence gitref.Hash `json:"evidence,omitempty"`
	Verdict  string      `json:"verdict,omitempty"`
	Outcome  Outcome     `json:"outcome,omitempty"`
	Reasons  []Reason    `json:"reasons"`
	// Warnings are the evidence's warnings: reported, counted in the summary,
	// deciding nothing.
	Warnings []Reason `json:"warnings,omitempty"`
	Signers  []Signer `json:"signers"`
	Message  string   `json:"message,omitempty"`
	// Policy are the policy rules the tick violates (or that failed to
	// evaluate on it), warn level included.
	Policy []policy.Result `json:"policy,omitempty"`

	Object *ObjectResult `json:"-"`
}

// Report is the result of `taskproof verify` (SPEC §7, §8; README "JSON output").
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
	// new in their commit: a merged feature branch or an imported unit brings
	// its tasks file already ticked. They are not ticks (SPEC §1) and never
	// fail the gate; they are listed so that a reviewer sees them. A merge's
	// repeat of a born_ticked task its other parent brought in is not listed
	// again.
	BornTicked []TickResult   `json:"born_ticked"`
	Summary    map[string]int `json:"summary"`
	// Policy are the range rules' results that count (issue 6).
	Policy []policy.Result `json:"policy,omitempty"`
}

// Objects verifies the given objects (SPEC §7) and concludes failure when any
// object's outcome is not ok (unsigned passes only with opts.AllowUnsigned).
func (v *Verifier) Objects(ids []gitref.Hash, opts GateOptions) (*Report, error) {
	rep := &Report{SchemaVersion: 1, Mode: "objects", NotesRef: v.Notes.Ref(), Conclusion: Neutral, Ticks: []TickResult{}, Unticks: []TickResult{}, BornTicked: []TickResult{}, Summary: map[string]int{}}
	if _, err := v.Notes.Head(); err != nil {
		return nil, err
	}
	for _, id := range ids {
		rs, err := v.Object(id)
		if err != nil {
			return nil, err
		}
		rep.Objects = append(rep.Objects, rs...)
	}
	v.applyPolicy(rep)
	for _, o := range rep.Objects {
		rep.Summary[string(o.Outcome)]++
		if rep.Conclusion == Neutral {
			rep.Conclusion = Success
		}
		if objectFails(&o, opts) {
			rep.Conclusion = Failure
		}
	}
	countWarnings(rep)
	return rep, nil
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

// Branch runs the merge gate over base..head (SPEC §8): every tick of every
// commit reachable from head and not from base (merges included) is mapped to
// the commit carrying its evidence and judged evidenced, stale or unverifiable;
// task lines edited after their tick fail too. A task added already ticked to a
// tasks file its commit's parent has is a tick like any other (gitref.Tick.Born);
// the ticked tasks of tasks files new in their commit are listed in
// Report.BornTicked and do not fail. A notes ref absent locally is an
// error wrapping gitref.ErrNotesRefAbsent, never a pass.
func (v *Verifier) Branch(base, head gitref.Hash, opts GateOptions) (*Report, error) {
	if v.Trust == nil {
		return nil, ErrNoTrust
	}
	if _, err := v.Notes.Head(); err != nil {
		return nil, err
	}
	ticks, err := v.Repo.Ticks(base, head, gitref.TickOptions{})
	if err != nil {
		return nil, err
	}
	rep := &Report{SchemaVersion: 1, Mode: "branch", NotesRef: v.Notes.Ref(), Base: base, Head: head, Objects: []ObjectResult{}, Ticks: []TickResult{}, Unticks: []TickResult{}, BornTicked: []TickResult{}, Summary: map[string]int{}}

	// A merge's change against its first parent repeats the ticks its other
	// parents brought in; those ticks are judged on the commits that made them.
	// Only those: a tick the merge makes itself (a task reopened and ticked
	// again while merging, say) is judged on the merge, even when an older
	// commit of the range ticked the same task.
	inRange := map[string]bool{} // commit, unit dir, task ID, line after
	tickKey := func(c gitref.Hash, t gitref.Tick) string {
		return string(c) + "\x00" + t.Unit.Dir + "\x00" + t.TaskID + "\x00" + t.After
	}
	for _, t := range ticks {
		if !t.Merge && (t.Kind == gitref.KindTick || t.Kind == gitref.KindEdit) {
			inRange[tickKey(t.Commit, t)] = true
		}
	}
	broughtIn := map[gitref.Hash]map[string]bool{} // merge → unit dir, task ID, line after
	mergedIn := func(t gitref.Tick) (bool, error) {
		set, ok := broughtIn[t.Commit]
		if !ok {
			set = map[string]bool{}
			m, err := v.Repo.Commit(t.Commit)
			if err != nil {
				return false, err
			}
			for _, p := range m.Parents[1:] {
				side, err := v.Repo.Ticks(m.Parents[0], p, gitref.TickOptions{})
				if err != nil {
					return false, err
				}
				for _, x := range side {
					if inRange[tickKey(x.Commit, x)] {
						set[tickKey("", x)] = true
					}
				}
			}
			broughtIn[t.Commit] = set
		}
		return set[tickKey("", t)], nil
	}
	// The tick commits' objects are verified, and their sections checked at
	// head, on all cores (parallel.go) before the ticks are judged in order.
	// The task lines Ticks parsed are handed on (an unambiguous tick's task is
	// the one task of its tasks file at the commit with its ID), so that the
	// tasks files are not parsed again; a repeated ID's lines are found in the
	// file by the statements' line hashes.
	var tickCommits []gitref.Hash
	hints := map[gitref.Hash]taskHints{}
	for _, t := range ticks {
		if t.Kind != gitref.KindTick {
			continue
		}
		h, queued := hints[t.Commit]
		if !queued {
			h = taskHints{}
			hints[t.Commit] = h
			tickCommits = append(tickCommits, t.Commit)
		}
		if t.Ambiguous == "" && t.Path == t.Unit.Dir+"/tasks.md" {
			h[taskHintKey{t.Unit.Dir, t.TaskID}] = t.Task
		}
	}
	objects, err := v.checkObjects(tickCommits, hints, head)
	if err != nil {
		return nil, err
	}
	var elsewhere *subjectIndex
	bornListed := map[string]bool{} // unit dir, task ID, line after
	for _, t := range ticks {
		tr := TickResult{Commit: t.Commit, Path: t.Path, Line: t.Line, Unit: t.Unit, TaskID: t.TaskID, LineHash: t.LineHash,
			Task: attest.SubjectName(t.Unit.Feature, t.TaskID), Reasons: []Reason{}, Signers: []Signer{}}
		switch t.Kind {
		case gitref.KindUntick:
			tr.Status = "unticked"
			rep.Unticks = append(rep.Unticks, tr)
			continue
		case gitref.KindBornTicked:
			// Commits come parents first: a merge repeating what a commit of the
			// range already listed is skipped.
			if k := tickKey("", t); !t.Merge || !bornListed[k] {
				bornListed[k] = true
				tr.Status = StatusBornTicked
				tr.Message = "ticked in a tasks file new in this commit: not a tick, no evidence required"
				rep.BornTicked = append(rep.BornTicked, tr)
			}
			continue
		case gitref.KindEdit:
			tr.Status, tr.Reason, tr.Failing = StatusEdited, ReasonEditedAfterTick, true
			tr.Message = fmt.Sprintf("the ticked task line changed: %q → %q", t.Before, t.After)
			rep.Ticks = append(rep.Ticks, tr)
			continue
		}
		if t.Merge {
			merged, err := mergedIn(t)
			if err != nil {
				return nil, err
			}
			if merged {
				continue
			}
		}
		if t.Ambiguous != "" {
			// The tasks file repeats the task's ID: the tick is its line, and
			// its evidence the statement binding that line (README "Choices",
			// item 10) — unless another line with the ID reads the same, when
			// no attestation can say which of the two it is about.
			r, err := v.repeatedLine(t)
			if err != nil {
				return nil, err
			}
			if r != nil {
				tr.Status, tr.Reason, tr.Failing, tr.Outcome = StatusUnverifiable, string(Malformed), true, Malformed
				tr.Reasons = []Reason{*r}
				rep.Ticks = append(rep.Ticks, tr)
				continue
			}
		}
		co := objects[t.Commit]
		rs := co.results
		// The tick's result: the one with its subject name and line hash; for
		// a task whose ID is not repeated, the one with its subject name (a
		// statement binding another line then fails its line_hash check).
		found, byName := -1, -1
		var noteBroken *ObjectResult
		for i := range rs {
			if rs[i].Task == tr.Task {
				if found < 0 && rs[i].LineHash == t.LineHash {
					found = i
				}
				if byName < 0 {
					byName = i
				}
			}
			if rs[i].Task == "" && rs[i].Outcome == Malformed {
				noteBroken = &rs[i]
			}
		}
		if found < 0 && t.Ambiguous == "" {
			found = byName
		}
		if found < 0 && noteBroken == nil {
			// A line of the note that could not be read may be this tick's
			// statement (a repeated task ID's other line was read): the note's
			// own reasons make the tick malformed, not unevidenced.
			noteBroken = noteLevelFailure(rs)
		}
		switch {
		case found >= 0:
			judge(&tr, &rs[found], co.stale[found], opts)
			rep.Objects = append(rep.Objects, rs[found])
		case noteBroken != nil:
			tr.Status, tr.Reason, tr.Failing, tr.Outcome = StatusUnverifiable, string(Malformed), true, Malformed
			tr.Reasons, tr.Evidence = noteBroken.Reasons, t.Commit
		default:
			if elsewhere == nil {
				if elsewhere, err = v.indexSubjects(); err != nil {
					return nil, err
				}
			}
			tr.Status, tr.Failing = StatusUnverifiable, true
			tr.Reason = ReasonTickedWithoutEvidence
			cs := elsewhere.commits[tr.Task]
			if t.Ambiguous != "" {
				cs = elsewhere.lines[[2]string{tr.Task, t.LineHash}]
			}
			if len(cs) > 0 {
				tr.Reason = ReasonCommitUnreachable
				commit, err := v.Repo.Commit(t.Commit)
				if err != nil {
					return nil, err
				}
				for _, c := range cs {
					if c == t.Commit {
						continue
					}
					if oc, err := v.Repo.Commit(c); err == nil && oc.Tree == commit.Tree {
						tr.SameTreeAs = c
						break
					}
				}
				tr.Message = fmt.Sprintf("evidence for %s is on %d other commit(s), not on the tick commit", tr.Task, len(cs))
			} else if byName >= 0 {
				tr.Message = fmt.Sprintf("the note's statements for %s are about other task lines, not line %d of %s (line_hash %s)", tr.Task, t.Line, t.Path, t.LineHash)
			}
		}
		rep.Ticks = append(rep.Ticks, tr)
	}
	if err := v.bugTicks(rep, base, head, opts); err != nil {
		return nil, err
	}
	v.applyPolicy(rep)
	// The policy has run: nothing reads the decoded predicates and statements
	// again, and rendering a report of many ticks needs the memory.
	for i := range rep.Objects {
		rep.Objects[i].Predicate, rep.Objects[i].Statement = nil, nil
	}
	for i := range rep.Ticks {
		if o := rep.Ticks[i].Object; o != nil {
			o.Predicate, o.Statement = nil, nil
		}
	}
	rep.Conclusion = Neutral
	for _, tr := range rep.Ticks {
		rep.Summary[tr.Status]++
		if tr.Reason != "" {
			rep.Summary[tr.Reason]++
		}
		if rep.Conclusion == Neutral {
			rep.Conclusion = Success
		}
		if tr.Failing {
			rep.Conclusion = Failure
		}
	}
	rep.Summary["unticked"] = len(rep.Unticks)
	rep.Summary[StatusBornTicked] = len(rep.BornTicked)
	countWarnings(rep)
	return rep, nil
}

// judge sets a tick's status from its object's result and stale, the result of
// staleAtHead for it (nil: the cited section is the same at head).
func judge(tr *TickResult, o *ObjectResult, stale *Reason, opts GateOptions) {
	tr.Evidence, tr.Verdict, tr.Outcome, tr.Reasons, tr.Signers = o.Object, o.Verdict, o.Outcome, o.Reasons, o.Signers
	tr.Warnings = o.Warnings
	tr.Object = o
	switch {
	case o.Outcome == OK || (o.Outcome == Unsigned && opts.AllowUnsigned):
		tr.Status = StatusEvidenced
		if r := stale; r != nil {
			tr.Status, tr.Failing = StatusStale, true
			if r.Outcome == Malformed { // the task ID repeats at head
				tr.Status, tr.Reason, tr.Outcome = StatusUnverifiable, string(Malformed), Malformed
			}
			tr.Reasons = append(append([]Reason{}, tr.Reasons...), *r)
		}
	case o.Stale():
		tr.Status, tr.Failing = StatusStale, true
	default:
		tr.Status, tr.Reason, tr.Failing = StatusUnverifiable, string(o.Outcome), true
	}
	if !tr.Failing && opts.RequireVerified && o.Verdict != string(predicate.Verified) {
		tr.Status, tr.Reason, tr.Failing = StatusUnverifiable, ReasonNotVerified, true
		tr.Message = "--require-verified: the verdict is " + o.Verdict
	}
}

// staleAtHead recomputes the cited section at head; a different hash means the
// requirement changed since the tick. When the unit or task is no longer at head
// (an archived OpenSpec change), there is nothing newer to compare and the tick
// is not stale. When head's tasks file repeats the task's ID, the task is the
// line with that ID whose line_hash is the statement's (the tick's: o verified);
// when no line or two lines read so, the reason is duplicate_task_id
// (malformed): the task cannot be told apart at head.
func (v *Verifier) staleAtHead(o *ObjectResult, head gitref.Hash) *Reason {
	p := o.Predicate
	if p == nil {
		return nil
	}
	unit, ok := unitFromPredicate(p)
	if !ok {
		return nil
	}
	b, err := v.Repo.File(head, specfmt.ProjectPath(o.root, unit.Dir+"/tasks.md"))
	if err != nil {
		return nil
	}
	f, err := parseTasksCached(unit, b)
	if err != nil {
		return nil
	}
	t, err := f.Lookup(p.Task.ID)
	var de *specfmt.DuplicateTaskError
	if errors.As(err, &de) {
		// At head the file names the task's ID on several lines: the task is
		// the one that reads as the attested line (README "Choices", item 10).
		if t, err = f.LookupLine(p.Task.ID, p.Task.LineHash); err != nil {
			// None does (the line was edited since) or two do: the task cannot
			// be told apart at head, its section cannot be recomputed, and the
			// tick is not known to be current.
			errors.As(err, &de) // two lines read the same: name them
			return &Reason{Code: CodeDuplicateTaskID, Field: unit.Dir + "/tasks.md", Expected: "one task line", Found: fmt.Sprintf("lines %d and %d", de.FirstLine, de.SecondLine), Message: "at head: " + de.Error(), Outcome: Malformed}
		}
	}
	if err != nil {
		return nil
	}
	fsys, err := v.Repo.FS(head)
	if err == nil {
		fsys, err = subFS(fsys, o.root)
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

// subjectIndex maps subject names, and subject names with task lines, to the
// commits whose notes hold a task-verification statement for them.
type subjectIndex struct {
	commits map[string][]gitref.Hash
	lines   map[[2]string][]gitref.Hash // subject name, task.line_hash
}

// indexSubjects reads every note of the notes ref once (only when some tick has
// no evidence on its own commit).
func (v *Verifier) indexSubjects() (*subjectIndex, error) {
	idx := &subjectIndex{commits: map[string][]gitref.Hash{}, lines: map[[2]string][]gitref.Hash{}}
	entries, err := v.Notes.All()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		note, err := v.Notes.Note(e.Commit)
		if err != nil {
			continue
		}
		for _, line := range attest.SplitNote(note) {
			if st, _, ok := attest.LineStatement(line); ok && st.PredicateType == predicate.PredicateType {
				name := st.Subjects[0].Name
				k := [2]string{name, attest.TaskLineHash(st)}
				idx.commits[name] = append(idx.commits[name], e.Commit)
				idx.lines[k] = append(idx.lines[k], e.Commit)
			}
		}
	}
	for _, cs := range idx.commits {
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	}
	for _, cs := range idx.lines {
		sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	}
	return idx, nil
}

// repeatedLine is, for a tick whose tasks file repeats its task ID
// (gitref.Tick.Ambiguous), the duplicate_task_id reason (malformed) when
// another line with the ID reads the same as the ticked line at the tick
// commit: no attestation can say which of the two it binds. nil otherwise: the
// tick is its line, evidenced by a statement with its line hash.
func (v *Verifier) repeatedLine(t gitref.Tick) (*Reason, error) {
	b, err := v.Repo.File(t.Commit, t.Path)
	if err != nil {
		return nil, err
	}
	f, err := parseTasksCached(t.Unit, b)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", t.Path, t.Commit, err)
	}
	var de *specfmt.DuplicateTaskError
	if _, err := f.LookupLine(t.TaskID, t.LineHash); errors.As(err, &de) {
		return &Reason{Code: CodeDuplicateTaskID, Field: t.Path, Expected: "one task line", Found: fmt.Sprintf("lines %d and %d", de.FirstLine, de.SecondLine), Message: de.Error() + ", which read the same", Outcome: Malformed}, nil
	}
	return nil, nil
}

// noteLevelFailure returns a result holding the reasons about the note as a
// whole (ObjectResult.noteReasons) of rs, one commit's results, or nil when
// its note has none.
func noteLevelFailure(rs []ObjectResult) *ObjectResult {
	for i := range rs {
		if len(rs[i].noteReasons) > 0 {
			return &ObjectResult{Object: rs[i].Object, Kind: rs[i].Kind, Outcome: Malformed, Reasons: rs[i].noteReasons}
		}
	}
	return nil
}
