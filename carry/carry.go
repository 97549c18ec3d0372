package carry

import (
	"context"
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notemerge"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/rewrite"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
)

// ErrNothingToCarry: the FROM commit's note holds no task-verification statement
// about FROM.
var ErrNothingToCarry = errors.New("nothing to carry")

// ErrUncheckedFrom: a [Request] with neither CheckFrom nor
// UnverifiedFromUnsafe, which would re-sign statements nobody checked.
var ErrUncheckedFrom = errors.New("FROM's signatures are not checked")

// Request is what `taskproof attest carry FROM TO` asks for.
type Request struct {
	// From is the commit whose note holds the statements (the original tick
	// commit, before a cherry-pick, rebase or squash).
	From gitref.Hash
	// To is the commit that now carries the task's work; it must tick every task
	// carried (against its first parent), as the merge gate will look for the
	// evidence there (docs/format.md#gate-rules).
	To gitref.Hash
	// Signers sign the re-issued statements; none: they are written unsigned.
	Signers []signer.Signer
	// CheckFrom, when not nil, is called with every envelope of From's note that
	// is carried, before anything is written; an error stops the carry. The CLI
	// uses it to verify From's signatures against the verifier's trust, so that a
	// carry never re-signs statements nobody trusted.
	CheckFrom func(subject string, env *dsse.Envelope) error
	// UnverifiedFromUnsafe re-signs From's statements without any check: Carry
	// refuses a request with neither CheckFrom nor UnverifiedFromUnsafe
	// ([ErrUncheckedFrom]), so that unverified statements are never re-signed
	// by default.
	UnverifiedFromUnsafe bool
	// KeepFrom keeps From's lines; otherwise they are removed from From's note once
	// To's note is written.
	KeepFrom bool
	// DryRun builds and signs the statements and writes nothing.
	DryRun bool
	// Force replaces the statements To's note already holds for a carried
	// task; without it Carry fails with an *AttestedError naming them
	// (docs/format.md#attesting-safely).
	Force bool
	// Reach, when not nil, is the refs' reach Carry asks whether From is still
	// in some history (a range carry walks the refs once for all its pairs);
	// nil: Carry walks them itself.
	Reach *gitref.RefReach

	// squash, set by Squash, carries only its tasks, From being one of
	// the range whose squash To was checked to be.
	squash *squashScope
}

// Result says what Carry did.
type Result struct {
	From gitref.Hash `json:"from"`
	To   gitref.Hash `json:"to"`
	// Written are the re-issued statements, one entry per task.
	Written []attest.Written `json:"written"`
	// RemovedFrom is true when From's carried lines were removed.
	RemovedFrom bool `json:"removed_from"`
	// KeptFromRef names the ref whose history still holds From (a
	// cherry-pick's original), when From's lines were kept for that reason.
	KeptFromRef string `json:"kept_from_ref,omitempty"`
	// AlreadyCarried names the tasks From ticks when From's note holds no
	// statement about From and To's note holds a task-verification
	// statement about To for each of them: a carry run again after it
	// completed (or was interrupted after removing From's lines) has
	// nothing left to do.
	AlreadyCarried []string `json:"already_carried,omitempty"`
	// Overrode says what --force overrode: TO is no rewrite of FROM, and
	// FROM's statements were re-signed for code they never judged.
	Overrode string `json:"overrode,omitempty"`
}

// Carry re-issues on To the task-verification statements From's note holds
// about From (docs/format.md#after-a-rebase-or-squash: a cherry-pick, a rebase,
// an amend or a squash merge), when To is a rewrite of From ([rewrite.Judge];
// with req.Force whatever To is, but an earlier tick, res.Overrode saying
// so). For each such statement it keeps the
// predicate's evidence (verdict, trace, red, decider, time, every other member)
// and recomputes, as [attest.Tick] does, what depends on the commit: the subject's
// gitCommit (To), tree (To's tree), task.line_hash and title (To's task line,
// read as open), spec (the cited section at To) and policy_sha256 (To's first
// parent's speccoder.toml). The task must be ticked by To (else
// [attest.ErrTaskNotTicked]). The statements of docs/format.md#statements (test
// results and VSA for verified and regression_only ticks) are rebuilt from the
// predicate, signed with req.Signers and written into To's note in one update
// (docs/format.md#storage: To's other lines are kept); only then, unless
// req.KeepFrom or From is still in the history of a ref (but the notes refs
// and skip records), HEAD or a worktree's HEAD (res.KeptFromRef), are the
// carried subjects' owned lines
// removed from From's note, so a crash never loses the evidence. Lines of From's note about other commits
// (copied there by `git rebase` with notes.rewriteRef) are neither carried nor
// removed. A From note holding a Sigstore bundle is refused before anything is
// read or written ([CheckNoBundles]); statements To's note already holds for a
// carried task are replaced only with req.Force (else an *AttestedError,
// [attest.ErrAlreadyAttested], before anything is written). Errors: [ErrNothingToCarry],
// [attest.ErrTaskNotTicked], [attest.ErrRequest] (also when To is no rewrite of From, or
// From is an ancestor of To), [ErrUncheckedFrom] (neither CheckFrom nor
// UnverifiedFromUnsafe), CheckFrom's error, gitref's errors, signing errors.
func Carry(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, req Request) (*Result, error) {
	if req.CheckFrom == nil && !req.UnverifiedFromUnsafe {
		return nil, fmt.Errorf("%w: %w: give a check of FROM's signatures against the verifier's trust (CheckFrom), or ask for re-signing them unverified (UnverifiedFromUnsafe)", attest.ErrRequest, ErrUncheckedFrom)
	}
	from, err := repo.Commit(req.From)
	if err != nil {
		return nil, err
	}
	to, err := repo.Commit(req.To)
	if err != nil {
		return nil, err
	}
	if from.ID == to.ID {
		return nil, fmt.Errorf("%w: FROM and TO are the same commit %s", attest.ErrRequest, from.ID)
	}
	reach := req.Reach
	if reach == nil {
		if reach, err = repo.RefReach(); err != nil {
			return nil, err
		}
	}
	note, err := fromNote(notes, from.ID)
	if err == nil {
		err = noBundles(note, from.ID, to.ID)
	}
	var todo []carried
	var seen map[string]int
	if err == nil {
		check := req.CheckFrom
		if req.squash != nil {
			check = req.squash.check(check)
		}
		todo, seen, err = carriedStatements(note, from.ID, check)
		if err == nil && req.squash != nil {
			todo, seen, err = req.squash.within(todo)
		}
	}
	if errors.Is(err, ErrNothingToCarry) {
		if names, ok, derr := carriedBefore(repo, notes, from.ID, to.ID); derr != nil {
			return nil, derr
		} else if ok {
			return &Result{From: from.ID, To: to.ID, Written: []attest.Written{}, AlreadyCarried: names}, nil
		}
	}
	if err != nil {
		return nil, err
	}
	// A squash carry's rewrite check is the range's (checkSquash).
	var overrode string
	if req.squash == nil {
		if overrode, err = checkRewrite(repo, from, to, reach, req.Force); err != nil {
			return nil, err
		}
	}
	items, err := reissued(repo, from.ID, to.ID, todo, seen)
	if err != nil {
		return nil, err
	}
	written, err := attest.Reissue(ctx, repo, notes, to, items, attest.ReissueOptions{Signers: req.Signers, DryRun: req.DryRun, Force: req.Force})
	if err != nil {
		return nil, err
	}
	res := &Result{From: from.ID, To: to.ID, Written: append([]attest.Written{}, written...), Overrode: overrode}
	if req.KeepFrom || req.DryRun {
		return res, nil
	}
	// A From that a branch or tag still holds (the original of a
	// cherry-pick) keeps its statements: they are that history's evidence.
	ref, err := reach.Ref(from.ID)
	if err != nil {
		return nil, err
	}
	if ref != "" {
		res.KeptFromRef = ref
		return res, nil
	}
	// To's note is written: only now remove From's carried lines.
	if err := removeCarried(notes, from.ID, seen); err != nil {
		return res, fmt.Errorf("the statements were written on %s, but removing the carried ones from %s failed: %w (once that is fixed, run the same carry again: the statements on %s count as carried, and only the carried lines are removed from %s's note, other lines kept)", to.ID, from.ID, err, to.ID, from.ID)
	}
	res.RemovedFrom = true
	return res, nil
}

// carriedBefore reports whether the statements of the tasks from ticks are
// on to already ([evidencedOn]), with their subject names.
func carriedBefore(repo *gitref.Repo, notes *gitref.NotesStore, from, to gitref.Hash) ([]string, bool, error) {
	ticks, err := tick.OfCommit(repo, from, nil)
	if err != nil {
		return nil, false, err
	}
	var tasks [][2]string
	for _, t := range ticks {
		if carriesTick(t) && !t.Unrecognized {
			tasks = append(tasks, [2]string{t.ProjectUnit().Dir, t.TaskID})
		}
	}
	ok, names, err := evidencedOn(notes, tasks, to)
	return names, ok, err
}

// carried is one task-verification statement of From's note that [Carry]
// re-issues: its subject name and its predicate.
type carried struct {
	subject string
	p       *predicate.Predicate
}

// carriedStatements reads the task-verification statements of from's note
// about from, one per subject and task line, each passed to check (when not
// nil) before anything is written. seen counts the statements carried per
// subject name. Only DSSE envelope lines are carried ([noBundles] refuses a
// note with a bundle); other lines are not about from or not taskproof's.
func carriedStatements(note []byte, from gitref.Hash, check func(subject string, env *dsse.Envelope) error) (todo []carried, seen map[string]int, err error) {
	seen = map[string]int{}          // subject name → statements carried
	seenLine := map[[2]string]bool{} // subject name, task.line_hash
	for i, line := range noteline.Split(note) {
		l := noteline.Decode(line)
		if l.Kind != noteline.KindEnvelope {
			continue
		}
		env := l.Envelope
		st, err := statement.Decode(env.Payload)
		if err != nil || st.PredicateType != predicate.PredicateType || len(st.Subjects) != 1 ||
			st.Subjects[0].Digest["gitCommit"] != string(from) {
			continue
		}
		// One statement per subject and task line: a tasks file that repeats
		// a task ID has a tick per line under one subject name.
		name := st.Subjects[0].Name
		k := [2]string{name, statement.TaskLineHash(st)}
		if seenLine[k] {
			return nil, nil, fmt.Errorf("%w: the note of %s holds two task-verification statements for %s (line %d)", attest.ErrRequest, from, name, i+1)
		}
		seenLine[k] = true
		seen[name]++
		if check != nil {
			if err := check(name, env); err != nil {
				return nil, nil, fmt.Errorf("carrying %s from %s: %w", name, from, err)
			}
		}
		raw, err := strictjson.Canonical(st.Predicate)
		if err != nil {
			return nil, nil, fmt.Errorf("%s in the note of %s: %w", name, from, err)
		}
		p, err := predicate.Decode(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%s in the note of %s: %w", name, from, err)
		}
		if statement.SubjectName(p.Unit.Feature, p.Task.ID) != name {
			return nil, nil, fmt.Errorf("%w: %s in the note of %s names task %s of %s", attest.ErrRequest, name, from, p.Task.ID, p.Unit.Feature)
		}
		if p.Verdict == predicate.Skipped {
			// A skip record decides for an open task: carried onto a tick it
			// would make the ticked task "skipped", which decide refuses.
			return nil, nil, fmt.Errorf("%w: the note of %s holds a skipped decision for %s (a skip record, made while the task was open), not a tick's evidence: attest the tick instead", attest.ErrRequest, from, name)
		}
		todo = append(todo, carried{name, p})
	}
	if len(todo) == 0 {
		return nil, nil, fmt.Errorf("%w: the note of %s holds no task-verification statement about it", ErrNothingToCarry, from)
	}
	return todo, seen, nil
}

// reissued pairs each carried statement with the tick of to it goes to
// ([carryTick]), for [attest.Reissue].
func reissued(repo *gitref.Repo, from, to gitref.Hash, todo []carried, seen map[string]int) ([]attest.Reissued, error) {
	ticks, err := tick.OfCommit(repo, to, nil)
	if err != nil {
		return nil, err
	}
	items := make([]attest.Reissued, 0, len(todo))
	for _, c := range todo {
		found, err := carryTick(ticks, from, to, c, seen[c.subject])
		if err != nil {
			return nil, err
		}
		items = append(items, attest.Reissued{Subject: c.subject, Tick: *found, Predicate: c.p})
	}
	return items, nil
}

// carryTick is the tick of to (ticks are to's) that the statement c carried
// from from goes to: the tick of c's task in c's unit, and the one of the line
// c is about when to ticks several lines of the task's ID or from's note holds
// several statements (statements) for the subject. It fails with
// [attest.ErrTaskNotTicked].
func carryTick(ticks []tick.Tick, from, to gitref.Hash, c carried, statements int) (*tick.Tick, error) {
	var found *tick.Tick
	var ticked []string
	lines := 0 // the lines of c's task To ticks
	for i, t := range ticks {
		if (t.Kind != tick.KindTick && t.Kind != tick.KindBornTicked) || t.Unrecognized {
			continue // born-ticked tasks are attested like ticks (docs/format.md#born-ticked-tasks)
		}
		ticked = append(ticked, statement.SubjectName(t.Unit.Feature, t.TaskID))
		if t.TaskID == c.p.Task.ID && t.Unit.Dir == c.p.Unit.Dir {
			lines++
			// To ticks several lines of the task's ID: the statement
			// goes to the line it was about (same text, so same
			// line_hash), and to none when there is no such line.
			if lines == 1 || t.LineHash == c.p.Task.LineHash {
				found = &ticks[i]
			}
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: %s does not tick %s (in %s), so the gate would not look for its evidence there (it ticks %v); when FROM's ticks were split over several commits, attest each of them instead (taskproof attest tick --commit %s)",
			attest.ErrTaskNotTicked, to, c.subject, c.p.Unit.Dir, ticked, to)
	}
	if (lines > 1 || statements > 1) && found.LineHash != c.p.Task.LineHash {
		// Several lines on either side: each statement goes to its own.
		return nil, fmt.Errorf("%w: %s ticks %d line(s) of %s (in %s) and none reads as the line %s's statement is about", attest.ErrTaskNotTicked, to, lines, c.subject, c.p.Unit.Dir, from)
	}
	return found, nil
}

// removeCarried removes from from's note the owned lines of the carried
// subjects (seen) that are DSSE envelopes about from; every other line, and
// the lines about other commits `git rebase` copied there, stay.
func removeCarried(notes *gitref.NotesStore, from gitref.Hash, seen map[string]int) error {
	_, err := notes.Update(from, func(old []byte) ([]byte, error) {
		var out []byte
		for _, line := range noteline.Split(old) {
			if st, ok := notemerge.OwnedEnvelopeAbout(line, from); ok && seen[st.Subjects[0].Name] > 0 {
				continue
			}
			out = append(append(out, line...), '\n')
		}
		return out, nil
	})
	return err
}

// CheckNoBundles returns an error wrapping [attest.ErrRequest] when the note of from
// holds a Sigstore bundle (a line [noteline.IsBundle] reports): a carry re-signs
// statements with its own signers and cannot re-issue a bundle, whose
// signature and transparency-log entry are bound to from, so the tick of to
// must be attested again. [Carry] makes this check itself; a caller carrying
// several pairs calls it first to refuse before anything is written.
func CheckNoBundles(notes *gitref.NotesStore, from, to gitref.Hash) error {
	note, err := fromNote(notes, from)
	if err != nil {
		return err
	}
	return noBundles(note, from, to)
}

// checkRewrite refuses a To that is no rewrite of From ([rewrite.Judge],
// docs/format.md#after-a-rebase-or-squash): To neither has From's tree nor
// makes, alone or with the commits before it, the change From's statements
// judged (From's side of their merge base) — another attempt at the task, a
// backport without the code, an amend that changed the work — so From's
// statements never judged To's code. With force it carries all the same and
// returns what it overrode; an earlier tick of the line (From in To's
// history) is refused whatever force says, and so is a From only
// speccoder's attempt refs hold: an attempt carries no evidence.
func checkRewrite(repo *gitref.Repo, from, to *gitref.Commit, reach *gitref.RefReach, force bool) (overrode string, err error) {
	a, err := reach.Attempt(from.ID)
	if err != nil {
		return "", err
	}
	if a != "" {
		return "", fmt.Errorf("%w: FROM %s is a commit of speccoder's attempt %s, which carries no evidence: attest TO's tick instead (taskproof attest tick --commit %s)", attest.ErrRequest, from.ID, a, to.ID)
	}
	j, err := rewrite.Judge(repo, from.ID, to.ID)
	if err != nil {
		return "", err
	}
	switch {
	case j.Accepted:
		return "", nil
	case j.Earlier:
		return "", fmt.Errorf("%w: FROM %s is an ancestor of TO %s, not a rewrite of it: its statements are evidence of an earlier tick, not of TO's; attest TO's tick instead (taskproof attest tick --commit %s)", attest.ErrRequest, from.ID, to.ID, to.ID)
	case force:
		return fmt.Sprintf("TO %s is no rewrite of FROM %s (%s): FROM's statements are re-signed for code they never judged", to.ID, from.ID, j.Why), nil
	}
	held := ""
	ref, err := reach.Ref(from.ID)
	if err != nil {
		return "", err
	}
	if ref != "" {
		held = fmt.Sprintf(" (FROM is still in the history of %s)", ref)
	}
	return "", fmt.Errorf("%w: TO %s is no rewrite of FROM %s%s: %s. FROM's statements never judged TO's code (another attempt at the task, a cherry-pick without the commits before it, an amend that changed the work?): attest TO's tick instead (taskproof attest tick --commit %s); --force carries them anyway", attest.ErrRequest, to.ID, from.ID, held, j.Why, to.ID)
}

// fromNote is FROM's note; a FROM without one has nothing to carry.
func fromNote(notes *gitref.NotesStore, from gitref.Hash) ([]byte, error) {
	note, err := notes.Note(from)
	if errors.Is(err, gitref.ErrNoNote) {
		return nil, fmt.Errorf("%w: %s has no note in %s (attested in another clone? taskproof notes fetch)", ErrNothingToCarry, from, notes.Ref())
	}
	return note, err
}

func noBundles(note []byte, from, to gitref.Hash) error {
	for i, line := range noteline.Split(note) {
		if noteline.IsBundle(line) {
			return fmt.Errorf("%w: the note of %s holds a Sigstore bundle (line %d): a carry cannot re-issue Sigstore bundles; attest %s again instead", attest.ErrRequest, from, i+1, to)
		}
	}
	return nil
}
