package gate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/errkind"
	"github.com/taskproof/taskproof/verify"
)

// ErrTargets is matched by the errors of [TargetArgs.Check] and
// [ResolveTargets]: arguments that contradict each other (a range and
// --branch, a --base without --branch, two heads).
var ErrTargets = errors.New("verify arguments that contradict each other")

// TargetArgs are what verify is asked to check, as its command line names
// it: Branch (--branch) verifies every tick of BASE..HEAD, Base (--base) is
// BASE, Args the revisions (objects, a range A..B, or --branch's one HEAD),
// and PRBase the branch a pull request goes into (GITHUB_BASE_REF), which
// the default base follows.
type TargetArgs struct {
	Branch bool
	Base   string
	Args   []string
	PRBase string
}

// Check refuses the combinations of arguments that need no repository to
// refuse: a Base without Branch.
func (a TargetArgs) Check() error {
	if !a.Branch && a.Base != "" {
		return errkind.New(ErrTargets, "--base goes with --branch")
	}
	return nil
}

// ResolveTargets reads a into what is verified: --branch [HEAD] (the base
// from Base, else [DefaultBase]), a range A..B, or objects (default HEAD). A
// range's base, and Base, are resolved as trusted revisions
// (gitref.Repo.ResolveTrusted): the base decides what is checked.
func ResolveTargets(repo *gitref.Repo, a TargetArgs) (verify.Verified, error) {
	var t verify.Verified
	if err := a.Check(); err != nil {
		return t, err
	}
	args := a.Args
	var err error
	isRange := len(args) == 1 && strings.Contains(args[0], "..")
	if !a.Branch && !isRange {
		if len(args) == 0 {
			args = []string{"HEAD"}
		}
		for _, arg := range args {
			id, err := repo.Resolve(arg)
			if err != nil {
				return t, err
			}
			t.Objects = append(t.Objects, id)
		}
		return t, nil
	}
	t.Range = true
	if isRange {
		if a.Branch {
			return t, errkind.New(ErrTargets, "give --branch or a range A..B, not both")
		}
		if t.Base, t.Head, err = repo.ResolveRange(args[0]); err != nil {
			return t, err
		}
		// The range's base decides what is checked, as --base does.
		if b, _, _ := strings.Cut(args[0], ".."); b != "" {
			t.Base, _, err = repo.ResolveTrusted(b)
		}
		return t, err
	}
	if len(args) > 1 {
		return t, errkind.New(ErrTargets, "--branch takes at most one HEAD revision")
	}
	head := "HEAD"
	if len(args) == 1 {
		head = args[0]
	}
	if t.Head, err = repo.Resolve(head); err != nil {
		return t, err
	}
	if a.Base == "" {
		t.Base, err = defaultBaseOf(repo, t.Head, a.PRBase)
		return t, err
	}
	if t.Base, _, err = repo.ResolveTrusted(a.Base); err != nil {
		return t, fmt.Errorf("--base: %w", err)
	}
	return t, nil
}

// defaultBaseOf is [DefaultBase], its errors naming --base (and how to give
// one).
func defaultBaseOf(repo *gitref.Repo, head gitref.Hash, prBase string) (gitref.Hash, error) {
	id, err := DefaultBase(repo, head, prBase)
	var de *DefaultBaseError
	switch {
	case errors.As(err, &de) && de.Candidate != "":
		return "", fmt.Errorf("--base (default %s): %w; give --base the branch the changes go into", de.Candidate, de.Err)
	case errors.As(err, &de) && len(de.Ambiguous) > 0:
		return "", fmt.Errorf("--base: %w; give --base the branch the changes go into (e.g. --base origin/<target branch>), or record the remote's default branch (git remote set-head origin --auto)", err)
	case err != nil:
		return "", fmt.Errorf("--base: %w; give --base the branch the changes go into (e.g. --base origin/<target branch>), fetched first if the checkout lacks it (git fetch origin <target branch>)", err)
	}
	return id, nil
}
