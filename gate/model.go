package gate

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/lineage"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// The gate's model (docs/format.md#the-gates-model) in the gate. The stages,
// in the order branch runs them:
//
//   - the tick walk, indexed by lineage as it goes (model: Range and Lineage:
//     gate.walk, gate.walkToSpool);
//   - traceHead: every task head holds checked, traced to its origins and to
//     where it comes into the range from the base's history (model: Origins), and
//     the base's hold on those checked (model: Requirements);
//   - the walk's ticks judged in order, each by its role (roleOf): an origin
//     needs its evidence (model: Evidence), a tick no line head holds comes from is
//     superseded, a merge's repeat of what another parent holds is not the
//     merge's;
//   - judgeOrigins: the origins no tick of the walk is (a merge checking
//     again what a parent took back), judged the same way;
//   - evidenceKiroParents: the Kiro parents of the model's Evidence;
//   - notHeld: the lines the base does not hold (model: Requirements).

// role is what a tick of the walk is to the lines head holds (model: Origins).
type role uint8

const (
	// roleOrigin: an origin of a line head holds checked: judged, and its
	// failure fails the gate (model: Requirements).
	roleOrigin role = iota
	// roleSuperseded: a tick no line head holds comes from (unticked, edited
	// or removed later, or on a side head does not come from): judged, never
	// failing.
	roleSuperseded
	// roleBroughtIn: a merge's change against its first parent that another
	// of its parents holds: not the merge's tick, and not reported.
	roleBroughtIn
	// roleRechecks: an origin no tick of the walk is, a merge checking a
	// line again that its first parent holds (judgeOrigins): judged as an
	// origin, its fix unticking and ticking again (attest tick, comparing
	// the merge with its first parent, finds nothing to attest).
	roleRechecks
)

// headLine is a task head holds checked (model: Requirements): where it is, and
// where it comes from.
type headLine struct {
	task     lineage.Task
	title    string
	unit     specfmt.Unit
	line     int
	lineHash string
	origins  []*originAt
	// fromBase: the line comes into the range from the base's history
	// somewhere (lineage.Result.Entries); notHeld are those entries where the
	// base does not hold it checked with its line.
	fromBase bool
	notHeld  []lineage.Entry
	// elsewhere are its origins the line comes from through a move onto a
	// path where the base has a unit's tasks file, by a commit whose parents
	// had none there (model step 4, lineage.Origin.MovedOver): ticks of
	// another unit, moved over the base's.
	elsewhere []*originAt
}

// originAt is an origin of one or more of head's lines (model: Origins).
type originAt struct {
	commit   gitref.Hash
	task     lineage.Task
	kind     lineage.Kind
	reopens  bool
	newFile  bool
	lineHash string
	// judged: a tick of the walk is this origin, or judgeOrigins judged it;
	// result is where its result is (evidenceKiroParents reads it back).
	judged bool
	heads  []int // indices into gate.heads
}

// originKey names an origin: its commit and its task there.
type originKey struct {
	commit gitref.Hash
	task   lineage.Task
}

// traceHead is the model's Origins and Requirements for every task head holds checked in a
// unit's tasks file: its origins (g.origins, g.heads) and the lines the base
// does not hold. A file the base holds as head does, at a path no commit of
// the range touches, comes whole from the base: its lines are held. Files
// head cannot read are left to the head check (headFiles).
func (g *gate) traceHead() error {
	g.origins = map[originKey]*originAt{}
	if err := g.lin.Finish(); err != nil {
		return err
	}
	rf, err := g.files()
	if err != nil {
		return err
	}
	baseAt := map[string]int{}
	g.baseUnrecognized = map[string]bool{}
	for i, f := range rf.base {
		switch {
		case f.Irregular != "":
		case f.Unrecognized:
			g.baseUnrecognized[f.Path] = true
		default:
			baseAt[f.Path] = i
		}
	}
	basePaths := make([]string, 0, len(baseAt))
	for p := range baseAt {
		basePaths = append(basePaths, p)
	}
	g.lin.SetBase(basePaths)
	baseTasks := map[string]*keyedTasks{}
	var baseChecked map[string][]string // checkedKey → the base's paths with it, read on first need
	baseFile := func(path string) *keyedTasks {
		kt, ok := baseTasks[path]
		if !ok {
			i := baseAt[path]
			if tf, err := g.v.ParseTasksOnce(rf.base[i].Unit, rf.base[i].Content); err == nil {
				kt = keyTasks(tf)
			}
			baseTasks[path] = kt
		}
		return kt
	}
	checkedAt := func(path string, t lineage.Task, ht specfmt.Task) bool {
		if _, ok := baseAt[path]; !ok {
			return false
		}
		x, ok := baseFile(path).find(t.ID, t.Nth)
		return ok && x.Ticked() && x.Same(ht)
	}
	// holds is the hold of the base (model: Requirements) on head's line t (read as
	// open: open) where it comes into the range at entry e: the base's file
	// at t's path has it checked; or, the base having no tasks file there,
	// a task of the base with t's key checked with the line comes from e's.
	holds := func(t lineage.Task, ht specfmt.Task, e lineage.Entry) (bool, error) {
		if _, ok := baseAt[t.Path]; ok {
			return checkedAt(t.Path, t, ht), nil
		}
		if baseChecked == nil {
			baseChecked = map[string][]string{}
			for path := range baseAt {
				kt := baseFile(path)
				if kt == nil {
					continue
				}
				for i, x := range kt.tasks {
					if x.Ticked() {
						k := checkedKey(x.ID, kt.nth[i], x)
						baseChecked[k] = append(baseChecked[k], path)
					}
				}
			}
		}
		for _, path := range baseChecked[checkedKey(t.ID, t.Nth, ht)] {
			ok, err := g.lin.Comes(e.Commit, e.Path, g.rep.Base, lineage.Task{Path: path, ID: t.ID, Nth: t.Nth})
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
	for j, f := range rf.head {
		if f.Irregular != "" || f.Unrecognized || (rf.unchanged[j] && !g.lin.Touched(f.Path)) {
			continue
		}
		tf, err := g.v.ParseTasksOnce(f.Unit, f.Content)
		if err != nil {
			continue
		}
		var byFile *lineage.Result
		kt := keyTasks(tf)
		for i, t := range tf.Tasks {
			if !t.Ticked() {
				continue
			}
			lt := lineage.Task{Path: f.Path, ID: t.ID, Nth: kt.nth[i]}
			var res lineage.Result
			if !g.lin.Keyed(t.ID) && byFile == nil {
				r, err := g.lin.TraceFile(g.head, f.Path)
				if err != nil {
					return err
				}
				byFile = &r
			}
			if g.lin.Keyed(t.ID) || len(byFile.Entries) > 1 {
				// A line a commit of the range changes, or one coming into
				// the range at several commits (which one parent may have
				// taken back and ticked again), traced on its own.
				if res, err = g.lin.Trace(g.head, lt); err != nil {
					return err
				}
			} else {
				res = *byFile
			}
			hl := headLine{task: lt, title: t.Title, unit: f.Unit, line: t.LineNo, lineHash: predicate.LineHash(t.OpenLine()), fromBase: len(res.Entries) > 0}
			for _, e := range res.Entries {
				held, err := holds(lt, t, e)
				if err != nil {
					return err
				}
				if !held {
					e.ID, e.Nth = lt.ID, lt.Nth
					hl.notHeld = append(hl.notHeld, e)
				}
			}
			for _, o := range res.Origins {
				k := originKey{o.Commit, lineage.Task{Path: o.Path, ID: lt.ID, Nth: lt.Nth}}
				oa := g.origins[k]
				if oa == nil {
					oa = &originAt{commit: o.Commit, task: k.task, kind: o.Kind, reopens: o.Reopens, newFile: o.NewFile, lineHash: hl.lineHash}
					g.origins[k] = oa
				}
				oa.heads = append(oa.heads, len(g.heads))
				hl.origins = append(hl.origins, oa)
				if o.MovedOver {
					hl.elsewhere = append(hl.elsewhere, oa)
				}
			}
			g.heads = append(g.heads, hl)
		}
	}
	return nil
}

// checkedKey keys a checked task by its key, its line read as open and its
// text (specfmt.Task.Same).
func checkedKey(id string, nth int, t specfmt.Task) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s", id, nth, t.OpenLine(), t.Text)
}

// keyedTasks are a tasks file's tasks with their keys' occurrence numbers
// (lineage.Task.Nth).
type keyedTasks struct {
	tasks []specfmt.Task
	nth   []int
	at    map[lineage.Task]int // ID and Nth (Path "") → index
}

func keyTasks(tf *specfmt.TasksFile) *keyedTasks {
	kt := &keyedTasks{tasks: tf.Tasks, nth: make([]int, len(tf.Tasks)), at: make(map[lineage.Task]int, len(tf.Tasks))}
	seen := map[string]int{}
	for i, t := range tf.Tasks {
		seen[t.ID]++
		kt.nth[i] = seen[t.ID]
		kt.at[lineage.Task{ID: t.ID, Nth: seen[t.ID]}] = i
	}
	return kt
}

func (kt *keyedTasks) find(id string, nth int) (specfmt.Task, bool) {
	if kt == nil {
		return specfmt.Task{}, false
	}
	i, ok := kt.at[lineage.Task{ID: id, Nth: nth}]
	if !ok {
		return specfmt.Task{}, false
	}
	return kt.tasks[i], true
}

// roleOf is tick t's role (model: Origins). Ticks of other kinds, and ticks in
// tasks files no unit's (judged as such), are origins: their judging does
// not ask.
func (g *gate) roleOf(t tick.Tick) (role, error) {
	switch t.Kind {
	case tick.KindTick, tick.KindBornTicked, tick.KindEdit:
	default:
		return roleOrigin, nil
	}
	if t.Unrecognized {
		return roleOrigin, nil
	}
	lt := lineage.Task{Path: t.Path, ID: t.TaskID, Nth: t.Nth}
	if oa := g.origins[originKey{t.Commit, lt}]; oa != nil {
		// (A merge reopening a line a parent holds is an origin too.)
		oa.judged = true
		return roleOrigin, nil
	}
	if t.Merge {
		isTick, err := g.lin.IsTick(t.Commit, lt)
		if err != nil {
			return 0, err
		}
		if !isTick {
			return roleBroughtIn, nil
		}
	}
	return roleSuperseded, nil
}

// originKind is the kind of origin tick t is (0 when it is none).
func (g *gate) originKind(t tick.Tick) lineage.Kind {
	if oa := g.origins[originKey{t.Commit, lineage.Task{Path: t.Path, ID: t.TaskID, Nth: t.Nth}}]; oa != nil {
		return oa.kind
	}
	return 0
}

// judgeOrigins judges the origins no tick of the walk is (model: Evidence): a
// merge that checks a line again that one of its parents took back, while
// its first parent has it checked, shows no tick against its first parent
// (so `attest tick` finds none there either: hintMergeRechecks); and, with
// no base, the root commit's checked tasks. Their results follow the walk's
// ticks in the report.
func (g *gate) judgeOrigins() error {
	var ts []tick.Tick
	for _, oa := range g.originList() {
		if oa.judged {
			continue
		}
		oa.judged = true
		t, ok, err := tick.TaskAt(g.v.Repo, oa.commit, oa.task.Path, oa.task.ID, oa.task.Nth, g.layouts)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("the merge gate traced %s line %d of %s to %s, which has no such task", oa.task.ID, oa.task.Nth, oa.task.Path, oa.commit)
		}
		switch {
		case oa.kind == lineage.KindEdit:
			t.Kind = tick.KindEdit
		case oa.kind == lineage.KindBorn && oa.newFile:
			// A root commit's tasks file (with no base, the root's checked
			// tasks are origins): born ticked, as in a file a commit adds.
			t.Kind, t.Born = tick.KindBornTicked, true
		case oa.kind == lineage.KindBorn:
			t.Born = true
		}
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil
	}
	readNote, err := g.v.Notes.NoteReader(len(ts))
	if err != nil {
		return err
	}
	hints := map[gitref.Hash]verify.TaskHints{}
	var commits []gitref.Hash
	for _, t := range ts {
		if _, ok := hints[t.Commit]; !ok {
			hints[t.Commit] = verify.TaskHints{}
			commits = append(commits, t.Commit)
		}
		hints[t.Commit].AddTick(t)
	}
	objects, err := g.v.checkObjects(commits, hints, g.head, readNote)
	if err != nil {
		return err
	}
	for c, o := range objects {
		g.objects[c] = o
	}
	for _, t := range ts {
		r := roleOrigin
		if t.Merge {
			r = roleRechecks
		}
		if err := g.judgeTick(t, r); err != nil {
			return err
		}
		if g.rep.Spooled() {
			if err := g.rep.SpoolJudged(); err != nil {
				return err
			}
		}
	}
	for _, c := range commits {
		delete(g.objects, c)
	}
	return nil
}

// originList is g.origins in the order of head's lines.
func (g *gate) originList() []*originAt {
	var out []*originAt
	seen := map[*originAt]bool{}
	for _, hl := range g.heads {
		for _, oa := range hl.origins {
			if !seen[oa] {
				seen[oa] = true
				out = append(out, oa)
			}
		}
	}
	return out
}

// notHeld reports, for each line head holds checked that comes into the
// range from the base's history where the base does not hold it (model:
// Requirements), a failing result at head naming it.
func (g *gate) notHeld() {
	for _, hl := range g.heads {
		if len(hl.notHeld) == 0 && len(hl.elsewhere) == 0 {
			continue
		}
		tr := verify.TickResult{Commit: g.head, Path: hl.task.Path, Line: hl.line, Unit: hl.unit, TaskID: hl.task.ID, LineHash: hl.lineHash,
			Task: statement.SubjectName(hl.unit.Feature, hl.task.ID), Title: hl.title, Reasons: []verify.Reason{}, Signers: []trust.Signer{},
			Status: verify.StatusUnverifiable, Reason: verify.ReasonTickedWithoutEvidence, Failing: true}
		if len(hl.notHeld) == 0 {
			// Step 4: the base has this unit's tasks file at the path; a tick
			// made in another file and moved here is another unit's.
			var from []string
			for _, oa := range hl.elsewhere {
				from = append(from, printable.Short(string(oa.commit))+" ("+oa.task.Path+")")
			}
			tr.HintKey = verify.HintTickedInAnotherUnit
			tr.Message = fmt.Sprintf("%s:%d: task %s is checked at head in the tasks file the base has at this path, but was ticked in another tasks file, %s, and moved here: a tick of another unit is no evidence for this one", hl.task.Path, hl.line, hl.task.ID, strings.Join(from, ", "))
			g.rep.Ticks = append(g.rep.Ticks, tr)
			continue
		}
		var from []string
		for _, e := range hl.notHeld {
			s := printable.Short(string(e.Commit))
			if e.Path != hl.task.Path {
				s += " (" + e.Path + ")"
			}
			from = append(from, s)
		}
		switch {
		case g.baseUnrecognized[hl.task.Path]:
			// A project root or layout the range adds made the file a unit's.
			tr.HintKey = verify.HintUntickedInRange
			tr.Message = fmt.Sprintf("%s:%d: task %s is checked at head; at the base its box was checked only in a file that was no unit's tasks file (unrecognized), never judged as a tick, and no evidenced tick of the range covers it", hl.task.Path, hl.line, hl.task.ID)
		case len(hl.origins) == 0:
			tr.HintKey = verify.HintUntickedInRange
			tr.Message = fmt.Sprintf("%s:%d: task %s is checked at head and not at the base, and no commit of the range ticks it: it comes ticked from %s, outside the range (a branch or a merged commit that ticked it before the base reopened it, or a tasks file moved over one the base has open)", hl.task.Path, hl.line, hl.task.ID, strings.Join(from, ", "))
		default:
			tr.Message = fmt.Sprintf("%s:%d: task %s is checked at head and comes, besides ticks of the range, from %s outside the range, which the base does not hold checked", hl.task.Path, hl.line, hl.task.ID, strings.Join(from, ", "))
		}
		g.rep.Ticks = append(g.rep.Ticks, tr)
	}
}

// originResultKey names a judged origin's result: its commit, path, task ID
// and line_hash.
type originResultKey struct {
	commit             gitref.Hash
	path, id, lineHash string
}

// evidenceKiroParents is the Kiro parents of the model's Evidence: an origin of a Kiro
// task without a statement of its own (ticked_without_evidence, or
// commit_unreachable: another commit's note has one) is
// evidenced, Via naming its descendants at the origin, when the task has
// descendants in its tasks file at the origin (the tasks whose chain of
// parents reaches it, specfmt.Task.Parent; its ID naming one line there),
// every descendant there is checked there, every descendant it had open in
// an earlier version of that file is still one (keepsOpenDescendants), and
// every descendant there or in the file at head of a line head holds from
// this origin is checked at head, with origins all in the range, each a
// tick of it as the task's descendant (descendantAt) and each evidenced (by
// its statement, or by this rule: the pass repeats until nothing changes).
// Files that cannot be read leave the origin failing.
func (g *gate) evidenceKiroParents() {
	rep := g.rep
	byResult := map[originResultKey]*originAt{}
	for _, oa := range g.origins {
		byResult[originResultKey{oa.commit, oa.task.Path, oa.task.ID, oa.lineHash}] = oa
	}
	headAt := map[lineage.Task]int{}
	for i, hl := range g.heads {
		headAt[hl.task] = i
	}
	kept := map[originResultKey]bool{} // keepsOpenDescendants, asked once an origin
	g.openAt, g.openOf, g.ids = map[tasksVersion]openIndex{}, map[[sha256.Size]byte]openIndex{}, map[string]string{}
	for changed := true; changed; {
		changed = false
		evidenced := map[*originAt]bool{}
		rep.EachTick(func(t *verify.TickResult) {
			if oa := byResult[originResultKey{t.Commit, t.Path, t.TaskID, t.LineHash}]; oa != nil && t.Status == verify.StatusEvidenced {
				evidenced[oa] = true
			}
		})
		headEvidenced := func(i int) bool {
			// A line coming into the range from the base's history is the
			// base's there: not evidenced in the range.
			hl := g.heads[i]
			if hl.fromBase || len(hl.origins) == 0 {
				return false
			}
			for _, oa := range hl.origins {
				// A sub-task born ticked vouches for nothing: only a tick
				// of a task open before is one the range judged.
				if !evidenced[oa] || oa.kind != lineage.KindTick {
					return false
				}
			}
			return true
		}
		rep.EachTick(func(t *verify.TickResult) {
			if !t.Unit.Format.Kin(specfmt.Kiro) || (t.Reason != verify.ReasonTickedWithoutEvidence && t.Reason != verify.ReasonCommitUnreachable) {
				return
			}
			oa := byResult[originResultKey{t.Commit, t.Path, t.TaskID, t.LineHash}]
			if oa == nil {
				return
			}
			at, err := g.v.TasksAt(t.Commit, t.Path, t.Unit)
			if err != nil {
				return
			}
			if _, err := at.Lookup(t.TaskID); err != nil {
				return // a repeated ID: its descendants cannot be told apart
			}
			descAt := descendants(at.Tasks, t.TaskID)
			if len(descAt) == 0 {
				return
			}
			var via []string
			for _, d := range descAt {
				if !d.Ticked() {
					return
				}
				via = append(via, statement.SubjectName(t.Unit.Feature, d.ID))
			}
			// A descendant open in an earlier version of the file that the
			// origin's comes from, in the range or where it enters it, is
			// still a descendant here: work the parent had open is done.
			kk := originResultKey{t.Commit, t.Path, t.TaskID, t.LineHash}
			keeps, ok := kept[kk]
			if !ok {
				keeps = g.keepsOpenDescendants(t.Commit, t.Path, t.TaskID, descAt)
				kept[kk] = keeps
			}
			if !keeps {
				return
			}
			for _, i := range oa.heads {
				hl := g.heads[i]
				hf, err := g.v.TasksAt(g.head, hl.task.Path, hl.unit)
				if err != nil {
					return
				}
				for _, d := range append(descendants(hf.Tasks, t.TaskID), descAt...) {
					h, err := hf.Lookup(d.ID)
					if err != nil || !h.Ticked() {
						return
					}
					j, ok := headAt[lineage.Task{Path: hl.task.Path, ID: d.ID, Nth: 1}]
					if !ok || !headEvidenced(j) {
						return
					}
					// A sub-task vouches only for the parent it was ticked
					// under: one ticked under another and moved here is
					// that other's work.
					for _, do := range g.heads[j].origins {
						if !g.descendantAt(do.commit, do.task.Path, t.TaskID, d.ID) {
							return
						}
					}
				}
			}
			if t.Reason == verify.ReasonCommitUnreachable {
				// Another commit's statement is not what evidences it.
				t.SameTreeAs, t.Evidence, t.EvidenceOn = "", t.Commit, nil
			}
			t.Status, t.Reason, t.Failing, t.Via, t.HintKey = verify.StatusEvidenced, "", false, via, ""
			t.Message = fmt.Sprintf("a parent task, evidenced through its sub-tasks %s", strings.Join(via, ", "))
			changed = true
		})
	}
}

// descendants are the tasks of a file (in file order) whose chain of
// parents reaches the task with ID id. A parent is above its sub-tasks, so
// one pass finds every generation.
func descendants(tasks []specfmt.Task, id string) []specfmt.Task {
	in := map[string]bool{id: true}
	var out []specfmt.Task
	for _, t := range tasks {
		if t.Parent != "" && in[t.Parent] && t.ID != id {
			in[t.ID] = true
			out = append(out, t)
		}
	}
	return out
}

// keepsOpenDescendants reports whether every descendant of task id open in
// an earlier version of the tasks file commit has at path — at each commit
// of the range the file comes through on its way to commit, and at each
// commit outside the range where it comes in (model: Lineage) — is among
// desc, the task's descendants at commit. A version that cannot be read
// answers false.
func (g *gate) keepsOpenDescendants(commit gitref.Hash, path, id string, desc []specfmt.Task) bool {
	at := make(map[string]bool, len(desc))
	for _, d := range desc {
		at[d.ID] = true
	}
	seen := map[tasksVersion]bool{}
	todo := []lineage.Earlier{{Commit: commit, Path: path, InRange: true}}
	for len(todo) > 0 {
		e := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if e.Commit != commit {
			open, ok := g.openDescendantsAt(tasksVersion{e.Commit, e.Path})
			if !ok {
				return false
			}
			if open == nil {
				continue // new at the commit after: no earlier version
			}
			for _, d := range open[id] {
				if !at[d] {
					return false
				}
			}
		}
		if !e.InRange {
			continue
		}
		ps, err := g.lin.ParentPaths(e.Commit, e.Path)
		if err != nil {
			return false
		}
		for _, p := range ps {
			if v := (tasksVersion{p.Commit, p.Path}); !seen[v] {
				seen[v] = true
				todo = append(todo, p)
			}
		}
	}
	return true
}

// tasksVersion is a tasks file at a commit.
type tasksVersion struct {
	commit gitref.Hash
	path   string
}

// openDescendantsAt indexes the open tasks of the tasks file at v under
// each of their ancestors (a task ID → the IDs of its open descendants):
// keepsOpenDescendants reads every version of a file for every parent, so
// each version is read once and each content parsed once. nil with ok when
// there is no file at v; not ok when it cannot be read.
func (g *gate) openDescendantsAt(v tasksVersion) (map[string][]string, bool) {
	if x, ok := g.openAt[v]; ok {
		return x.open, x.ok
	}
	x := g.readOpenDescendants(v)
	g.openAt[v] = x
	return x.open, x.ok
}

// intern returns the one copy of a task ID the indexes of every version
// share: a substring of one version's parse would keep that version's
// whole file alive, for every version of a long range.
func (g *gate) intern(id string) string {
	if s, ok := g.ids[id]; ok {
		return s
	}
	s := strings.Clone(id)
	g.ids[s] = s
	return s
}

// openIndex is openDescendantsAt's answer for a version.
type openIndex struct {
	open map[string][]string
	ok   bool
}

func (g *gate) readOpenDescendants(v tasksVersion) openIndex {
	u, kind := g.layouts.Classify(v.path)
	if kind != specfmt.UnitTasksFile {
		return openIndex{ok: true} // no unit's file: lineage does not follow it
	}
	b, err := g.v.Repo.File(v.commit, v.path)
	if errors.Is(err, gitref.ErrNotFound) {
		return openIndex{ok: true}
	}
	if err != nil {
		return openIndex{}
	}
	sum := sha256.Sum256(b)
	if x, ok := g.openOf[sum]; ok {
		return x
	}
	tf, err := g.v.ParseTasksOnce(u, b)
	if err != nil {
		g.openOf[sum] = openIndex{}
		return openIndex{}
	}
	first := make(map[string]string, len(tf.Tasks)) // an ID → its first line's parent
	for _, t := range tf.Tasks {
		if _, ok := first[t.ID]; !ok {
			first[t.ID] = t.Parent
		}
	}
	x := openIndex{open: map[string][]string{}, ok: true}
	for _, t := range tf.Tasks {
		if t.Ticked() {
			continue
		}
		for p, steps := t.Parent, 0; p != "" && steps <= len(tf.Tasks); p, steps = first[p], steps+1 {
			if p != t.ID {
				k := g.intern(p)
				x.open[k] = append(x.open[k], g.intern(t.ID))
			}
		}
	}
	g.openOf[sum] = x
	return x
}

// descendantAt reports whether the task sub is a descendant of task id in
// the tasks file commit has at path.
func (g *gate) descendantAt(commit gitref.Hash, path, id, sub string) bool {
	u, kind := g.layouts.Classify(path)
	if kind != specfmt.UnitTasksFile {
		return false
	}
	tf, err := g.v.TasksAt(commit, path, u)
	if err != nil {
		return false
	}
	for _, d := range descendants(tf.Tasks, id) {
		if d.ID == sub {
			return true
		}
	}
	return false
}
