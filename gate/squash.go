package gate

import (
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/verify"
)

// A squash merge makes one commit of a branch's commits: its ticks' evidence
// stays on the branch's tick commits, each of which makes another change
// than the squash. The pair-wise carry the gate offers for a rewrite cannot
// move it (a tick commit some ref still holds is refused), and would take a
// command per task; `attest carry BASE..HEAD SQUASH` carries it all. The gate
// names that command when the tick commit is the squash of a range holding
// the evidence: its change against its only parent equals the range's
// combined change, as the carry itself checks
// (docs/format.md#after-a-rebase-or-squash).

// squashFinder remembers, for one gate, what finding squashed ranges read:
// the refs' reach, each tick commit's change, and the ranges found.
type squashFinder struct {
	reach   *gitref.RefReach
	changes map[gitref.Hash]string // tick commit → its change (gitref.Repo.PatchID), "" for no squash
	found   map[[2]gitref.Hash]string
}

// squashHint names the squash carry on commit_unreachable tick tr of commit
// tick when tick is the squash of a range holding tr's evidence: its
// message, hint and SquashRange say so.
func (g *gate) squashHint(tr *verify.TickResult, tick gitref.Hash) error {
	if tr.Evidence == "" {
		return nil
	}
	if g.squashes == nil {
		g.squashes = &squashFinder{changes: map[gitref.Hash]string{}, found: map[[2]gitref.Hash]string{}}
	}
	rng, err := g.squashes.rangeOf(g.v.Repo, tick, tr.Evidence)
	if err != nil || rng == "" {
		return err
	}
	tr.SquashRange, tr.HintKey = rng, verify.HintSquashCarry
	tr.Message = fmt.Sprintf("evidence for %s is on %s, a commit of %s, which the tick commit is the squash merge of (its change is theirs together); re-issue the range's evidence here: taskproof attest carry %s %s",
		tr.Task, tr.Evidence, rng, rng, tick)
	return nil
}

// rangeOf returns the range PARENT..HEAD that commit squash is the squash
// merge of, when evidence is one of its commits: PARENT is squash's only
// parent and HEAD the evidence commit or the tip of a ref holding it (the
// squashed branch), whichever makes the same change as squash from the
// merge base. "" when none does, or when the evidence commit makes squash's
// own change (a rebase or cherry-pick: the pair-wise carry is right).
func (f *squashFinder) rangeOf(repo *gitref.Repo, squash, evidence gitref.Hash) (string, error) {
	k := [2]gitref.Hash{squash, evidence}
	if r, ok := f.found[k]; ok {
		return r, nil
	}
	r, err := f.find(repo, squash, evidence)
	if err == nil {
		f.found[k] = r
	}
	return r, err
}

func (f *squashFinder) find(repo *gitref.Repo, squash, evidence gitref.Hash) (string, error) {
	sc, err := repo.Commit(squash)
	if err != nil || len(sc.Parents) != 1 {
		return "", err
	}
	parent := sc.Parents[0]
	change, ok := f.changes[squash]
	if !ok {
		pe, err := repo.PatchID(evidence)
		if err != nil {
			return "", err
		}
		ps, err := repo.PatchID(squash)
		if err != nil {
			return "", err
		}
		if pe != ps {
			if change, err = repo.PatchID(parent, squash); err != nil {
				return "", err
			}
		}
		f.changes[squash] = change
	}
	if change == "" {
		return "", nil
	}
	heads := []gitref.Hash{evidence}
	if f.reach == nil {
		if f.reach, err = repo.RefReach(); err != nil {
			return "", err
		}
	}
	ref, err := f.reach.Ref(evidence)
	if err != nil {
		return "", err
	}
	if ref != "" {
		if tip, err := repo.Resolve(ref); err == nil && tip != evidence {
			heads = append(heads, tip)
		}
	}
	for _, head := range heads {
		merged, err := repo.IsAncestor(head, squash)
		if err != nil {
			return "", err
		}
		if merged {
			continue
		}
		mb, err := repo.MergeBase(parent, head)
		if err != nil {
			return "", err
		}
		c, err := repo.PatchID(mb, head)
		if err != nil {
			return "", err
		}
		if c == change {
			return printable.Short(string(parent)) + ".." + printable.Short(string(head)), nil
		}
	}
	return "", nil
}
