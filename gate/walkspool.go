package gate

import (
	"fmt"
	"io"

	"github.com/taskproof/taskproof/internal/spoolfile"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/tick"
)

// walkSpool holds the tick walk's ticks out of memory between the walk and
// the judging (BranchSpooled): one gob record per commit's ticks, in walk
// order, in a temporary file whose name is gone once it is open.
type walkSpool struct {
	recs *spoolfile.Records[spooledCommit]
	rec  spooledCommit
}

// spooledCommit is one commit's ticks as the walk found them. gob does not
// tell a nil slice from an empty one: the two task lists that are empty and
// not nil are marked, so that a tick read back is the tick written.
type spooledCommit struct {
	Ticks []tick.Tick
	// EmptyLabels and EmptyRequirements list the indexes in Ticks of the
	// ticks whose Task.Labels, Task.Requirements are empty and not nil.
	EmptyLabels, EmptyRequirements []int
}

func newWalkSpool(dir string) (*walkSpool, error) {
	recs, err := spoolfile.CreateRecords[spooledCommit](dir, "taskproof-walk-*")
	if err != nil {
		return nil, err
	}
	return &walkSpool{recs: recs}, nil
}

// add writes one commit's ticks.
func (s *walkSpool) add(ticks []tick.Tick) error {
	s.rec = spooledCommit{Ticks: ticks, EmptyLabels: s.rec.EmptyLabels[:0], EmptyRequirements: s.rec.EmptyRequirements[:0]}
	for i := range ticks {
		if l := ticks[i].Task.Labels; l != nil && len(l) == 0 {
			s.rec.EmptyLabels = append(s.rec.EmptyLabels, i)
		}
		if r := ticks[i].Task.Requirements; r != nil && len(r) == 0 {
			s.rec.EmptyRequirements = append(s.rec.EmptyRequirements, i)
		}
	}
	err := s.recs.Add(&s.rec)
	s.rec.Ticks = nil
	return err
}

// reader returns a function giving the spooled commits' ticks in the order
// add wrote them, then nil and io.EOF.
func (s *walkSpool) reader() (func() ([]tick.Tick, error), error) {
	next, err := s.recs.Reader()
	if err != nil {
		return nil, err
	}
	// The paths and units of a range's ticks are few, and the report's
	// ticks keep them: one copy each, not one a tick.
	seen := map[string]string{}
	intern := func(p *string) {
		if v, ok := seen[*p]; ok {
			*p = v
		} else {
			seen[*p] = *p
		}
	}
	return func() ([]tick.Tick, error) {
		rec, err := next()
		if err != nil {
			if err == io.EOF {
				return nil, err
			}
			return nil, fmt.Errorf("reading the spooled tick walk: %w", err)
		}
		for i := range rec.Ticks {
			t := &rec.Ticks[i]
			for _, p := range []*string{&t.Path, &t.OldPath, &t.Root, &t.Unit.Feature, &t.Unit.Dir} {
				intern(p)
			}
			f := string(t.Unit.Format)
			intern(&f)
			t.Unit.Format = specfmt.Format(f)
		}
		for _, i := range rec.EmptyLabels {
			rec.Ticks[i].Task.Labels = []string{}
		}
		for _, i := range rec.EmptyRequirements {
			rec.Ticks[i].Task.Requirements = []string{}
		}
		return rec.Ticks, nil
	}, nil
}

func (s *walkSpool) close() error { return s.recs.Close() }
