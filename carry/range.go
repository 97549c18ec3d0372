package carry

import (
	"errors"
	"fmt"
	"slices"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
)

// Pair is one FROM → TO carry of a range carry: the commit whose note
// holds the statements and the commit of the other range that ticks the same
// tasks.
type Pair struct {
	From gitref.Hash `json:"from"`
	To   gitref.Hash `json:"to"`
	// Tasks are the subject names carried.
	Tasks []string `json:"tasks"`
}

// Plan is what [PairRanges] found.
type Plan struct {
	Pairs []Pair `json:"pairs"`
	// Unattested lists the tick commits of the FROM range whose notes hold no
	// task-verification statement about them (nothing to carry).
	Unattested []gitref.Hash `json:"unattested"`
	// Kept lists the attested tick commits of the FROM range that are the TO
	// range's tick commits themselves (a rebase that left them as they were):
	// their statements are where the gate looks already.
	Kept []gitref.Hash `json:"kept"`
	// Done lists the tick commits of the FROM range whose notes hold no
	// statement about them while the TO commit that ticks their tasks holds a
	// task-verification statement for each: carried already (a carry run
	// again after it was interrupted), or attested there.
	Done []Pair `json:"done"`
}

// PairRanges pairs the tick commits of range FROM (fromBase..fromHead, the
// commits before a rebase: ORIG_HEAD~3..ORIG_HEAD) with those of range TO
// (toBase..toHead, after it: HEAD~3..HEAD) by the tasks they tick: each FROM
// commit whose note holds task-verification statements about it is paired with
// the TO commit that ticks those tasks (same unit dir and task ID; the latest
// tick in TO when a task is ticked more than once; born-ticked tasks as
// ticks). Nothing is written. It
// fails with [attest.ErrTaskNotTicked] when a task has no tick in TO, and with
// [attest.ErrRequest] when one FROM commit's tasks are ticked by several TO commits
// (carry those with `attest carry FROM TO` one at a time) or two FROM commits
// pair with one TO commit for the same task.
func PairRanges(repo *gitref.Repo, notes *gitref.NotesStore, fromBase, fromHead, toBase, toHead gitref.Hash) (*Plan, error) {
	from, err := tick.Range(repo, fromBase, fromHead, tick.Options{FirstParent: true})
	if err != nil {
		return nil, err
	}
	to, err := tick.Range(repo, toBase, toHead, tick.Options{FirstParent: true})
	if err != nil {
		return nil, err
	}
	// A task is keyed as its statements name it: the unit dir relative to
	// the unit's project root.
	type task struct{ dir, id string }
	latest := map[task]gitref.Hash{} // TO: task → its latest tick commit
	for _, t := range to {
		if carriesTick(t) {
			latest[task{t.ProjectUnit().Dir, t.TaskID}] = t.Commit
		}
	}
	plan := &Plan{Pairs: []Pair{}, Unattested: []gitref.Hash{}, Kept: []gitref.Hash{}, Done: []Pair{}}
	ticked := map[gitref.Hash][]task{} // FROM: commit → the tasks it ticks
	for _, t := range from {
		if carriesTick(t) {
			ticked[t.Commit] = append(ticked[t.Commit], task{t.ProjectUnit().Dir, t.TaskID})
		}
	}
	seen := map[gitref.Hash]bool{}
	claimed := map[task]gitref.Hash{} // task → the FROM commit carried to its TO tick
	for _, t := range from {
		if !carriesTick(t) || seen[t.Commit] {
			continue
		}
		seen[t.Commit] = true
		tasks, names, err := statementTasks(notes, t.Commit)
		if err != nil {
			return nil, err
		}
		if len(tasks) == 0 {
			var keys [][2]string
			for _, k := range ticked[t.Commit] {
				keys = append(keys, [2]string{k.dir, k.id})
			}
			target := latest[ticked[t.Commit][0]]
			done, names, err := evidencedOn(notes, keys, target)
			if err != nil {
				return nil, err
			}
			if done && target != t.Commit {
				plan.Done = append(plan.Done, Pair{From: t.Commit, To: target, Tasks: names})
			} else {
				plan.Unattested = append(plan.Unattested, t.Commit)
			}
			continue
		}
		var target gitref.Hash
		for i, k := range tasks {
			c, ok := latest[task{k[0], k[1]}]
			if !ok {
				return nil, fmt.Errorf("%w: %s (in %s), attested on %s, is not ticked in the TO range (dropped by the rebase? carry the other commits one pair at a time: taskproof attest carry FROM TO)", attest.ErrTaskNotTicked, names[i], k[0], t.Commit)
			}
			if target != "" && c != target {
				return nil, fmt.Errorf("%w: the tasks attested on %s are ticked by several commits of the TO range (%s and %s; a split commit?): a carry moves one commit's statements to one commit, so attest those commits' ticks instead (taskproof attest tick --commit %s, and --commit %s)", attest.ErrRequest, t.Commit, target, c, target, c)
			}
			target = c
			if prev, dup := claimed[task{k[0], k[1]}]; dup && prev != t.Commit {
				return nil, fmt.Errorf("%w: %s is attested on both %s and %s of the FROM range; carry the one to keep with `taskproof attest carry FROM %s`", attest.ErrRequest, names[i], prev, t.Commit, c)
			}
			claimed[task{k[0], k[1]}] = t.Commit
		}
		if target == t.Commit {
			plan.Kept = append(plan.Kept, t.Commit) // the same commit in both ranges: nothing to carry
			continue
		}
		plan.Pairs = append(plan.Pairs, Pair{From: t.Commit, To: target, Tasks: names})
	}
	return plan, nil
}

// carriesTick reports whether a range carry pairs by tick t: a task ticked,
// or ticked in a tasks file new in its commit (born ticked, attested as a
// tick).
func carriesTick(t tick.Tick) bool {
	return t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked
}

// statementTasks returns the (unit dir, task ID) and subject name of each
// task-verification statement commit's note holds about commit, once each.
func statementTasks(notes *gitref.NotesStore, commit gitref.Hash) ([][2]string, []string, error) {
	note, err := notes.Note(commit)
	if err != nil {
		if isNoNote(err) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	var tasks [][2]string
	var names []string
	seen := map[[2]string]bool{}
	for _, l := range noteline.Split(note) {
		st, _, ok := statement.FromLine(l)
		if !ok || st.PredicateType != predicate.PredicateType || st.Subjects[0].Digest["gitCommit"] != string(commit) {
			continue
		}
		p, _ := st.Predicate.(map[string]any)
		unit, _ := p["unit"].(map[string]any)
		tk, _ := p["task"].(map[string]any)
		dir, _ := unit["dir"].(string)
		id, _ := tk["id"].(string)
		k := [2]string{dir, id}
		if id == "" || seen[k] {
			continue
		}
		seen[k] = true
		tasks, names = append(tasks, k), append(names, st.Subjects[0].Name)
	}
	return tasks, names, nil
}

// evidencedOn reports whether the note of to ("" for none) holds a
// task-verification statement about to for each task (unit dir, task ID) of
// tasks, and returns their subject names: FROM's statements for them were
// carried there already, or TO was attested itself.
func evidencedOn(notes *gitref.NotesStore, tasks [][2]string, to gitref.Hash) (bool, []string, error) {
	if to == "" || len(tasks) == 0 {
		return false, nil, nil
	}
	held, names, err := statementTasks(notes, to)
	if err != nil {
		return false, nil, err
	}
	name := map[[2]string]string{}
	for i, k := range held {
		name[k] = names[i]
	}
	var out []string
	for _, k := range tasks {
		n, ok := name[k]
		if !ok {
			return false, nil, nil
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return true, out, nil
}

func isNoNote(err error) bool {
	return errors.Is(err, gitref.ErrNoNote) || errors.Is(err, gitref.ErrNotesRefAbsent)
}
