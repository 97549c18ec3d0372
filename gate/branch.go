package gate

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/internal/repocache"
	"github.com/taskproof/taskproof/lineage"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/trailer"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// Branch runs the merge gate over base..head, as its model says
// (docs/format.md#the-gates-model): every task head holds checked is traced
// to the ticks its line comes from, by ancestry; each such tick of the range
// (a tick, an edit, a task born ticked, a merge checking a line again) must
// be evidenced by its commit's note, and a line coming from the base's
// history must be held by the base. Every tick of the range (merges included)
// is reported: evidenced, stale or unverifiable when head's lines come from
// it, superseded (not failing) when none does, not at all when a merge
// brings it in from a side. A born-ticked task the policy allows is listed in
// Report.BornTicked. Ticks in unrecognized tasks files and links or
// submodules at tasks-file positions fail (docs/format.md#gate-rules). A
// notes ref absent locally is an error wrapping gitref.ErrNotesRefAbsent,
// never a pass.
//
// The Report holds every tick and object in memory (its JSON encoding is
// about 1.3 KB a tick); BranchSpooled holds most of it out of memory.
func Branch(v *verify.Verifier, base, head gitref.Hash, opts verify.GateOptions) (*verify.Report, error) {
	return (&verifier{v}).branch(base, head, opts, false)
}

// BranchSpooled is Branch with the report's objects judged with the ticks
// written, as WriteJSON writes them, to a temporary file (os.TempDir) as they
// are judged, not held in memory: Report.Objects holds only those judged after
// the ticks (a bug task's). The walk's ticks are spooled too, and judged back
// from the spool a window of commits at a time; each judged tick goes whole to
// a third temporary file, and Report.Ticks holds only the ticks added after
// the judging (bug tasks', the origins no tick of the walk is, the lines the
// base does not hold, head's files'): Report.TickCount counts them
// all. Held in memory: a compact index of the spooled ticks (about 90 bytes a
// tick: commit, unit, path, task ID, line_hash, status, reason, verdict and
// the rare warnings, policy results and Via the passes after the judging read
// or change), unticks and born-ticked tasks, the walk's moves and unticks,
// and the policy results of the objects a later pass looks up
// (SpoolJudged). The writers read the ticks back from their file; WriteJSON
// writes the spooled objects first; the other writers do not read a branch
// report's objects. The caller must Close the report.
func BranchSpooled(v *verify.Verifier, base, head gitref.Hash, opts verify.GateOptions) (*verify.Report, error) {
	return (&verifier{v}).branch(base, head, opts, true)
}

func (v *verifier) branch(base, head gitref.Hash, opts verify.GateOptions, spool bool) (rep *verify.Report, err error) {
	if err := v.Ready(verify.Verified{Range: true, Base: base, Head: head}); err != nil {
		return nil, err
	}
	if _, err := v.Notes.Head(); err != nil {
		return nil, err
	}
	g := v.newGate(base, head, opts)
	if !spool {
		if err := g.walk(); err != nil {
			return nil, err
		}
	} else {
		if err := g.rep.Spool(); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				g.rep.Close()
			}
		}()
	}
	// The stages are the model's (docs/format.md#the-gates-model, model.go;
	// the conclusion is its Verdict, concludeBranch):
	// the walk indexed by lineage (model: Range and Lineage), head's lines traced (model: Origins and Requirements),
	// the walk's ticks judged by their role (model: Evidence), the origins no tick of
	// the walk is, Kiro parents, and the lines the base does not hold.
	if spool {
		if err := g.walkAndJudgeSpooled(); err != nil {
			return nil, err
		}
	} else {
		if err := g.traceHead(); err != nil {
			return nil, err
		}
		if err := g.judgeTicks(); err != nil {
			return nil, err
		}
	}
	if err := g.judgeOrigins(); err != nil {
		return nil, err
	}
	rep = g.rep
	// A merge compared with its other parents (model: Range) may move a unit
	// out that its first parent lacks.
	for _, t := range g.lin.MovedOut() {
		if k := movedOutKey(t); !g.movedOut[k] {
			g.movedOut[k] = true
			rep.Ticks = append(rep.Ticks, movedOut(t))
		}
	}
	g.evidenceKiroParents()
	if err := v.bugTicks(rep, g.trailers, opts); err != nil {
		return nil, err
	}
	g.notHeld()
	rf, err := g.files()
	if err != nil {
		return nil, err
	}
	// The range's objects are read: what the head check holds (head's files,
	// one parse at a time) is the gate's last peak of memory.
	repocache.Drop(v.Repo)
	g.lin, g.origins, g.heads = nil, nil, nil
	v.headFiles(rep, rf, g.irregular)
	v.ApplyPolicy(rep)
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
	verify.AddHints(rep, opts)
	concludeBranch(rep)
	return rep, nil
}

// gate is one run of the merge gate over a range (Branch): the walk's ticks
// and what judging them in order needs.
type gate struct {
	// openAt and openOf are the tasks files' open tasks by ancestor, by
	// version and by content (openDescendantsAt).
	openAt  map[tasksVersion]openIndex
	openOf  map[[sha256.Size]byte]openIndex
	ids     map[string]string // task IDs, one copy each (intern)
	v       *verifier
	head    gitref.Hash
	opts    verify.GateOptions
	layouts *specfmt.Layouts
	ticks   []tick.Tick
	twins   map[string]bool
	rep     *verify.Report

	// lin is the walk indexed by lineage (model: Range and Lineage); heads are the
	// tasks head holds checked and origins where they come from (steps
	// 3–4: traceHead).
	lin     *lineage.History
	heads   []headLine
	origins map[originKey]*originAt
	// baseUnrecognized marks the base's files named tasks.md that were no
	// unit's (their messages say so).
	baseUnrecognized map[string]bool

	// tickCommits are the commits whose objects are verified, in the order of
	// their first tick, firstTick the index of that tick; lastTick the index
	// of each one's last tick. objects holds the checked objects of the
	// commits whose ticks are being judged (judgeTicks).
	tickCommits []gitref.Hash
	firstTick   []int
	lastTick    map[gitref.Hash]int
	objects     map[gitref.Hash]*checkedObject
	lastObject  int // the index in rep.Objects of the last tick's object

	elsewhere *subjectIndex // every note's statements, read at the first tick without evidence
	// reach is which commits the refs hold, read at the first tick whose
	// evidence sits on other commits: speccoder's attempts are no evidence.
	reach        *gitref.RefReach
	irregular    map[string]bool      // paths reported tasks_file_not_regular
	movedOut     map[string]bool      // moves reported tasks_file_moved_out (movedOutKey)
	unrecognized map[string]bool      // path, task ID, line after
	rangeFiles   *rangeFiles          // read by traceHead
	inRangeSet   map[gitref.Hash]bool // the range's commits, listed at the first commit_unreachable tick (rangeCommits)
	trailers     []trailerCommit      // the range's commits with a Spec-Task trailer, parents first (walkOptions)
	squashes     *squashFinder        // made at the first commit_unreachable tick whose evidence is no rewrite of it
}

// rangeCommits returns the set of the range's commits, listing them on first
// use: one walk of the range per gate, not one per tick asking.
func (g *gate) rangeCommits() (map[gitref.Hash]bool, error) {
	if g.inRangeSet == nil {
		l, err := g.v.Repo.List(g.rep.Base, g.head, false)
		if err != nil {
			return nil, err
		}
		g.inRangeSet = make(map[gitref.Hash]bool, l.Len())
		for i := range l.Len() {
			g.inRangeSet[l.ID(i)] = true
		}
	}
	return g.inRangeSet, nil
}

// newGate prepares a run of the gate over base..head; walk, or
// walkAndJudgeSpooled, walks it.
func (v *verifier) newGate(base, head gitref.Hash, opts verify.GateOptions) *gate {
	return &gate{v: v, head: head, opts: opts, layouts: v.PolicyOrDefault().Layouts(),
		rep:      &verify.Report{SchemaVersion: 1, Mode: "branch", NotesRef: v.Notes.Ref(), Base: base, Head: head, Objects: []verify.ObjectResult{}, Ticks: []verify.TickResult{}, Unticks: []verify.TickResult{}, BornTicked: []verify.TickResult{}, Summary: map[string]int{}},
		lastTick: map[gitref.Hash]int{}, objects: map[gitref.Hash]*checkedObject{},
		irregular: map[string]bool{}, unrecognized: map[string]bool{}, movedOut: map[string]bool{}}
}

// walkOptions are the tick walk's options for g's range: its layouts, and
// the Spec-Task trailers of the range's commits read from the walk's listing
// into g.trailers (bugTicks).
func (g *gate) walkOptions() tick.Options {
	return tick.Options{Layouts: g.layouts, Listed: func(l *gitref.Listing) error {
		g.trailers = nil
		for i := range l.Len() {
			if ts := l.Trailers(i); len(trailer.Values(ts, verify.TrailerSpecTask)) > 0 {
				g.trailers = append(g.trailers, trailerCommit{ID: l.ID(i), Trailers: ts})
			}
		}
		g.lin = lineage.New(g.v.Repo, g.layouts, l)
		return nil
	}}
}

// walk walks g's range into memory (g.ticks), indexing it by lineage
// (g.lin: the model's Range and Lineage), and prepares the ticks' judging (judgeTicks).
func (g *gate) walk() error {
	var ticks []tick.Tick
	n, err := tick.Each(g.v.Repo, g.rep.Base, g.head, g.walkOptions(), func(ts []tick.Tick, ms []tick.Move) error {
		ticks = append(ticks, ts...)
		return g.lin.Add(ts, ms)
	})
	if err != nil {
		return err
	}
	g.ticks, g.twins = ticks, projectTwins(ticks)
	g.rep.SetRangeCommits(n)
	for i, t := range ticks {
		if !checksObjects(t) {
			continue
		}
		if _, queued := g.lastTick[t.Commit]; !queued {
			g.tickCommits = append(g.tickCommits, t.Commit)
			g.firstTick = append(g.firstTick, i)
		}
		g.lastTick[t.Commit] = i
	}
	return nil
}

// checksObjects reports whether tick t is judged by its commit's checked
// objects: a tick, born-ticked task or edit of a recognized tasks file (an
// edit that head's line comes from is evidenced by a statement binding its
// line, as any origin: the model's Evidence).
func checksObjects(t tick.Tick) bool {
	return (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked || t.Kind == tick.KindEdit) && !t.Unrecognized
}

// batchHints are the task lines the walk parsed for the tick commits
// g.tickCommits[from:to], handed on to the object check (an unambiguous
// tick's task is the one task of its tasks file at the commit with its ID),
// so that the tasks files are not parsed again; a repeated ID's lines are
// found in the file by the statements' line hashes. Built per batch, from the
// batch's first tick to its commits' last: the walk's ticks before are judged.
func (g *gate) batchHints(from, to int) map[gitref.Hash]verify.TaskHints {
	hints := make(map[gitref.Hash]verify.TaskHints, to-from)
	end := 0
	for _, c := range g.tickCommits[from:to] {
		hints[c] = verify.TaskHints{}
		end = max(end, g.lastTick[c])
	}
	for _, t := range g.ticks[g.firstTick[from] : end+1] {
		if h, ok := hints[t.Commit]; ok {
			h.AddTick(t)
		}
	}
	return hints
}

// gateWindow is how many tick commits judgeTicks verifies at a time: the
// checked objects of at most about that many commits (twice that many for
// judgeSpooled, which checks the next window while judging one) are held at
// once, whatever the length of the range. (The tests tune it, window: a window
// of one commit judges every fixture across window boundaries.)
const gateWindow = 512

// window is how many tick commits g checks at a time: gateWindow, unless
// the tests tune it (verify.GateTuning).
func (g *gate) window() int {
	if w := g.v.GateTuning().Window; w > 0 {
		return w
	}
	return gateWindow
}

// judgeTicks judges the walk's ticks in order into g.rep. The tick commits'
// objects are verified, and their sections checked at head, on all cores
// (checkObjects), gateWindow commits at a time as the ticks reach them; a
// commit's checked objects are dropped after its last tick.
func (g *gate) judgeTicks() error {
	readNote, err := g.v.Notes.NoteReader(len(g.tickCommits))
	if err != nil {
		return err
	}
	next := 0 // g.tickCommits[next:] are not checked yet
	for i := range g.ticks {
		c := g.ticks[i].Commit
		if _, ok := g.lastTick[c]; ok && g.objects[c] == nil && next < len(g.tickCommits) {
			to := min(next+g.window(), len(g.tickCommits))
			batch := g.tickCommits[next:to]
			objects, err := g.v.checkObjects(batch, g.batchHints(next, to), g.head, readNote)
			if err != nil {
				return err
			}
			maps.Copy(g.objects, objects)
			next = to
		}
		r, err := g.roleOf(g.ticks[i])
		if err != nil {
			return err
		}
		if err := g.judgeTick(g.ticks[i], r); err != nil {
			return err
		}
		if g.rep.Spooled() {
			if err := g.rep.SpoolJudged(); err != nil {
				return err
			}
		}
		if g.lastTick[c] == i {
			delete(g.objects, c)
		}
		// Judged: the report holds what it needs of the tick (its task
		// lines, the walk's, are not held past it).
		g.ticks[i] = tick.Tick{}
	}
	g.ticks, g.twins, g.lastTick, g.firstTick = nil, nil, nil, nil
	return nil
}

// judgeTick judges the walk's tick t: by its kind, then (a tick, edit or
// born-ticked task) by its commit's note, as its role r says (model: Origins
// and Evidence): an origin's failure fails (roleRechecks: with its own fix), a
// superseded tick's does not, a merge's repeat of what another parent holds
// is not judged.
func (g *gate) judgeTick(t tick.Tick, r role) error {
	rep := g.rep
	tr := verify.TickResult{Commit: t.Commit, Path: t.Path, Line: t.Line, Unit: t.Unit, TaskID: t.TaskID, LineHash: t.LineHash,
		Task: statement.SubjectName(t.Unit.Feature, t.TaskID), Title: tickTitle(t), Reasons: []verify.Reason{}, Signers: []trust.Signer{}}
	switch {
	case t.Kind == tick.KindNotRegular:
		if !g.irregular[t.Path] {
			g.irregular[t.Path] = true
			rep.Ticks = append(rep.Ticks, notRegular(t.Commit, t.Path, t.Irregular))
		}
		return nil
	case t.Kind == tick.KindMovedOut:
		if k := movedOutKey(t); !g.movedOut[k] {
			g.movedOut[k] = true
			rep.Ticks = append(rep.Ticks, movedOut(t))
		}
		return nil
	case t.Unrecognized && (t.Kind == tick.KindTick || t.Kind == tick.KindBornTicked):
		if k := t.Path + "\x00" + t.TaskID + "\x00" + t.After; !g.unrecognized[k] {
			g.unrecognized[k] = true
			rep.Ticks = append(rep.Ticks, unrecognizedTick(tr, t.Configured))
		}
		return nil
	case t.Unrecognized:
		return nil
	case t.Kind == tick.KindUntick:
		tr.Status = "unticked"
		rep.Unticks = append(rep.Unticks, tr)
		return nil
	case r == roleBroughtIn:
		return nil
	}
	switch t.Kind {
	case tick.KindBornTicked:
		moved := false
		if g.v.PolicyOrDefault().AllowsBornTicked(t.Path) {
			var err error
			if moved, err = g.movedOpen(t); err != nil {
				return err
			}
		}
		if g.v.PolicyOrDefault().AllowsBornTicked(t.Path) && !moved {
			tr.Status = verify.StatusBornTicked
			tr.Message = "ticked in a tasks file new in this commit; the verifier's policy allows born-ticked tasks here ([born_ticked] allow)"
			rep.BornTicked = append(rep.BornTicked, tr)
			return nil
		}
		// Judged as a tick: without evidence it fails as born_ticked.
	case tick.KindEdit:
		if r != roleSuperseded && g.stated(t) {
			break // judged by its statement, as any origin (model: Evidence)
		}
		tr.Status, tr.Reason, tr.Failing = verify.StatusEdited, verify.ReasonEditedAfterTick, true
		tr.Message = fmt.Sprintf("the ticked task line changed: %q → %q", t.Before, t.After)
		switch {
		case t.Before == "":
			tr.Message = fmt.Sprintf("the ticked task line changed: now %q", t.After)
		case t.Before == t.After:
			tr.Message = fmt.Sprintf("the ticked task's text below its line changed (its continuation lines, detail lines or bullets): %q", t.After)
		}
		if r == roleSuperseded {
			tr.Status, tr.Reason, tr.Failing = verify.StatusSuperseded, "", false
			tr.Message = "edited after its tick, and no line head holds comes from this edit (unticked, edited or removed later, or a merge kept another side's line): the lines head holds are judged by where they come from"
		}
		rep.Ticks = append(rep.Ticks, tr)
		return nil
	}
	if t.Ambiguous != "" {
		// The tasks file repeats the task's ID: the tick is its line, and
		// its evidence the statement binding that line
		// (docs/format.md#choices-where-the-brief-leaves-room, "A tick is a
		// line, also when its task ID repeats") — unless another line with the ID reads the same, when
		// no attestation can say which of the two it is about.
		r, err := g.v.repeatedLine(t)
		if err != nil {
			return err
		}
		if r != nil {
			tr.Status, tr.Reason, tr.Failing, tr.Outcome = verify.StatusUnverifiable, string(verify.Malformed), true, verify.Malformed
			tr.Reasons = []verify.Reason{*r}
			rep.Ticks = append(rep.Ticks, tr)
			return nil
		}
	}
	if err := g.judgeEvidence(&tr, t); err != nil {
		return err
	}
	if t.Kind == tick.KindTick && tr.Reason == verify.ReasonTickedWithoutEvidence && g.originKind(t) == lineage.KindEdit {
		// A merge ticking a line against its first parent that another
		// parent has checked with other text: an edit (model: Origins).
		tr.Status, tr.Reason = verify.StatusEdited, verify.ReasonEditedAfterTick
		tr.Message = "the line head holds was checked, with other text, at another parent of this merge: an edit of a ticked line, with no statement binding the line it makes"
	}
	if t.Kind == tick.KindBornTicked && tr.Reason == verify.ReasonTickedWithoutEvidence {
		tr.Status = verify.StatusBornTicked
		tr.Message = "ticked in a tasks file new in this commit (or new at head), with no evidence: attest the commit, or allow born-ticked tasks for this path in the verifier's policy ([born_ticked] allow)"
		if g.v.PolicyOrDefault().AllowsBornTicked(t.Path) {
			tr.Message = "ticked in a tasks file new in this commit, with no evidence; the task was open at the base in a tasks file the range removed, moved or added back, so the verifier's policy for born-ticked tasks does not apply: attest the commit"
		}
	}
	if r == roleRechecks && tr.Failing && (tr.Reason == verify.ReasonTickedWithoutEvidence || tr.Reason == verify.ReasonCommitUnreachable) {
		tr.HintKey = verify.HintMergeRechecks
		tr.Message = "a merge that checks the line again after one of its parents took it back (unticked it), while its first parent has it checked: no tick of it is on this commit for attest tick to find; it needs evidence of its own. " + tr.Message
	}
	if r == roleSuperseded && tr.Failing {
		// No line head holds comes from this tick (model: Origins): it decides
		// nothing. An evidenced one stays evidenced.
		tr.Status, tr.Reason, tr.Failing = verify.StatusSuperseded, "", false
		tr.Message = "no line head holds comes from this tick (unticked, edited or removed later, or on a side a merge did not keep): the lines head holds are judged by where they come from"
	}
	if o := tr.Object; o != nil && o.Predicate != nil {
		// The per-object rules judge the tick as it now stands (ApplyPolicy
		// would, at the end, from the same inputs); then its decoded
		// statement is dropped, here and in the report's copy of its object,
		// so that the range's predicates are not all held at once.
		g.v.EvaluateTick(&tr)
		o.Predicate, o.Statement = nil, nil
		ro := &rep.Objects[g.lastObject]
		ro.Predicate, ro.Statement = nil, nil
	}
	rep.Ticks = append(rep.Ticks, tr)
	return nil
}

// stated reports whether t's commit's checked objects hold a statement
// binding t's task line in t's unit: what judges an edit as a tick.
func (g *gate) stated(t tick.Tick) bool {
	co := g.objects[t.Commit]
	if co == nil {
		return false
	}
	name := statement.SubjectName(t.Unit.Feature, t.TaskID)
	for i := range co.results {
		rs := &co.results[i]
		if rs.Task == name && rs.LineHash == t.LineHash && specfmt.ProjectPath(rs.Root, rs.Unit.Dir) == t.Unit.Dir {
			return true
		}
	}
	return false
}

// judgeEvidence judges tick t by its commit's checked objects: by the
// statement that is the tick's, else by the note's own failure, else as a
// tick without evidence on its commit (evidenceElsewhere).
func (g *gate) judgeEvidence(tr *verify.TickResult, t tick.Tick) error {
	co := g.objects[t.Commit]
	rs := co.results
	// The tick's result: the one with its subject name, unit directory
	// and line hash; for a task whose ID is not repeated, the one with its
	// subject name and unit directory (a statement binding another line
	// then fails its line_hash check). A statement about another unit
	// with the same subject name is never the tick's
	// (docs/format.md#statements-belong-to-a-unit); one whose unit could
	// not be read is, so that it fails as what it is. The statement's
	// unit is compared by its repository path (its project root, found by
	// the object check, and its unit.dir), as the tick's unit is named: a
	// statement about another project's unit with the same unit.dir is
	// never the tick's (docs/format.md#project-root).
	found, byName := -1, -1
	var noteBroken *verify.ObjectResult
	if g.twins[projectTwinKey(t)] {
		// Two projects' ticks of this commit read the same to a statement
		// (same unit.dir, task ID and line_hash): none can be credited.
		rs = nil
		tr.HintKey = verify.HintTwinProjects
		tr.Message = fmt.Sprintf("this commit ticks the same task line (%s, line_hash %s) in two projects; a statement names its unit only project-relative, so it cannot tell them apart: tick them in separate commits and attest each", tr.Task, t.LineHash)
	}
	for i := range rs {
		if rs[i].Task == tr.Task && (specfmt.ProjectPath(rs[i].Root, rs[i].Unit.Dir) == t.Unit.Dir || rs[i].Unit.Dir == "") {
			if found < 0 && rs[i].LineHash == t.LineHash {
				found = i
			}
			if byName < 0 {
				byName = i
			}
		}
		if rs[i].Task == "" && rs[i].Outcome == verify.Malformed {
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
		// A copy: the commit's other results are dropped with its checked
		// objects after its last tick.
		o := new(verify.ObjectResult)
		*o = rs[found]
		judge(tr, o, co.stale[found], g.opts)
		g.judgeCopiedNote(tr, o)
		g.rep.Objects = append(g.rep.Objects, *o)
		g.lastObject = len(g.rep.Objects) - 1
	case noteBroken != nil:
		tr.Status, tr.Reason, tr.Failing, tr.Outcome = verify.StatusUnverifiable, string(verify.Malformed), true, verify.Malformed
		tr.Reasons, tr.Evidence = noteBroken.Reasons, t.Commit
	default:
		return g.evidenceElsewhere(tr, t, byName >= 0)
	}
	return nil
}

// evidenceElsewhere judges a tick whose commit's note holds no statement for
// it: ticked_without_evidence, or commit_unreachable when another commit's
// note binds its very task line (what a rebase, cherry-pick or squash keeps:
// worth an `attest carry`); one about other text of the task is not. byName:
// the note has statements for the task about other lines.
func (g *gate) evidenceElsewhere(tr *verify.TickResult, t tick.Tick, byName bool) error {
	if g.elsewhere == nil {
		idx, err := g.v.indexSubjects()
		if err != nil {
			return err
		}
		g.elsewhere = idx
	}
	tr.Status, tr.Failing = verify.StatusUnverifiable, true
	tr.Reason = verify.ReasonTickedWithoutEvidence
	cs := g.elsewhere.lines[[3]string{tr.Task, t.Unit.Dir, t.LineHash}]
	if len(cs) > 0 {
		// Commits only speccoder's attempt refs hold carry no evidence:
		// neither named nor offered to carry from.
		if g.reach == nil {
			reach, err := g.v.Repo.RefReach()
			if err != nil {
				return err
			}
			g.reach = reach
		}
		var kept []gitref.Hash
		for _, c := range cs {
			a, err := g.reach.Attempt(c)
			if err != nil {
				return err
			}
			if a == "" {
				kept = append(kept, c)
			}
		}
		cs = kept
	}
	switch {
	case len(cs) > 0:
		tr.Reason = verify.ReasonCommitUnreachable
		commit, err := g.v.Repo.Commit(t.Commit)
		if err != nil {
			return err
		}
		tr.EvidenceOn = unreachableEvidence(cs, cs, t.Commit)
		for _, c := range tr.EvidenceOn {
			if oc, err := g.v.Repo.Commit(c); err == nil && oc.Tree == commit.Tree {
				tr.SameTreeAs = c
				break
			}
		}
		in, err := g.rangeCommits()
		if err != nil {
			return err
		}
		// An earlier tick of the line holds the evidence: its commits are the
		// range's and none has the tick's tree (ticked, unticked, ticked
		// again over changed code), or the one with it is in the tick's own
		// history (a revert of a revert). No rewrite to carry from: the tick
		// needs its own statement.
		earlier := false
		if tr.SameTreeAs == "" {
			earlier = len(tr.EvidenceOn) > 0 && !slices.ContainsFunc(tr.EvidenceOn, func(c gitref.Hash) bool { return !in[c] })
		} else if in[tr.SameTreeAs] {
			if earlier, err = g.v.Repo.IsAncestor(tr.SameTreeAs, t.Commit); err != nil {
				return err
			}
		}
		if !earlier && len(tr.EvidenceOn) > 0 {
			// Evidence on an ancestor of the tick commit (the base's, say)
			// is an earlier tick's: attest carry refuses it, and the model
			// counts a statement on the tick commit alone
			// (docs/format.md#the-gates-model: Evidence).
			ev := tr.EvidenceOn[0]
			if tr.SameTreeAs != "" {
				ev = tr.SameTreeAs
			}
			if earlier, err = g.v.Repo.IsAncestor(ev, t.Commit); err != nil {
				return err
			}
		}
		if earlier {
			tr.HintKey = verify.ReasonTickedWithoutEvidence
		}
		tr.Message = unreachableMessage(tr, t.Commit, earlier)
		if !earlier {
			// The pair carry when the tick commit is a rewrite of an
			// evidence commit; else the squash carry when it is the squash
			// of a range holding the evidence; else attest tick.
			if err := g.judgeCarry(tr, t.Commit); err != nil {
				return err
			}
			if tr.HintKey != verify.HintCarry {
				if err := g.squashHint(tr, t.Commit); err != nil {
					return err
				}
			}
		}
	case byName:
		tr.Message = fmt.Sprintf("the note's statements for %s are about other task lines, not line %d of %s (line_hash %s)", tr.Task, t.Line, t.Path, t.LineHash)
	}
	return nil
}

// concludeBranch counts rep's ticks into its summary and draws its
// conclusion (model: Verdict): neutral without ticks, failure when one fails.
func concludeBranch(rep *verify.Report) {
	rep.Conclusion = verify.Neutral
	rep.EachTick(func(tr *verify.TickResult) {
		rep.Summary[tr.Status]++
		if tr.Reason != "" {
			rep.Summary[tr.Reason]++
		}
		if rep.Conclusion == verify.Neutral && tr.Status != verify.StatusNotEvaluated {
			rep.Conclusion = verify.Success // a bug task not evaluated checks nothing
		}
		if tr.Failing {
			rep.Conclusion = verify.Failure
		}
	})
	rep.Summary["unticked"] = len(rep.Unticks)
	rep.Summary[verify.StatusBornTicked] += len(rep.BornTicked) // the failing ones are counted above, by status
	verify.CountWarnings(rep)
}

// judge sets a tick's status from its object's result and stale, the result of
// StaleAtHead for it (nil: the cited section is the same at head).
func judge(tr *verify.TickResult, o *verify.ObjectResult, stale *verify.Reason, opts verify.GateOptions) {
	tr.Evidence, tr.Verdict, tr.Outcome, tr.Reasons, tr.Signers = o.Object, o.Verdict, o.Outcome, o.Reasons, o.Signers
	tr.Warnings = o.Warnings
	tr.Object = o
	switch {
	case o.Outcome == verify.OK || (o.Outcome == verify.Unsigned && opts.AllowUnsigned):
		tr.Status = verify.StatusEvidenced
		if r := stale; r != nil {
			tr.Status, tr.Failing = verify.StatusStale, true
			if r.Outcome == verify.Malformed { // the task ID repeats at head
				tr.Status, tr.Reason, tr.Outcome = verify.StatusUnverifiable, string(verify.Malformed), verify.Malformed
			}
			tr.Reasons = append(append([]verify.Reason{}, tr.Reasons...), *r)
		}
	case o.Stale():
		tr.Status, tr.Failing = verify.StatusStale, true
	default:
		tr.Status, tr.Reason, tr.Failing = verify.StatusUnverifiable, string(o.Outcome), true
	}
	if !tr.Failing && opts.RequireVerified && o.Verdict != string(predicate.Verified) {
		tr.Status, tr.Reason, tr.Failing = verify.StatusUnverifiable, verify.ReasonNotVerified, true
		tr.Message = "--require-verified: the verdict is " + o.Verdict
	}
}

// subjectIndex maps subject names with unit directories, and those with task
// lines, to the commits whose notes hold a task-verification statement for them.
type subjectIndex struct {
	commits map[[2]string][]gitref.Hash // subject name, unit.dir
	lines   map[[3]string][]gitref.Hash // subject name, unit.dir, task.line_hash
}

// indexSubjects reads every note of the notes ref once (only when some tick has
// no evidence on its own commit).
func (v *verifier) indexSubjects() (*subjectIndex, error) {
	idx := &subjectIndex{commits: map[[2]string][]gitref.Hash{}, lines: map[[3]string][]gitref.Hash{}}
	entries, err := v.Notes.All()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		note, err := v.Notes.Note(e.Commit)
		if err != nil {
			continue
		}
		for _, line := range noteline.Split(note) {
			if st, _, ok := statement.FromLine(line); ok && st.PredicateType == predicate.PredicateType {
				if p, _ := st.Predicate.(map[string]any); p["verdict"] == string(predicate.Skipped) {
					continue // a skip record's decision, for an open task: no tick's evidence
				}
				name, dir := st.Subjects[0].Name, statement.TaskUnitDir(st)
				k := [3]string{name, dir, statement.TaskLineHash(st)}
				idx.commits[[2]string{name, dir}] = append(idx.commits[[2]string{name, dir}], e.Commit)
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
// (tick.Tick.Ambiguous), the duplicate_task_id reason (malformed) when
// another line with the ID reads the same as the ticked line at the tick
// commit: no attestation can say which of the two it binds. nil otherwise: the
// tick is its line, evidenced by a statement with its line hash.
func (v *verifier) repeatedLine(t tick.Tick) (*verify.Reason, error) {
	b, err := v.Repo.File(t.Commit, t.Path)
	if err != nil {
		return nil, err
	}
	f, err := v.ParseTasksCached(t.Unit, b)
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", t.Path, t.Commit, err)
	}
	var de *specfmt.DuplicateTaskError
	if _, err := f.LookupLine(t.TaskID, t.LineHash); errors.As(err, &de) {
		return &verify.Reason{Code: verify.CodeDuplicateTaskID, Field: t.Path, Expected: "one task line", Found: fmt.Sprintf("lines %d and %d", de.FirstLine, de.SecondLine), Message: de.Error() + ", which read the same", Outcome: verify.Malformed}, nil
	}
	return nil, nil
}

// noteLevelFailure returns a result holding the reasons about the note as a
// whole (ObjectResult.noteReasons) of rs, one commit's results, or nil when
// its note has none.
func noteLevelFailure(rs []verify.ObjectResult) *verify.ObjectResult {
	for i := range rs {
		if len(rs[i].NoteReasons) > 0 {
			return &verify.ObjectResult{Object: rs[i].Object, Kind: rs[i].Kind, Outcome: verify.Malformed, Reasons: rs[i].NoteReasons}
		}
	}
	return nil
}

// notRegular is the failing result of a symbolic link or submodule at a
// tasks-file position (docs/format.md#tasks-files-are-regular-files).
func notRegular(commit gitref.Hash, path, kind string) verify.TickResult {
	return verify.TickResult{Commit: commit, Path: path, Status: verify.StatusUnverifiable, Reason: verify.ReasonNotRegular, Failing: true,
		Reasons: []verify.Reason{}, Signers: []trust.Signer{},
		Message: fmt.Sprintf("%s is a %s at %s where a tasks file or a directory holding one is: the gate cannot see ticks behind it; make it a regular file or directory", path, kind, printable.Short(string(commit)))}
}

// movedOutKey names a move out of the tasks files: its commit and paths,
// once whichever parent it was found against.
func movedOutKey(t tick.Tick) string {
	return string(t.Commit) + "\x00" + t.OldPath + "\x00" + t.Path
}

// movedOut is the failing result of a unit's tasks file that a commit moved
// to a path where it is no tasks file, or of a Markdown file the commit adds
// as it removes one that cannot be read to tell (docs/format.md#tasks-files).
func movedOut(t tick.Tick) verify.TickResult {
	tr := verify.TickResult{Commit: t.Commit, Path: t.Path, Status: verify.StatusUnverifiable, Reason: verify.ReasonTasksFileMovedOut, Failing: true,
		Reasons: []verify.Reason{}, Signers: []trust.Signer{}}
	const fix = "move it back to a unit's tasks-file path, or ignore its path in the verifier's policy ([unit_paths] ignore) to leave it unjudged"
	if t.Unreadable != "" {
		tr.Message = fmt.Sprintf("%s removes the tasks file %s and adds %s, which cannot be read as a tasks file (%s): whether the unit's tasks moved there, out of every layout, cannot be judged; make %s readable, or %s",
			printable.Short(string(t.Commit)), t.OldPath, t.Path, t.Unreadable, t.Path, fix)
		return tr
	}
	tr.Message = fmt.Sprintf("%s moves the tasks file %s to %s, which no unit layout claims: the gate sees no tick of its tasks there; %s",
		printable.Short(string(t.Commit)), t.OldPath, t.Path, fix)
	return tr
}

// unrecognizedTick is the failing result of a tick in a tasks file no unit
// layout claims (docs/format.md#tasks-files); configured, when not "", is why
// the project's tool configuration makes the file a tasks file
// (docs/format.md#tasks-files-a-tool-configures).
func unrecognizedTick(tr verify.TickResult, configured string) verify.TickResult {
	tr.Unit, tr.Task = specfmt.Unit{}, ""
	tr.Status, tr.Reason, tr.Failing = verify.StatusUnverifiable, verify.ReasonUnrecognizedTasksFile, true
	tr.Message = fmt.Sprintf("%s is named tasks.md but is no unit's tasks file: add its layout to the verifier's policy ([[units]] format, tasks) or ignore its path ([unit_paths] ignore)", tr.Path)
	if configured != "" {
		tr.Message = fmt.Sprintf("%s is a tasks file no unit layout covers: %s", tr.Path, configured)
	}
	return tr
}

// unreachableEvidence orders the commits holding a tick's evidence elsewhere:
// those whose statement binds the tick's task line first, each once, without
// the tick commit itself.
func unreachableEvidence(all, sameLine []gitref.Hash, tick gitref.Hash) []gitref.Hash {
	seen := map[gitref.Hash]bool{tick: true}
	var out []gitref.Hash
	for _, cs := range [][]gitref.Hash{sameLine, all} {
		for _, c := range cs {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// headFiles checks head's tasks files for what the model cannot read
// (docs/format.md#the-gates-model, beside the model): a file that cannot be
// read as a tasks file fails (malformed), a box checked in an unrecognized
// tasks file fails unrecognized_tasks_file, and a symbolic link or
// submodule at a tasks-file position fails tasks_file_not_regular — each
// once, what the walk reported not again. A file head has as base has it
// (rangeFiles.unchanged) is only checked to be readable (specfmt.CheckTasks).
func (v *verifier) headFiles(rep *verify.Report, rf *rangeFiles, irregular map[string]bool) {
	head := rep.Head
	failing := map[string]bool{} // path, line_hash of unrecognized files' boxes
	rep.EachTick(func(tr *verify.TickResult) {
		if tr.Failing && tr.Reason == verify.ReasonUnrecognizedTasksFile {
			failing[tr.Path+"\x00"+tr.LineHash] = true
		}
	})
	baseAt := map[string]int{}
	for i, f := range rf.base {
		if f.Irregular == "" {
			baseAt[f.Path] = i
		}
	}
	for j, f := range rf.head {
		if f.Irregular != "" {
			if !irregular[f.Path] {
				irregular[f.Path] = true
				rep.Ticks = append(rep.Ticks, notRegular(head, f.Path, f.Irregular))
			}
			continue
		}
		if rf.unchanged[j] {
			if err := specfmt.CheckTasks(f.Unit, f.Content); err != nil {
				rep.Ticks = append(rep.Ticks, unreadableAtHead(head, f, err))
			}
			continue
		}
		tf, err := v.ParseTasksOnce(f.Unit, f.Content)
		if err != nil {
			rep.Ticks = append(rep.Ticks, unreadableAtHead(head, f, err))
			continue
		}
		if !f.Unrecognized {
			continue
		}
		// A box the file had checked at base, at its path, is no box the
		// range checked.
		atBase := map[string]bool{}
		if i, ok := baseAt[f.Path]; ok {
			if bf, err := v.ParseTasksOnce(rf.base[i].Unit, rf.base[i].Content); err == nil {
				for _, t := range bf.Tasks {
					if t.Ticked() {
						atBase[t.ID+"\x00"+t.OpenLine()] = true
					}
				}
			}
		}
		for _, t := range tf.Tasks {
			if !t.Ticked() || atBase[t.ID+"\x00"+t.OpenLine()] {
				continue
			}
			lh := predicate.LineHash(t.OpenLine())
			if failing[f.Path+"\x00"+lh] {
				continue
			}
			failing[f.Path+"\x00"+lh] = true
			tr := verify.TickResult{Commit: head, Path: f.Path, Line: t.LineNo, Unit: f.Unit, TaskID: t.ID, LineHash: lh,
				Task: statement.SubjectName(f.Unit.Feature, t.ID), Title: t.Title, Reasons: []verify.Reason{}, Signers: []trust.Signer{}}
			rep.Ticks = append(rep.Ticks, unrecognizedTick(tr, ""))
		}
	}
}

// unreadableAtHead is the head check's finding for head's tasks file f that
// ParseTasks refuses with err: what cannot be read cannot be judged, so the
// gate fails, naming it.
func unreadableAtHead(head gitref.Hash, f tick.TasksFileAt, err error) verify.TickResult {
	return verify.TickResult{Commit: head, Path: f.Path, Unit: f.Unit, Status: verify.StatusUnverifiable,
		Reason: string(verify.Malformed), Failing: true, Reasons: []verify.Reason{}, Signers: []trust.Signer{},
		Message: fmt.Sprintf("%s at head cannot be read as a tasks file: %v", f.Path, err), HintKey: verify.HintTasksFileUnreadable}
}

// unreachableMessage names where a commit_unreachable tick's evidence is and
// how to re-issue it on the tick commit (sets tr.Evidence).
func unreachableMessage(tr *verify.TickResult, tick gitref.Hash, earlier bool) string {
	if len(tr.EvidenceOn) == 0 {
		return fmt.Sprintf("evidence for %s is on other commits, not on the tick commit", tr.Task)
	}
	tr.Evidence = tr.EvidenceOn[0]
	if tr.SameTreeAs != "" {
		tr.Evidence = tr.SameTreeAs
	}
	names := make([]string, len(tr.EvidenceOn))
	for i, c := range tr.EvidenceOn {
		names[i] = string(c)
	}
	if earlier {
		return fmt.Sprintf("evidence for %s is on %s, other commits of this range (an earlier tick of the line, unticked since?), not on the tick commit: attest this tick",
			tr.Task, strings.Join(names, ", "))
	}
	return fmt.Sprintf("evidence for %s is on %s, not on the tick commit (rewritten by a rebase or squash?); re-issue it here: taskproof attest carry %s %s",
		tr.Task, strings.Join(names, ", "), tr.Evidence, tick)
}

// projectTwinKey is what a statement can say of a tick's unit and line: its
// commit, its project-relative unit.dir, task ID and line_hash.
func projectTwinKey(t tick.Tick) string {
	return string(t.Commit) + "\x00" + t.ProjectUnit().Dir + "\x00" + t.TaskID + "\x00" + t.LineHash
}

// projectTwins marks the keys (projectTwinKey) of ticks that one commit makes in
// two or more project roots: a statement, whose unit.dir is project-relative,
// cannot tell them apart (docs/format.md#project-root-in-the-gate).
func projectTwins(ticks []tick.Tick) map[string]bool {
	roots := map[string]string{}
	twins := map[string]bool{}
	for _, t := range ticks {
		if t.Kind != tick.KindTick && t.Kind != tick.KindBornTicked {
			continue
		}
		k := projectTwinKey(t)
		if r, ok := roots[k]; ok && r != t.Root {
			twins[k] = true
		}
		roots[k] = t.Root
	}
	return twins
}

// Verify runs the merge gate over t's range ([Branch]) or verifies t's
// objects (verify.Verifier.Objects).
func Verify(v *verify.Verifier, t verify.Verified, opts verify.GateOptions) (*verify.Report, error) {
	if t.Range {
		return Branch(v, t.Base, t.Head, opts)
	}
	return v.Objects(t.Objects, opts)
}

// VerifySpooled is Verify with a range's report spooled
// ([BranchSpooled]); the caller must Close the report.
func VerifySpooled(v *verify.Verifier, t verify.Verified, opts verify.GateOptions) (*verify.Report, error) {
	if t.Range {
		return BranchSpooled(v, t.Base, t.Head, opts)
	}
	return v.Objects(t.Objects, opts)
}
