package attest

import (
	"context"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/tick"
)

// Reissued is a task-verification predicate taken from another commit's note
// (package carry) and the tick of the commit it is re-issued on.
type Reissued struct {
	// Subject is the predicate's subject name in the note it comes from.
	Subject   string
	Tick      tick.Tick
	Predicate *predicate.Predicate
}

// ReissueOptions are how [Reissue] signs and writes.
type ReissueOptions struct {
	// Signers sign the re-issued statements; none: they are written unsigned.
	Signers []signer.Signer
	// DryRun builds and signs the statements and writes nothing.
	DryRun bool
	// Force replaces the statements to's note already holds for a task;
	// without it Reissue fails with an *AttestedError naming them
	// (docs/format.md#attesting-safely).
	Force bool
}

// Reissue writes on to the statements of predicates carried from another
// commit (docs/format.md#after-a-rebase-or-squash), one update of to's note
// (docs/format.md#storage: its other lines are kept). Each predicate keeps its
// evidence (verdict, trace, red, decider, time, every other member) and gets,
// as [Tick] computes them, the members that depend on the commit: unit, tree
// (to's tree), task ID, line_hash and title (the ticked task line, read as
// open), spec (the cited section at to) and policy_sha256 (to's first
// parent's speccoder.toml). The predicates are changed in place. Nothing is
// written when building or signing any of them fails.
func Reissue(ctx context.Context, repo *gitref.Repo, notes *gitref.NotesStore, to *gitref.Commit, items []Reissued, o ReissueOptions) ([]Written, error) {
	policy, err := readOptional(repo, to.FirstParent(), "speccoder.toml")
	if err != nil {
		return nil, err
	}
	policySHA, err := predicate.PolicySHA256(policy)
	if err != nil {
		return nil, err
	}
	fsys, err := repo.FS(to.ID)
	if err != nil {
		return nil, err
	}
	var batch []pending
	for _, it := range items {
		task, repeated, err := tickTask(repo, it.Tick)
		if err != nil {
			return nil, err
		}
		unit := specfmt.Dialect(fsys, it.Tick.Unit)
		section, err := specfmt.Section(fsys, unit, task)
		if err != nil {
			return nil, fmt.Errorf("spec section of %s at %s: %w", it.Subject, to.ID, err)
		}
		p := it.Predicate
		p.Unit.Format, p.Unit.Feature, p.Unit.Dir = string(unit.Format), unit.Feature, unit.Dir
		p.Tree = string(to.Tree)
		p.Task.ID, p.Task.LineHash, p.Task.Title = task.ID, predicate.LineHash(task.OpenLine()), task.Title
		if section != nil {
			p.Spec = predicate.Some(predicate.SpecRef{Section: predicate.Some(section.Name), SectionHash: predicate.SectionHash(section.Text)})
		} else {
			p.Spec = predicate.Null[predicate.SpecRef]()
		}
		p.PolicySHA256 = policySHA
		pd, err := prepare(ctx, to.ID, it.Tick.Unit, task.ID, p, o.Signers, nil)
		if err != nil {
			return nil, err
		}
		if repeated {
			pd.line = p.Task.LineHash
		}
		pd.w.Warnings = append(pd.w.Warnings, tickNotes(it.Tick)...)
		batch = append(batch, pd)
	}
	nc, err := commitNote(notes, to.ID, batch, noteWrite{dryRun: o.DryRun, force: o.Force})
	if err != nil {
		return nil, err
	}
	written := make([]Written, 0, len(batch))
	for _, pd := range batch {
		pd.w.NotesCommit = nc
		written = append(written, *pd.w)
	}
	return written, nil
}
