package verify

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/spoolfile"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify/internal/tickindex"
)

// ErrSpool is matched by the errors of the temporary files gate.BranchSpooled
// holds the tick walk and the report in (os.CreateTemp in os.TempDir, that
// is TMPDIR): a directory that is missing, not writable or full is the
// system's state, not the repository's, and nothing is judged without them.
var ErrSpool = spoolfile.ErrSpool

// itemSpool holds a report list's leading items out of memory: each item's
// JSON encoding as WriteJSON writes it in the list (indented four spaces, no
// trailing newline), the items joined by ",\n", in a temporary file.
type itemSpool struct {
	f   *spoolfile.File
	w   *bufio.Writer
	n   int
	buf bytes.Buffer
}

// newItemSpool creates the spool's temporary file (os.CreateTemp in dir, ""
// for the default); Close removes it.
func newItemSpool(dir string) (*itemSpool, error) {
	f, err := spoolfile.Create(dir, "taskproof-report-*")
	if err != nil {
		return nil, err
	}
	return &itemSpool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add appends v's item encoding.
func (s *itemSpool) add(v any) error {
	s.buf.Reset()
	if s.n > 0 {
		s.buf.WriteString(",\n")
	}
	s.buf.WriteString("    ")
	if err := encodeIndented(&s.buf, v, "    "); err != nil {
		return err
	}
	s.n++
	_, err := s.w.Write(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
	return err
}

// writeTo copies the spooled items to w (as add wrote them, from the first).
func (s *itemSpool) writeTo(w io.Writer) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	if err == nil {
		_, err = s.f.Seek(0, io.SeekEnd)
	}
	return err
}

// close removes the spool's file.
func (s *itemSpool) close() error { return s.f.Close() }

// tickSpool holds a report's leading ticks out of memory: each tick as it
// was judged, one gob record a tick, in order, in a temporary file, and, in
// memory, what the passes after the judging read and change of them (ix).
type tickSpool struct {
	recs *spoolfile.Records[spooledTick]
	ix   tickIndex
}

// spooledTick is a spooled tick's record, nil lists told apart from empty,
// with its unexported fields (gob skips them) and each signer's log index
// (-1 for none): gob writes a pointer as the value it points to and leaves a
// zero value out, so a log index of 0 would read back as none.
type spooledTick struct {
	Tick                   TickResult
	NilReasons, NilSigners bool
	Hint                   string
	TlogIndexes            []int64
}

// newTickSpool creates the spool's temporary file (os.CreateTemp in dir, ""
// for the default), with room in its index for capacity ticks.
func newTickSpool(dir string, capacity int) (*tickSpool, error) {
	recs, err := spoolfile.CreateRecords[spooledTick](dir, "taskproof-ticks-*")
	if err != nil {
		return nil, err
	}
	return &tickSpool{recs: recs, ix: newTickIndex(capacity)}, nil
}

// len is the number of spooled ticks.
func (s *tickSpool) len() int {
	if s == nil {
		return 0
	}
	return s.ix.Len()
}

// add moves t to the spool; its object must be nil.
func (s *tickSpool) add(t *TickResult) error {
	r := spooledTick{Tick: *t, NilReasons: t.Reasons == nil, NilSigners: t.Signers == nil, Hint: t.HintKey}
	for _, s := range t.Signers {
		i := int64(-1)
		if s.TlogIndex != nil {
			i = *s.TlogIndex
		}
		r.TlogIndexes = append(r.TlogIndexes, i)
	}
	if err := s.recs.Add(&r); err != nil {
		return err
	}
	s.ix.add(t)
	return nil
}

// reader returns a function giving the spooled ticks 0, 1, … in turn, as
// they were judged.
func (s *tickSpool) reader() (func() (TickResult, error), error) {
	next, err := s.recs.Reader()
	if err != nil {
		return nil, err
	}
	return func() (TickResult, error) {
		r, err := next()
		if err != nil {
			return r.Tick, fmt.Errorf("reading the spooled report: %w", err)
		}
		t := r.Tick
		t.HintKey = r.Hint
		if t.Reasons == nil && !r.NilReasons {
			t.Reasons = []Reason{}
		}
		if t.Signers == nil && !r.NilSigners {
			t.Signers = []trust.Signer{}
		}
		if len(r.TlogIndexes) != len(t.Signers) {
			return t, fmt.Errorf("reading the spooled report: %d log indexes for %d signers", len(r.TlogIndexes), len(t.Signers))
		}
		for i, x := range r.TlogIndexes {
			t.Signers[i].TlogIndex = nil
			if x >= 0 {
				t.Signers[i].TlogIndex = &x
			}
		}
		return t, nil
	}, nil
}

func (s *tickSpool) close() error { return s.recs.Close() }

// tickIndex is the index (package tickindex) of a report's spooled ticks,
// read and changed as TickResults.
type tickIndex struct{ *tickindex.Index[Reason] }

func newTickIndex(capacity int) tickIndex { return tickIndex{tickindex.New[Reason](capacity)} }

// indexed is what the index holds of t.
func indexed(t *TickResult) tickindex.Tick[Reason] {
	return tickindex.Tick[Reason]{Commit: t.Commit, Evidence: t.Evidence, Path: t.Path, TaskID: t.TaskID, Task: t.Task, LineHash: t.LineHash,
		Unit: t.Unit, Status: t.Status, Reason: t.Reason, Verdict: t.Verdict, Message: t.Message, Failing: t.Failing,
		Warnings: t.Warnings, Policy: t.Policy, Via: t.Via}
}

// add appends t's entry.
func (ix tickIndex) add(t *TickResult) {
	x := indexed(t)
	ix.Add(&x)
}

// tick sets *t to entry i's tick as the passes after the judging read it
// (tickindex.Index.Get); its other fields are the spool's (tickReader).
func (ix tickIndex) tick(i int, t *TickResult) {
	var x tickindex.Tick[Reason]
	ix.Get(i, &x)
	*t = TickResult{Commit: x.Commit, Evidence: x.Evidence, Path: x.Path, TaskID: x.TaskID, Task: x.Task, LineHash: x.LineHash,
		Unit: x.Unit, Status: x.Status, Reason: x.Reason, Verdict: x.Verdict, Message: x.Message, Failing: x.Failing,
		Warnings: x.Warnings, Policy: x.Policy, Via: x.Via}
}

// update keeps what a pass changed of entry i's tick t (as tick gave it).
func (ix tickIndex) update(i int, t *TickResult) {
	x := indexed(t)
	ix.Update(i, &x)
}

// patch sets on the spooled tick t (read back whole) what the passes
// changed of entry i.
func (ix tickIndex) patch(i int, t *TickResult) {
	x := tickindex.Tick[Reason]{Message: t.Message}
	ix.Patch(i, &x)
	t.Status, t.Reason, t.Failing, t.Policy, t.Via, t.Message = x.Status, x.Reason, x.Failing, x.Policy, x.Via, x.Message
}

// TickCount is the number of ticks the report lists (ticks in JSON). For a
// report held in memory it is len(Ticks); BranchSpooled's report holds its
// leading ticks out of memory, and Ticks only those after them.
func (rep *Report) TickCount() int { return rep.tickSpool.len() + len(rep.Ticks) }

// EachTick calls f with each of rep's ticks in order. A spooled tick is
// given as its index holds it (tickIndex.tick: what the passes after the
// judging read), and what f changes of its status, reason, failing,
// message, policy results and Via is kept for the writers; the ticks in
// Ticks are given in place.
func (rep *Report) EachTick(f func(t *TickResult)) {
	if n := rep.tickSpool.len(); n > 0 {
		ix := rep.tickSpool.ix
		var t TickResult
		for i := 0; i < n; i++ {
			ix.tick(i, &t)
			f(&t)
			ix.update(i, &t)
		}
	}
	for i := range rep.Ticks {
		f(&rep.Ticks[i])
	}
}

// tickReader returns a function giving rep's ticks in order, i = 0, 1, …
// up to TickCount: a spooled tick read back whole, with what the passes
// after the judging changed (and then its hint, which reads its reasons:
// AddHints leaves spooled ticks out), then those of Ticks.
func (rep *Report) tickReader() (func(i int) (*TickResult, error), error) {
	n := rep.tickSpool.len()
	if n == 0 {
		return func(i int) (*TickResult, error) { return &rep.Ticks[i], nil }, nil
	}
	next, err := rep.tickSpool.reader()
	if err != nil {
		return nil, fmt.Errorf("reading the spooled report: %w", err)
	}
	var t TickResult
	return func(i int) (*TickResult, error) {
		if i >= n {
			return &rep.Ticks[i-n], nil
		}
		var err error
		if t, err = next(); err != nil {
			return nil, err
		}
		rep.tickSpool.ix.patch(i, &t)
		if t.Failing {
			t.Hint = tickHint(&t)
		}
		return &t, nil
	}, nil
}

// Spool makes rep hold its objects and ticks out of memory (BranchSpooled):
// SpoolJudged moves them to temporary files as they are judged.
func (rep *Report) Spool() error {
	var err error
	if rep.objectSpool, err = newItemSpool(""); err != nil {
		return fmt.Errorf("spooling the report: %w", err)
	}
	if rep.tickSpool, err = newTickSpool("", 0); err != nil {
		rep.Close()
		return fmt.Errorf("spooling the report: %w", err)
	}
	rep.firstPolicy, rep.commitPolicy = map[objectTask][]policy.Result{}, map[objectTask][]policy.Result{}
	return nil
}

// SpoolJudged keys the ticks judged since its last call (Report.firstPolicy)
// and moves them to the report's tick spool (Ticks is left empty), and the
// objects judged with them to the report's object spool, with the
// per-object rules' results ApplyPolicy would give them: the first tick's
// with their key. Nothing changes those results later (the range rules'
// results are not given to a branch report's objects).
func (rep *Report) SpoolJudged() error {
	for j := range rep.Ticks {
		t := &rep.Ticks[j]
		if t.Commit != rep.policyCommit {
			// The objects judged with a commit's ticks are its own (their
			// keys' object): its keys are looked up no more, unless a bug
			// task's objects, judged after the ticks, are the commit's.
			clear(rep.commitPolicy)
			rep.policyCommit = t.Commit
		}
		k := t.objectKey()
		_, seen := rep.firstPolicy[k]
		if _, ok := rep.commitPolicy[k]; !ok && !seen {
			if k.object == t.Commit && !rep.bugCommits[k.object] {
				rep.commitPolicy[k] = t.Policy
			} else {
				rep.firstPolicy[k] = t.Policy
			}
		}
		t.Object = nil // keyed: nothing reads it again
		if err := rep.tickSpool.add(t); err != nil {
			return fmt.Errorf("spooling the report: %w", err)
		}
	}
	clear(rep.Ticks)
	rep.Ticks = rep.Ticks[:0]
	for i := range rep.Objects {
		o := &rep.Objects[i]
		k := objectTask{o.Object, o.Task, o.LineHash}
		p, ok := rep.firstPolicy[k]
		if !ok {
			p = rep.commitPolicy[k]
		}
		o.Policy = p
		o.Reasons, o.Signers, o.NewerFields = nonNil(o.Reasons), nonNil(o.Signers), nonNil(o.NewerFields)
		if err := rep.objectSpool.add(o); err != nil {
			return fmt.Errorf("spooling the report: %w", err)
		}
	}
	clear(rep.Objects)
	rep.Objects = rep.Objects[:0]
	return nil
}

// Spooled reports whether rep holds its objects and ticks out of memory (spool).
func (rep *Report) Spooled() bool { return rep.tickSpool != nil }

// ReserveTicks makes room in the index of rep's spooled ticks for n ticks at
// once, not a doubling array and its copy.
func (rep *Report) ReserveTicks(n int) {
	if s := rep.tickSpool; s != nil {
		s.ix.Reserve(n)
	}
}

// SetBugCommits names the commits whose bug tasks' objects the report holds
// after the ticks' (ApplyPolicy, SpoolJudged); known before the judging.
func (rep *Report) SetBugCommits(commits map[gitref.Hash]bool) { rep.bugCommits = commits }

// SetRangeCommits records how many commits the gate walked (RangeCommits).
func (rep *Report) SetRangeCommits(n int) { rep.commits = n }
