// Package rewrite decides whether a commit is a rewrite of another: the same
// work put on another base or into another commit, as a cherry-pick, rebase,
// amend or squash merge leaves it. Only then may the statements that judged
// the one be carried to the other (docs/format.md#after-a-rebase-or-squash):
// `attest carry` refuses what [Judge] does not accept, and the merge gate
// offers the carry only where it would be accepted.
//
// The rule: the statements on FROM judged FROM's tree, built by the commits
// of FROM's side of its merge base with TO (FROM's own change and the
// branch's earlier ones). TO carries them when it has FROM's tree, or when TO,
// alone or with the commits just before it on its first-parent line, makes
// that same change ([gitref.Repo.FileChanges]: file by file, the lines lost
// and gained, whitespace included). A FROM that is TO or one of its ancestors
// is an earlier tick, never a rewrite.
package rewrite

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/gitref"
)

// MaxCommits bounds the commits of FROM's side of the merge base that a
// judgement compares, and so the commits of TO's line it tries: a larger side
// is refused, naming the bound.
const MaxCommits = 2000

// Judgement is what [Judge] found.
type Judgement struct {
	From, To gitref.Hash
	// Accepted: TO is a rewrite of FROM, and FROM's statements may be
	// carried to it.
	Accepted bool
	// SameTree: TO has FROM's tree.
	SameTree bool
	// Base is the merge base of FROM and TO ("" when they share no history
	// or have the same tree).
	Base gitref.Hash
	// Commits is the number of commits of Base..FROM: the change FROM's
	// statements judged.
	Commits int
	// Span, when Accepted without SameTree, is the number of commits of
	// TO's first-parent line, TO included, that make that change together
	// (1 for a cherry-pick of one commit or a squash merge).
	Span int
	// Earlier: FROM is TO or one of TO's ancestors, an earlier tick of the
	// line.
	Earlier bool
	// Why says, when not Accepted, what differs, for a person.
	Why string
}

// Judge judges whether to is a rewrite of from (see the package comment).
// Errors are the repository's (a missing commit, a shallow clone's edge,
// the git program).
func Judge(repo *gitref.Repo, from, to gitref.Hash) (*Judgement, error) {
	j := &Judgement{From: from, To: to}
	if from == to {
		j.Earlier, j.Why = true, "FROM and TO are the same commit"
		return j, nil
	}
	if earlier, err := repo.IsAncestor(from, to); err != nil {
		return nil, err
	} else if earlier {
		j.Earlier, j.Why = true, fmt.Sprintf("%s is an ancestor of %s: its statements are evidence of an earlier tick, not of this one", short(from), short(to))
		return j, nil
	}
	fc, err := repo.Commit(from)
	if err != nil {
		return nil, err
	}
	tc, err := repo.Commit(to)
	if err != nil {
		return nil, err
	}
	if fc.Tree == tc.Tree {
		j.Accepted, j.SameTree = true, true
		return j, nil
	}
	if j.Base, err = repo.MergeBase(from, to); err != nil {
		return nil, err
	}
	if j.Base == "" {
		j.Why = fmt.Sprintf("%s and %s share no history", short(from), short(to))
		return j, nil
	}
	side, err := repo.List(j.Base, from, false)
	if err != nil {
		return nil, err
	}
	if j.Commits = side.Len(); j.Commits > MaxCommits {
		j.Why = fmt.Sprintf("%s has %d commits since its merge base %s with %s, more than the %d a judgement compares", short(from), j.Commits, short(j.Base), short(to), MaxCommits)
		return j, nil
	}
	return j, j.sameChange(repo, tc)
}

// sameChange looks for the run of TO's first-parent line, ending at TO and
// at most j.Commits long, whose change is Base..FROM's, comparing paths first
// (trees only) and the file changes of runs touching the same paths.
func (j *Judgement) sameChange(repo *gitref.Repo, tc *gitref.Commit) error {
	wantPaths, err := repo.ChangedPaths(j.Base, j.From, true)
	if err != nil {
		return err
	}
	var want map[string]string
	best, bestMiss := gitref.Hash(""), -1 // the run whose paths are closest, for Why
	bestSpan := 0
	c := tc
	for k := 1; k <= j.Commits && len(c.Parents) > 0; k++ {
		start := c.Parents[0]
		paths, err := repo.ChangedPaths(start, j.To, true)
		if err != nil {
			return err
		}
		if miss := symmetricDifference(wantPaths, paths); bestMiss < 0 || miss < bestMiss {
			best, bestMiss, bestSpan = start, miss, k
		}
		if slices.Equal(paths, wantPaths) {
			if want == nil {
				if want, err = repo.FileChanges(j.Base, j.From); err != nil {
					return err
				}
			}
			got, err := repo.FileChanges(start, j.To)
			if err != nil {
				return err
			}
			if equalChanges(want, got) {
				j.Accepted, j.Span = true, k
				return nil
			}
		}
		if start == j.Base {
			break // further back, TO's line holds the base's own history
		}
		if c, err = repo.Commit(start); err != nil {
			return err
		}
	}
	return j.explain(repo, best, bestSpan)
}

// explain sets Why: what the run of TO's line closest to FROM's change
// (start..TO, span commits) changes differently.
func (j *Judgement) explain(repo *gitref.Repo, start gitref.Hash, span int) error {
	what := fmt.Sprintf("the change of %s..%s (%s)", short(j.Base), short(j.From), plural(j.Commits, "commit"))
	if start == "" {
		j.Why = fmt.Sprintf("%s is a root commit, which cannot make %s", short(j.To), what)
		return nil
	}
	want, err := repo.FileChanges(j.Base, j.From)
	if err != nil {
		return err
	}
	got, err := repo.FileChanges(start, j.To)
	if err != nil {
		return err
	}
	var only, other, extra []string
	for p, id := range want {
		switch g, ok := got[p]; {
		case !ok:
			only = append(only, p)
		case g != id:
			other = append(other, p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			extra = append(extra, p)
		}
	}
	run := short(j.To) + "'s own change"
	if span > 1 {
		run = fmt.Sprintf("that of %s with the %s before it", short(j.To), plural(span-1, "commit"))
	}
	var parts []string
	if len(only) > 0 {
		parts = append(parts, "lacks the change to "+list(only))
	}
	if len(other) > 0 {
		parts = append(parts, "changes "+list(other)+" otherwise")
	}
	if len(extra) > 0 {
		parts = append(parts, "also changes "+list(extra))
	}
	if len(parts) == 0 {
		parts = append(parts, "differs")
	}
	j.Why = fmt.Sprintf("%s's statements judged %s; no run of %s's first-parent line makes that change (the closest, %s, %s)",
		short(j.From), what, short(j.To), run, strings.Join(parts, "; "))
	return nil
}

func equalChanges(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for p, id := range a {
		if b[p] != id {
			return false
		}
	}
	return true
}

// symmetricDifference counts the paths of one sorted list not in the other.
func symmetricDifference(a, b []string) int {
	n, i, k := 0, 0, 0
	for i < len(a) || k < len(b) {
		switch {
		case k >= len(b) || (i < len(a) && a[i] < b[k]):
			n, i = n+1, i+1
		case i >= len(a) || b[k] < a[i]:
			n, k = n+1, k+1
		default:
			i, k = i+1, k+1
		}
	}
	return n
}

// list names at most five paths, sorted.
func list(paths []string) string {
	sort.Strings(paths)
	if len(paths) > 5 {
		return strings.Join(paths[:5], ", ") + fmt.Sprintf(" and %d more", len(paths)-5)
	}
	return strings.Join(paths, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func short(h gitref.Hash) string {
	if len(h) > 12 {
		return string(h[:12])
	}
	return string(h)
}
