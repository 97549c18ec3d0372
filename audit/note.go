package audit

import (
	"fmt"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
	"time"
)

// reader turns notes into rows, collecting what it cannot read as problems.
type reader struct {
	rows     []Row
	problems []Problem
	// unreadable are the commits and subject names of task-verification
	// statements whose predicate could not be read.
	unreadable []rowKey
	// annotated are the commits that have a note, in reading order.
	annotated []gitref.Hash
	// strs holds one copy of each string that rows repeat (unit, verdict,
	// task ID, week, reason), so that thousands of rows share it.
	strs map[string]string
}

// intern returns s, or the equal string read before.
func (rd *reader) intern(s string) string {
	if t, ok := rd.strs[s]; ok {
		return t
	}
	if rd.strs == nil {
		rd.strs = map[string]string{}
	}
	rd.strs[s] = s
	return s
}

// rowKey joins a statement to a tick: the annotated commit and the subject name
// ("<feature>/<task id>").
type rowKey struct {
	commit gitref.Hash
	task   string
}

func (rd *reader) problem(commit gitref.Hash, line int, msg string) {
	rd.problems = append(rd.problems, Problem{Commit: commit, NoteLine: line, Message: msg})
}

// readNote reads every line of commit's note (docs/format.md#storage: JSON
// Lines of DSSE envelopes, or Sigstore bundles holding one, order not
// significant; each read by noteline.Decode). Lines that are not
// task-verification statements (test-result, VSA, other tools' statements) are
// skipped; lines that do not decode, or have another payloadType, are problems.
// Nothing is verified here.
func (rd *reader) readNote(commit gitref.Hash, note []byte) {
	rd.annotated = append(rd.annotated, commit)
	lines := noteline.Split(note)
	if len(lines) > noteline.MaxNoteLines {
		rd.problem(commit, 0, fmt.Sprintf("note has %d lines, more than %d (docs/format.md#limits); read anyway", len(lines), noteline.MaxNoteLines))
	}
	first := len(rd.rows)   // this note's rows are rd.rows[first:]
	var seen map[string]int // subject name and line hash → row index, for duplicates; made at the note's second row
	for i, raw := range lines {
		n := i + 1
		// A DSSE envelope or a Sigstore bundle holding one; a blank line is
		// no line, a malformed or foreign one a problem.
		dl := noteline.Decode(raw)
		switch dl.Kind {
		case noteline.KindBlank:
			continue
		case noteline.KindMalformed, noteline.KindForeign:
			rd.problem(commit, n, dl.Err.Error())
			continue
		}
		env := dl.Envelope
		st, err := statement.Decode(env.Payload)
		if err != nil {
			rd.problem(commit, n, err.Error())
			continue
		}
		if predicate.OtherRevision(st.PredicateType) {
			rd.problem(commit, n, fmt.Sprintf("statement for %s: predicateType %s: the predicate is not v0", st.Subjects[0].Name, st.PredicateType))
			continue
		}
		if st.PredicateType != predicate.PredicateType {
			continue
		}
		name := st.Subjects[0].Name
		p, err := predicate.FromValue(st.Predicate)
		if err != nil {
			rd.problem(commit, n, fmt.Sprintf("statement for %s: %v", name, err))
			rd.unreadable = append(rd.unreadable, rowKey{commit, name})
			continue
		}
		row := rd.rowOf(commit, n, name, p)
		row.Signature = Signature{Status: SigNotChecked, Count: len(env.Signatures), Signers: nil}
		if len(env.Signatures) == 0 {
			row.Signature.Status = SigUnsigned
		}
		if len(st.Subjects) != 1 {
			row.Problems = append(row.Problems, fmt.Sprintf("statement has %d subjects, not 1", len(st.Subjects)))
		}
		if got := st.Subjects[0].Digest["gitCommit"]; got != string(commit) {
			row.Problems = append(row.Problems, fmt.Sprintf("subject gitCommit %q is not the annotated commit", got))
		}
		if want := statement.SubjectName(p.Unit.Feature, p.Task.ID); want != name {
			row.Problems = append(row.Problems, fmt.Sprintf("subject name %q is not %q", name, want))
		}
		// A second statement for the same task line is a problem; statements
		// for two lines of a repeated task ID (their line_hash differs) are not.
		line := name + "\x00" + row.lineHash
		if seen == nil && len(rd.rows) > first {
			seen = make(map[string]int, len(rd.rows)-first+1)
			for j := len(rd.rows) - 1; j >= first; j-- {
				seen[rd.rows[j].Task+"\x00"+rd.rows[j].lineHash] = j // the first row of each line wins
			}
		}
		if j, dup := seen[line]; dup {
			row.Problems = append(row.Problems, fmt.Sprintf("second task-verification statement for %s (first at line %d)", name, rd.rows[j].NoteLine))
		} else if seen != nil {
			seen[line] = len(rd.rows)
		}
		rd.rows = append(rd.rows, row)
	}
}

// rowOf is the row of one readable task-verification statement, read
// revision-aware (docs/format.md#hash-recipes).
func (rd *reader) rowOf(commit gitref.Hash, line int, name string, p *predicate.Predicate) Row {
	view := p.Read()
	r := Row{
		Commit: commit, NoteLine: line, Task: name, TaskID: rd.intern(p.Task.ID), Title: p.Task.Title,
		Unit: specfmt.Unit{Format: specfmt.Format(rd.intern(string(p.Unit.Format))), Feature: rd.intern(p.Unit.Feature),
			Dir: rd.intern(p.Unit.Dir)},
		Verdict: rd.intern(string(p.Verdict)), Revision: view.Revision, Time: p.Time, Week: weekUnknown, // commitWeeks sets it
		NewerFields: view.NewerFields, lineHash: p.Task.LineHash,
	}
	if t, err := time.Parse(time.RFC3339, p.Time); err == nil {
		r.time = t
	}
	if d, ok := p.Decider.Get(); ok {
		r.Decider = &Decider{By: d.By, Reason: d.Reason}
	}
	switch {
	case view.Regression != nil:
		r.Regression = reasonOf(p, view.Regression)
		r.Regression.Reason = rd.intern(r.Regression.Reason)
	case view.RegressionMissing:
		r.Regression = &Reason{Reason: string(predicate.ReasonUnrecorded), Missing: true}
	}
	return r
}

// reasonOf copies a regression reason and its details; for tests_not_collected,
// the collection's not-collected files.
func reasonOf(p *predicate.Predicate, g *predicate.RegressionReason) *Reason {
	r := &Reason{Reason: string(g.Reason)}
	if s, ok := g.Story.Get(); ok {
		r.Story = s
	}
	if s, ok := g.Detail.Get(); ok {
		r.Detail = s
	}
	if c, ok := g.RedClass.Get(); ok {
		r.RedClass = string(c)
	}
	if b, ok := g.ImplementedBy.Get(); ok {
		ib := &ImplementedBy{}
		ib.Task, _ = b.Task.Get()
		ib.Commit, _ = b.Commit.Get()
		ib.BeforeFeature, _ = b.BeforeFeature.Get()
		r.ImplementedBy = ib
	}
	if g.Reason == predicate.ReasonTestsNotCollected {
		if c, ok := p.Collection.Get(); ok {
			for _, f := range c.Files {
				if f.State != predicate.StateNotCollected {
					continue
				}
				nc := NotCollected{Path: f.Path}
				nc.Why, _ = f.Why.Get()
				nc.Fixes, _ = f.Fixes.Get()
				if rule, ok := f.Rule.Get(); ok {
					nc.Rule = rule.Text
				}
				r.NotCollected = append(r.NotCollected, nc)
			}
		}
	}
	return r
}
