package gate

import (
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/panics"
	"github.com/taskproof/taskproof/tick"
	"github.com/taskproof/taskproof/verify"
)

// walkAndJudgeSpooled is walk, traceHead and judgeTicks for BranchSpooled
// with the walk's ticks held out of memory: the walk's ticks go to a spool
// as the walk finds them, indexed by lineage (model: Range and Lineage) as they go;
// head's lines are traced (model: Origins and Requirements) once the walk is done; then the ticks
// are read back and judged in order by their role, gateWindow tick commits
// at a time, as judgeTicks judges them. Held at once: the ticks of about
// gateWindow commits, the lineage index (the walk's changes and moves, not
// its task lines), head's checked lines, and the keys of ticks two
// projects' roots share (projectTwins, per commit).
func (g *gate) walkAndJudgeSpooled() (err error) {
	s, err := newWalkSpool("")
	if err != nil {
		return fmt.Errorf("spooling the tick walk: %w", err)
	}
	defer func() {
		if cerr := s.close(); err == nil && cerr != nil {
			err = fmt.Errorf("spooling the tick walk: %w", cerr)
		}
	}()
	tickCommits, err := g.walkToSpool(s)
	if err != nil {
		return err
	}
	if err := g.traceHead(); err != nil {
		return err
	}
	// The bug tasks' commits are known before the judging: their objects are
	// the report's after the ticks' (ApplyPolicy, SpoolJudged).
	bugCommits := map[gitref.Hash]bool{}
	for _, c := range g.trailers {
		if len(bugTasks(c)) > 0 {
			bugCommits[c.ID] = true
		}
	}
	g.rep.SetBugCommits(bugCommits)
	return g.judgeSpooled(s, tickCommits)
}

// walkToSpool walks g's range into s, one commit's ticks a record, indexing
// it by lineage (g.lin) and keeping the project twins. It returns how many
// commits have ticks judged by their checked objects (checksObjects).
func (g *gate) walkToSpool(s *walkSpool) (int, error) {
	var (
		tickCommits int
		results     int // ticks that may be judged into the report's Ticks
	)
	g.twins = map[string]bool{}
	n, err := tick.Each(g.v.Repo, g.rep.Base, g.head, g.walkOptions(), func(ts []tick.Tick, ms []tick.Move) error {
		if err := g.lin.Add(ts, ms); err != nil {
			return err
		}
		if len(ts) == 0 {
			return nil
		}
		checks := false
		for _, t := range ts {
			checks = checks || checksObjects(t)
			if t.Kind != tick.KindUntick {
				results++
			}
		}
		if checks {
			tickCommits++
		}
		if len(ts) > 1 {
			// Twins are ticks of one commit (the key holds it).
			maps.Copy(g.twins, projectTwins(ts))
		}
		if err := s.add(ts); err != nil {
			return fmt.Errorf("spooling the tick walk: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	g.rep.SetRangeCommits(n)
	// The index of the spooled ticks is held to the end.
	g.rep.ReserveTicks(results)
	return tickCommits, nil
}

// windowCheck is a window of tick commits being checked (checkObjects) while
// the judging goes on; done is closed when objects or err is set.
type windowCheck struct {
	done    chan struct{}
	objects map[gitref.Hash]*checkedObject
	err     error
}

// spooledCommitTicks is one commit's ticks read back from the walk's spool:
// first is the index of its first tick in the walk, checks whether any of
// them is judged by the commit's checked objects.
type spooledCommitTicks struct {
	ticks  []tick.Tick
	first  int
	checks bool
}

// judgeSpooled judges the ticks of s in order into g.rep, as judgeTicks
// does: the tick commits are checked gateWindow at a time (read ahead from
// the spool), with their ticks' task lines as hints (batchHints), and the
// next window is checked on the other cores while the ticks of this one are
// judged, so that the judging, which is serial, does not leave them idle; a
// commit's checked objects and ticks are dropped once its ticks are judged.
// At most two windows' checked objects are held. tickCommits is the number
// of tick commits (how the notes are read: noteReader).
func (g *gate) judgeSpooled(s *walkSpool, tickCommits int) (err error) {
	readNote, err := g.v.Notes.NoteReader(tickCommits)
	if err != nil {
		return err
	}
	next, err := s.reader()
	if err != nil {
		return fmt.Errorf("spooling the tick walk: %w", err)
	}
	var (
		ahead   []spooledCommitTicks // read from the spool, not judged yet
		covered int                  // ahead[:covered] are checked or being checked
		index   int                  // the walk index of the next tick read
		done    bool
		pending *windowCheck // the window being checked
	)
	defer func() {
		if pending != nil {
			<-pending.done // its workers read the repository this gate's caller may close
		}
	}()
	readOne := func() error {
		ts, err := next()
		if errors.Is(err, io.EOF) {
			done = true
			return nil
		}
		if err != nil {
			return err
		}
		c := spooledCommitTicks{ticks: ts, first: index}
		for _, t := range ts {
			c.checks = c.checks || checksObjects(t)
		}
		index += len(ts)
		ahead = append(ahead, c)
		return nil
	}
	// startWindow reads ahead to the next gateWindow tick commits after
	// those covered and starts checking them; nil when there are none.
	startWindow := func() (*windowCheck, error) {
		queued := 0
		for _, a := range ahead[covered:] {
			if a.checks {
				queued++
			}
		}
		for queued < g.window() && !done {
			if err := readOne(); err != nil {
				return nil, err
			}
			if !done && ahead[len(ahead)-1].checks {
				queued++
			}
		}
		batch := make([]gitref.Hash, 0, min(queued, g.window()))
		hints := make(map[gitref.Hash]verify.TaskHints, cap(batch))
		for ; covered < len(ahead) && len(batch) < g.window(); covered++ {
			a := ahead[covered]
			if !a.checks {
				continue
			}
			c := a.ticks[0].Commit
			batch = append(batch, c)
			h := verify.TaskHints{}
			for _, t := range a.ticks {
				h.AddTick(t)
			}
			hints[c] = h
		}
		if len(batch) == 0 {
			return nil, nil
		}
		w := &windowCheck{done: make(chan struct{})}
		go func() {
			defer close(w.done)
			w.err = panics.Call(func() error {
				panics.Inject("gate-window")
				var err error
				w.objects, err = g.v.checkObjects(batch, hints, g.head, readNote)
				return err
			})
		}()
		return w, nil
	}
	for {
		if len(ahead) == 0 {
			if err := readOne(); err != nil {
				return err
			}
			if done {
				break
			}
		}
		cur := ahead[0]
		commit := cur.ticks[0].Commit
		if cur.checks && g.objects[commit] == nil {
			if pending == nil {
				if pending, err = startWindow(); err != nil {
					return err
				}
			}
			<-pending.done
			w := pending
			pending = nil
			if w.err != nil {
				return w.err
			}
			maps.Copy(g.objects, w.objects)
			if pending, err = startWindow(); err != nil {
				return err
			}
		}
		for _, t := range cur.ticks {
			r, err := g.roleOf(t)
			if err != nil {
				return err
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
		delete(g.objects, commit)
		ahead[0] = spooledCommitTicks{}
		ahead = ahead[1:]
		covered = max(0, covered-1)
	}
	g.twins = nil
	return nil
}
