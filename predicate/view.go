package predicate

import "github.com/taskproof/taskproof/internal/strictjson"

import "sort"

// View is the revision-aware reading of a predicate (the revision rules
// at the end of docs/format.md#hash-recipes): what a verifier may decide on.
type View struct {
	// Revision is the predicate's revision; absent (or null) reads as 1.
	Revision uint32
	// Regression is why a regression_only tick is one; nil for other verdicts. A
	// regression_only tick of revision < 3 without a reason (absent or null) reads as
	// {"reason":"unrecorded"}.
	Regression *RegressionReason
	// RegressionMissing is true for a regression_only tick of revision ≥ 3 without a
	// reason: the writer broke revision 3, and nothing is made up for it.
	RegressionMissing bool
	// RedExpected is true from revision 2 on.
	RedExpected bool
	// Red is the red run's excerpt when RedExpected and present; a red member in an
	// earlier revision is not read (and is listed in NewerFields).
	Red *Red
	// NewerFields are the members this version does not know, as sorted key paths
	// ("foo", "unit.bar", "collection.files[].baz"); they never decide an outcome.
	NewerFields []string
}

// Read returns the revision-aware view of p (docs/format.md#hash-recipes).
func (p *Predicate) Read() View {
	v := View{Revision: 1}
	if n, ok := p.Revision.Get(); ok {
		v.Revision = n
	}
	v.RedExpected = v.Revision >= 2
	newer := map[string]bool{}
	if red, ok := p.Red.Get(); ok {
		if v.RedExpected {
			v.Red = &red
		} else {
			newer["red"] = true
		}
	}
	if p.Verdict == RegressionOnly {
		switch g, ok := p.Regression.Get(); {
		case ok:
			v.Regression = &g
		case v.Revision < 3:
			v.Regression = &RegressionReason{Reason: ReasonUnrecorded}
		default:
			v.RegressionMissing = true
		}
	}
	p.newerFields(newer)
	for k := range newer {
		v.NewerFields = append(v.NewerFields, k)
	}
	sort.Strings(v.NewerFields)
	return v
}

func (p *Predicate) newerFields(out map[string]bool) {
	add := func(prefix string, extra map[string]any) {
		for k := range extra {
			out[strictjson.JoinKey(prefix, k)] = true
		}
	}
	add("", p.Extra)
	add("unit", p.Unit.Extra)
	add("task", p.Task.Extra)
	if s, ok := p.Spec.Get(); ok {
		add("spec", s.Extra)
	}
	if d, ok := p.Decider.Get(); ok {
		add("decider", d.Extra)
	}
	if r, ok := p.Red.Get(); ok {
		add("red", r.Extra)
	}
	if g, ok := p.Regression.Get(); ok {
		add("regression", g.Extra)
		if b, ok := g.ImplementedBy.Get(); ok {
			add("regression.implemented_by", b.Extra)
		}
	}
	if c, ok := p.Collection.Get(); ok {
		add("collection", c.Extra)
		for _, f := range c.Files {
			add("collection.files[]", f.Extra)
			if r, ok := f.Rule.Get(); ok {
				add("collection.files[].rule", r.Extra)
			}
		}
		runs, _ := c.Listing.Get()
		for _, l := range runs {
			add("collection.listing[]", l.Extra)
		}
	}
}
