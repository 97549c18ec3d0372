package carry

import (
	"context"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
)

// A squash merge ("Squash and merge") makes one commit of a branch's
// commits: the ticks of several tick commits become ticks of that one
// commit, and their statements stay on the branch's commits, which the base
// branch's history does not hold. A pair-wise carry cannot move them: each
// tick commit makes another change than the squash commit, and one command a
// task would be needed. Squash carries them all at once, many to one,
// once it has checked that the squash commit is the squash of exactly that
// range: its change equals the range's combined change
// (docs/format.md#after-a-rebase-or-squash).

// SquashRequest is what `taskproof attest carry BASE..HEAD SQUASH` asks for.
type SquashRequest struct {
	// Base and Head are the squashed range: the commits of Head's history
	// that Base's does not hold (main..feat after the squash).
	Base, Head gitref.Hash
	// Squash is the squash commit: its first parent's tree to its own is
	// the range's combined change.
	Squash gitref.Hash
	// Carry gives what every pair's carry takes (signers, the check of the
	// range's signatures, KeepFrom, DryRun, Force); its From, To and Reach
	// are set per pair.
	Carry Request
}

// SquashResult says what Squash did.
type SquashResult struct {
	Squash gitref.Hash `json:"squash"`
	// MergeBase is where the range's combined change is taken from: the
	// merge base of Base and Head.
	MergeBase gitref.Hash `json:"merge_base"`
	// Carries are the carries made, one per tick commit of the range.
	Carries []*Result `json:"carries"`
	// Done are the range's tick commits whose tasks the squash commit's note
	// holds statements for already (a carry run again).
	Done []Pair `json:"done"`
	// Left are the tasks the squash commit ticks whose evidence was not
	// carried, each with why: no statement, or one whose signatures do not
	// verify. The gate fails them until they are attested on the squash
	// commit.
	Left []SquashGap `json:"left"`
}

// SquashGap is one task of a squash whose evidence was not carried.
type SquashGap struct {
	Task  string `json:"task"` // subject name
	Title string `json:"title,omitempty"`
	// Commit is the range's latest tick of the task ("" when no commit of
	// the range ticks it).
	Commit gitref.Hash `json:"commit,omitempty"`
	Why    string      `json:"why"`
}

// squashScope narrows a [Carry] made by [Squash]: the rewrite was
// checked for the whole range, and only the tasks whose latest tick in the
// range is From are carried (an earlier tick of a task the range ticked
// again holds evidence for code the squash does not have).
type squashScope struct {
	tasks map[[2]string]bool // unit dir, task ID
	names map[string]bool    // their subject names
}

// Squash re-issues on req.Squash the statements of the range's tick
// commits (req.Base..req.Head, first-parent) for every task the squash
// commit ticks, as [Carry] re-issues one commit's: each task's statements
// come from its latest tick in the range. It first checks that the squash
// commit is the squash of the range — a commit with one parent, not holding
// the range in its history, whose change against its first parent equals the
// change from the merge base of Base and Head to Head ([gitref.Repo.PatchID]:
// blob ids and line numbers aside, whitespace included) — and refuses
// ([attest.ErrRequest]) otherwise: then it is another change, and the statements
// never judged its code. Then every task is checked before anything is
// written: a task whose tick commit's note holds no statement for it, or whose
// statements' signatures req.Carry.CheckFrom refuses, is left (res.Left, not
// carried); any other error stops the carry with nothing written. The rest
// are carried one tick commit at a time; a failure then names the carries
// made.
func Squash(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, req SquashRequest) (*SquashResult, error) {
	squash, err := repo.Commit(req.Squash)
	if err != nil {
		return nil, err
	}
	if err := checkSquash(repo, squash, req.Base, req.Head); err != nil {
		return nil, err
	}
	mb, err := repo.MergeBase(req.Base, req.Head)
	if err != nil {
		return nil, err
	}
	res := &SquashResult{Squash: squash.ID, MergeBase: mb, Carries: []*Result{}, Done: []Pair{}, Left: []SquashGap{}}
	pairs, err := squashPairs(repo, notes, req, squash, res)
	if err != nil {
		return nil, err
	}
	if len(pairs) == 0 && len(res.Left) == 0 && len(res.Done) == 0 {
		return nil, fmt.Errorf("%w: %s ticks no task that a commit of the range ticks", ErrNothingToCarry, squash.ID)
	}
	reach, err := repo.RefReach()
	if err != nil {
		return nil, err
	}
	// Every pair is carried dry first: a pair that cannot be carried leaves
	// the squash commit's note as it was.
	for _, p := range pairs {
		r := squashCarry(req.Carry, p, squash.ID, reach)
		r.DryRun, r.Signers = true, nil
		if _, err := Carry(ctx, repo, notes, r); err != nil {
			return nil, fmt.Errorf("checking the carry of %s to %s (%s): %w (nothing was carried)", p.pair.From, squash.ID, strings.Join(p.pair.Tasks, ", "), err)
		}
	}
	for _, p := range pairs {
		c, err := Carry(ctx, repo, notes, squashCarry(req.Carry, p, squash.ID, reach))
		if err != nil {
			var done []string
			for _, d := range res.Carries {
				done = append(done, string(d.From))
			}
			if len(done) == 0 {
				done = []string{"none"}
			}
			return res, fmt.Errorf("carrying %s to %s (%s): %w (carried already from: %s)", p.pair.From, squash.ID, strings.Join(p.pair.Tasks, ", "), err, strings.Join(done, ", "))
		}
		res.Carries = append(res.Carries, c)
	}
	return res, nil
}

// checkSquash refuses a squash commit that is not the squash of base..head
// (see [Squash]).
func checkSquash(repo *gitref.Repo, squash *gitref.Commit, base, head gitref.Hash) error {
	switch len(squash.Parents) {
	case 0:
		return fmt.Errorf("%w: %s is a root commit, not a squash merge", attest.ErrRequest, squash.ID)
	case 1:
	default:
		return fmt.Errorf("%w: %s is a merge commit, not a squash: the commits it merges are in its history, and their ticks keep their evidence where it is", attest.ErrRequest, squash.ID)
	}
	if merged, err := repo.IsAncestor(head, squash.ID); err != nil {
		return err
	} else if merged {
		return fmt.Errorf("%w: %s holds %s in its history: the range was merged or rebased onto it, not squashed; carry a rebased range with taskproof attest carry FROM-RANGE TO-RANGE", attest.ErrRequest, squash.ID, head)
	}
	mb, err := repo.MergeBase(base, head)
	if err != nil {
		return err
	}
	if mb == head {
		return fmt.Errorf("%w: the range %s..%s holds no commit", ErrNothingToCarry, base, head)
	}
	rangeChange, err := repo.PatchID(mb, head)
	if err != nil {
		return err
	}
	squashChange, err := repo.PatchID(squash.FirstParent(), squash.ID)
	if err != nil {
		return err
	}
	if rangeChange == "" || rangeChange != squashChange {
		return fmt.Errorf("%w: the change %s makes (against its first parent %s) is not the combined change of the range (%s..%s, from their merge base %s): it is no squash of exactly these commits, so their statements never judged its code (the range must end at the squashed branch's last commit; compare with git diff %s %s and git show %s); attest its ticks instead (taskproof attest tick --commit %s)",
			attest.ErrRequest, squash.ID, squash.FirstParent(), base, head, mb, mb, head, squash.ID, squash.ID)
	}
	return nil
}

// squashPair is one tick commit of the range carried to the squash commit,
// with the tasks carried from it.
type squashPair struct {
	pair  Pair
	scope *squashScope
}

// squashPairs pairs the range's tick commits with the squash commit by the
// tasks it ticks (each task from its latest tick in the range), recording in
// res the tasks left without evidence and the ones carried already.
func squashPairs(repo *gitref.Repo, notes *gitref.NotesStore, req SquashRequest, squash *gitref.Commit, res *SquashResult) ([]squashPair, error) {
	type task struct{ dir, id string }
	ranged, err := tick.Range(repo, req.Base, req.Head, tick.Options{FirstParent: true})
	if err != nil {
		return nil, err
	}
	latest := map[task]tick.Tick{}
	for _, t := range ranged {
		if carriesTick(t) && !t.Unrecognized {
			latest[task{t.ProjectUnit().Dir, t.TaskID}] = t
		}
	}
	ticked, err := tick.OfCommit(repo, squash.ID, nil)
	if err != nil {
		return nil, err
	}
	byFrom := map[gitref.Hash][]tick.Tick{} // tick commit of the range → the squash's ticks of its tasks
	var order []gitref.Hash
	for _, t := range ticked {
		if !carriesTick(t) || t.Unrecognized {
			continue
		}
		name := statement.SubjectName(t.Unit.Feature, t.TaskID)
		from, ok := latest[task{t.ProjectUnit().Dir, t.TaskID}]
		if !ok {
			res.Left = append(res.Left, SquashGap{Task: name, Title: t.Task.Title, Why: "no commit of the range ticks it"})
			continue
		}
		if _, seen := byFrom[from.Commit]; !seen {
			order = append(order, from.Commit)
		}
		byFrom[from.Commit] = append(byFrom[from.Commit], t)
	}
	var pairs []squashPair
	var onSquash map[[2]string]bool // the tasks the squash commit's note holds statements for
	for _, from := range order {
		has, err := taskSet(notes, from)
		if err != nil {
			return nil, err
		}
		scope := &squashScope{tasks: map[[2]string]bool{}, names: map[string]bool{}}
		var names []string
		for _, t := range byFrom[from] {
			k := [2]string{t.ProjectUnit().Dir, t.TaskID}
			name := statement.SubjectName(t.Unit.Feature, t.TaskID)
			if onSquash == nil {
				if onSquash, err = taskSet(notes, squash.ID); err != nil {
					return nil, err
				}
			}
			switch {
			case onSquash[k] && !req.Carry.Force:
				// The squash commit's note holds statements for the task:
				// carried already (a carry run again), or attested there.
				// Replaced only when forced.
				if n := len(res.Done); n > 0 && res.Done[n-1].From == from {
					res.Done[n-1].Tasks = append(res.Done[n-1].Tasks, name)
				} else {
					res.Done = append(res.Done, Pair{From: from, To: squash.ID, Tasks: []string{name}})
				}
			case has[k]:
				scope.tasks[k], scope.names[name] = true, true
				names = append(names, name)
			default:
				res.Left = append(res.Left, SquashGap{Task: name, Title: t.Task.Title, Commit: from,
					Why: fmt.Sprintf("its tick commit %s holds no statement for it", from)})
			}
		}
		if len(names) == 0 {
			continue
		}
		if err := checkSquashSignatures(notes, from, scope, req.Carry.CheckFrom, byFrom[from], res); err != nil {
			return nil, err
		}
		names = names[:0]
		for _, t := range byFrom[from] {
			if name := statement.SubjectName(t.Unit.Feature, t.TaskID); scope.names[name] {
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			pairs = append(pairs, squashPair{pair: Pair{From: from, To: squash.ID, Tasks: names}, scope: scope})
		}
	}
	return pairs, nil
}

// checkSquashSignatures runs check (nil: none) on the statements from's note
// holds about from for the tasks of scope, and takes out of scope, into
// res.Left, each task a statement of which check refuses: its evidence does
// not verify, so it is not carried.
func checkSquashSignatures(notes *gitref.NotesStore, from gitref.Hash, scope *squashScope, check func(string, *dsse.Envelope) error, ticks []tick.Tick, res *SquashResult) error {
	if check == nil {
		return nil
	}
	note, err := notes.Note(from)
	if err != nil {
		return err
	}
	refused := map[string]error{}
	for _, line := range noteline.Split(note) {
		l := noteline.Decode(line)
		if l.Kind != noteline.KindEnvelope {
			continue
		}
		st, err := statement.Decode(l.Envelope.Payload)
		if err != nil || st.PredicateType != predicate.PredicateType || len(st.Subjects) != 1 || st.Subjects[0].Digest["gitCommit"] != string(from) {
			continue
		}
		name := st.Subjects[0].Name
		if !scope.names[name] || refused[name] != nil {
			continue
		}
		if err := check(name, l.Envelope); err != nil {
			refused[name] = err
		}
	}
	for _, t := range ticks {
		name := statement.SubjectName(t.Unit.Feature, t.TaskID)
		if err := refused[name]; err != nil {
			delete(scope.names, name)
			delete(scope.tasks, [2]string{t.ProjectUnit().Dir, t.TaskID})
			res.Left = append(res.Left, SquashGap{Task: name, Title: t.Task.Title, Commit: from, Why: fmt.Sprintf("the statements on %s: %v", from, err)})
		}
	}
	return nil
}

// squashCarry is the request of one pair of a squash carry.
func squashCarry(base Request, p squashPair, to gitref.Hash, reach *gitref.RefReach) Request {
	r := base
	r.From, r.To, r.Reach, r.squash = p.pair.From, to, reach, p.scope
	return r
}

// within keeps, of the statements carriedStatements read, those of the
// tasks in scope, with their counts.
func (s *squashScope) within(todo []carried) ([]carried, map[string]int, error) {
	var out []carried
	seen := map[string]int{}
	for _, c := range todo {
		if s.tasks[[2]string{c.p.Unit.Dir, c.p.Task.ID}] {
			out = append(out, c)
			seen[c.subject]++
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%w: no statement of the squashed tasks", ErrNothingToCarry)
	}
	return out, seen, nil
}

// check is CheckFrom limited to the subjects of scope: a squash carries
// from a commit only the tasks whose latest tick it is.
func (s *squashScope) check(check func(string, *dsse.Envelope) error) func(string, *dsse.Envelope) error {
	if check == nil {
		return nil
	}
	return func(subject string, env *dsse.Envelope) error {
		if !s.names[subject] {
			return nil
		}
		return check(subject, env)
	}
}

// taskSet is the set of tasks (unit dir, task ID) commit's note holds
// task-verification statements about commit for.
func taskSet(notes *gitref.NotesStore, commit gitref.Hash) (map[[2]string]bool, error) {
	held, _, err := statementTasks(notes, commit)
	if err != nil {
		return nil, err
	}
	out := map[[2]string]bool{}
	for _, k := range held {
		out[k] = true
	}
	return out, nil
}
