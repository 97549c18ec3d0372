package gitref

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/patchid"
)

// IsAncestor reports whether commit a is b or one of b's ancestors (as
// `git merge-base --is-ancestor a b`), walking b's history (once per pair and
// Repo). In a shallow clone
// a walk that reaches the clone's edge without finding a cannot tell: an
// error matching ErrShallow.
func (r *Repo) IsAncestor(a, b Hash) (bool, error) {
	if v, ok := r.ancestors.Load([2]Hash{a, b}); ok {
		return v.(bool), nil
	}
	ok, err := r.isAncestor(a, b)
	if err == nil {
		r.ancestors.Store([2]Hash{a, b}, ok)
	}
	return ok, err
}

func (r *Repo) isAncestor(a, b Hash) (bool, error) {
	if _, err := r.commit(a); err != nil {
		return false, err
	}
	want := toPlumbing(a)
	var edge plumbing.Hash
	found, err := r.walkHistory(toPlumbing(b), map[plumbing.Hash]bool{}, false, func(h plumbing.Hash, _ *object.Commit) bool {
		if h == want {
			return true
		}
		if edge.IsZero() && r.isShallowCommit(h) {
			edge = h
		}
		return false
	})
	switch {
	case err != nil || found:
		return found, err
	case !edge.IsZero():
		return false, &gitobj.ShallowError{Commit: fromPlumbing(edge), Need: fmt.Sprintf("telling whether %s is an ancestor of %s needs the history beyond it", a, b)}
	}
	return false, nil
}

// MergeBase returns a best common ancestor of commits a and b, "" when they
// share none.
func (r *Repo) MergeBase(a, b Hash) (Hash, error) {
	ca, err := r.commit(a)
	if err != nil {
		return "", err
	}
	cb, err := r.commit(b)
	if err != nil {
		return "", err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return "", nil
	}
	return fromPlumbing(bases[0].Hash), nil
}

// RefReach says which commits the repository's refs (all but the notes refs,
// skip records and speccoder's attempts), HEAD and linked worktrees' HEADs
// reach, and which commits only the attempts reach, as the refs were when
// [Repo.RefReach] listed them. The histories are walked once, on the first
// question that needs them; it is safe for concurrent use.
type RefReach struct {
	r           *Repo
	tips        []namedTip // HEAD, the refs in name order, linked worktrees' HEADs
	attemptTips []namedTip
	once        sync.Once
	by          map[plumbing.Hash]string
	// attempts holds the commits only speccoder's attempt refs reach.
	attempts map[plumbing.Hash]string
	err      error
}

// Ref names a ref (or "HEAD") whose history holds c, "" when none does:
// whether c is still part of some history (a cherry-picked original) or only
// of reflogs (a rewritten one).
func (rr *RefReach) Ref(c Hash) (string, error) {
	rr.once.Do(rr.walk)
	return rr.by[toPlumbing(c)], rr.err
}

// Attempt names the attempt ref (refs/speccoder/attempts/…) whose history
// holds c when no other ref's does: a commit of speccoder's attempt at a
// task, which carries no evidence. "" otherwise; in a repository without
// attempt refs it walks nothing.
func (rr *RefReach) Attempt(c Hash) (string, error) {
	if len(rr.attemptTips) == 0 {
		return "", nil
	}
	rr.once.Do(rr.walk)
	return rr.attempts[toPlumbing(c)], rr.err
}

// RefReach lists the tips [RefReach] walks: HEAD, every ref but those under
// refs/notes/ and refs/speccoder/ (in name order; a tag is peeled to its
// commit), each linked worktree's HEAD, and speccoder's attempt refs. A
// walk stops at a shallow clone's edge.
func (r *Repo) RefReach() (*RefReach, error) {
	tips, err := r.refTips()
	if err != nil {
		return nil, err
	}
	if head, err := r.Resolve("HEAD"); err == nil {
		tips = append([]namedTip{{"HEAD", toPlumbing(head)}}, tips...)
	}
	// Linked worktrees' HEADs hold history too (git counts them as roots).
	if dirs, err := os.ReadDir(filepath.Join(r.commonDir, "worktrees")); err == nil {
		for _, d := range dirs {
			b, err := os.ReadFile(filepath.Join(r.commonDir, "worktrees", d.Name(), "HEAD"))
			if err != nil {
				continue
			}
			v := strings.TrimSpace(string(b))
			if target, ok := strings.CutPrefix(v, "ref: "); ok {
				id, err := r.ReadRef(target)
				if err != nil || id == "" {
					continue
				}
				v = string(id)
			}
			if h, err := ParseHash(v); err == nil {
				tips = append(tips, namedTip{"worktree " + d.Name() + " HEAD", toPlumbing(h)})
			}
		}
	}
	attempts, err := r.attemptTips()
	if err != nil {
		return nil, err
	}
	return &RefReach{r: r, tips: tips, attemptTips: attempts}, nil
}

// walk walks the tips' histories, then the attempts' past what the tips reach.
func (rr *RefReach) walk() {
	rr.by, rr.attempts = map[plumbing.Hash]string{}, map[plumbing.Hash]string{}
	seen := map[plumbing.Hash]bool{}
	for _, t := range rr.tips {
		if _, err := rr.r.walkHistory(t.id, seen, true, func(h plumbing.Hash, _ *object.Commit) bool {
			rr.by[h] = t.name
			return false
		}); err != nil {
			rr.err = err
			return
		}
	}
	for _, t := range rr.attemptTips {
		if _, err := rr.r.walkHistory(t.id, seen, true, func(h plumbing.Hash, _ *object.Commit) bool {
			rr.attempts[h] = t.name
			return false
		}); err != nil {
			rr.err = err
			return
		}
	}
}

// PatchID identifies a change as `git patch-id --verbatim` does (git 2.39
// lacks that option): the SHA-256 of `git diff-tree -p` without the lines
// that depend on the base (blob ids in "index" lines, line numbers in "@@"
// headers), whitespace kept, so that `rm -rf /tmp/x` and `rm -rf / tmp/x` are
// two changes. With one commit c, the change of c against its first parent:
// the same for a cherry-pick or rebase of a change that applied cleanly,
// whatever the base (once per commit and Repo). With c and a second commit to,
// the change from c's tree to to's: the change of a range of commits taken
// together, to compare with the one commit a squash merge made of them. ""
// for an empty diff (or a merge, which diff-tree shows no patch for). It runs
// the git program (an error matching ErrGitProgram when it cannot).
func (r *Repo) PatchID(c Hash, to ...Hash) (string, error) {
	if len(to) > 1 {
		return "", fmt.Errorf("PatchID of %s: %d commits to compare with, want at most one", c, len(to))
	}
	if len(to) == 1 {
		if _, err := ParseHash(string(c)); err != nil {
			return "", err
		}
		return patchid.Of(r.gitDir, c, to[0])
	}
	if v, ok := r.patchIDs.Load(c); ok {
		return v.(string), nil
	}
	id, err := patchid.Of(r.gitDir, c)
	if err == nil {
		r.patchIDs.Store(c, id)
	}
	return id, err
}
