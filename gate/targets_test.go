package gate

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
)

// TestResolveTargets: objects (default HEAD), a range A..B whose base is
// read as trusted, --branch with and without --base; contradictory
// arguments are ErrTargets, and a --base without --branch is refused
// before any repository is read.
func TestResolveTargets(t *testing.T) {
	f := newBaseFixture(t)
	f.git("switch", "-q", "-c", "feature")
	one := f.tick("T001")
	two := f.tick("T002")
	repo := f.open()

	tg, err := ResolveTargets(repo, TargetArgs{})
	if err != nil || tg.Range || !slices.Equal(tg.Objects, []gitref.Hash{two}) {
		t.Errorf("no arguments: %+v, %v; want the object HEAD", tg, err)
	}
	tg, err = ResolveTargets(repo, TargetArgs{Args: []string{"HEAD~1", "HEAD"}})
	if err != nil || tg.Range || !slices.Equal(tg.Objects, []gitref.Hash{one, two}) {
		t.Errorf("two objects: %+v, %v", tg, err)
	}
	tg, err = ResolveTargets(repo, TargetArgs{Args: []string{"main..feature"}})
	if err != nil || !tg.Range || tg.Base != f.base || tg.Head != two {
		t.Errorf("range: %+v, %v; want %s..%s", tg, err, f.base, two)
	}
	tg, err = ResolveTargets(repo, TargetArgs{Branch: true})
	if err != nil || !tg.Range || tg.Base != f.base || tg.Head != two {
		t.Errorf("--branch: %+v, %v; want the default base main", tg, err)
	}
	tg, err = ResolveTargets(repo, TargetArgs{Branch: true, Base: "HEAD~1", Args: []string{"feature"}})
	if err != nil || !tg.Range || tg.Base != one || tg.Head != two {
		t.Errorf("--branch --base HEAD~1: %+v, %v", tg, err)
	}
	if _, err := ResolveTargets(repo, TargetArgs{Branch: true, Base: "nosuch"}); !errors.Is(err, gitref.ErrUnknownRevision) || !strings.HasPrefix(err.Error(), "--base: ") {
		t.Errorf("unknown --base: %v", err)
	}
	if _, err := ResolveTargets(repo, TargetArgs{Branch: true, PRBase: "nosuch"}); err == nil || !strings.HasPrefix(err.Error(), "--base") {
		t.Errorf("pull request base not fetched: %v", err)
	}
	for _, a := range []TargetArgs{
		{Branch: true, Args: []string{"main..feature"}},
		{Branch: true, Args: []string{"main", "feature"}},
		{Base: "main"},
	} {
		if _, err := ResolveTargets(repo, a); !errors.Is(err, ErrTargets) {
			t.Errorf("%+v: %v, want ErrTargets", a, err)
		}
	}
	if err := (TargetArgs{Base: "main"}).Check(); !errors.Is(err, ErrTargets) || err.Error() != "--base goes with --branch" {
		t.Errorf("Check: %v", err)
	}
}
