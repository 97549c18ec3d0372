package gitref

import (
	"errors"
	"strings"
	"testing"
)

// TestResolveTrusted: the strict resolution of revisions that decide trust or
// the range (docs/format.md#ambiguous-ref-names), case by case on a repository
// built with the real git: the ref each resolves through, or the refusal.
func TestResolveTrusted(t *testing.T) {
	dir := newRepo(t)
	a := commitFiles(t, dir, "a", map[string]string{"f": "a\n"})
	b := commitFiles(t, dir, "b", map[string]string{"f": "b\n"})
	gitOut(t, dir, "remote", "add", "origin", "file:///nonexistent")
	gitOut(t, dir, "update-ref", "refs/remotes/origin/main", string(a))
	gitOut(t, dir, "tag", "v1", string(a))
	gitOut(t, dir, "tag", "origin/dev", string(b))
	gitOut(t, dir, "update-ref", "refs/trunk", string(b))
	gitOut(t, dir, "update-ref", "refs/remotes/upstream/HEAD", string(b)) // plain: a pushed branch named HEAD
	gitOut(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	repo := open(t, dir)
	cases := []struct {
		rev, ref string
		id       Hash
		refused  string // part of the error; "" for none
	}{
		{rev: string(a), id: a},
		{rev: "HEAD", id: b},
		{rev: "HEAD~1", id: a},
		{rev: "main", ref: "refs/heads/main", id: b},
		{rev: "main~1", ref: "refs/heads/main", id: a},
		{rev: "refs/heads/main", ref: "refs/heads/main", id: b},
		{rev: "origin/main", ref: "refs/remotes/origin/main", id: a},
		{rev: "origin", ref: "refs/remotes/origin/main", id: a},
		{rev: "origin/HEAD", ref: "refs/remotes/origin/main", id: a},
		{rev: "refs/remotes/origin/HEAD", ref: "refs/remotes/origin/main", id: a},
		{rev: "tags/v1", ref: "refs/tags/v1", id: a},
		{rev: "refs/tags/v1", ref: "refs/tags/v1", id: a},
		{rev: "v1", refused: "is the tag refs/tags/v1"},
		{rev: "origin/dev", refused: "git fetch origin +refs/heads/dev:refs/remotes/origin/dev"},
		{rev: "trunk", refused: "is the ref refs/trunk"},
		{rev: "upstream/HEAD", refused: "plain ref"},
		{rev: "refs/remotes/upstream/HEAD", refused: "plain ref"},
		{rev: "upstream", refused: "plain ref"},
		{rev: "main@{1}", refused: "~N or ^N"},
		{rev: "nosuch", refused: "unknown revision"},
	}
	for _, c := range cases {
		id, ref, err := repo.ResolveTrusted(c.rev)
		switch {
		case c.refused != "":
			if err == nil || !errors.Is(err, ErrUnknownRevision) || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%s: %s, %s, %v; want an unknown revision error saying %q", c.rev, id, ref, err, c.refused)
			}
		case err != nil || id != c.id || ref != c.ref:
			t.Errorf("%s: %s, %q, %v; want %s through %q", c.rev, id, ref, err, c.id, c.ref)
		}
	}
	var nf *NotFetchedError
	if _, _, err := repo.ResolveTrusted("origin/dev"); !errors.As(err, &nf) || nf.Ref != "refs/remotes/origin/dev" {
		t.Errorf("origin/dev: %v, want a NotFetchedError for refs/remotes/origin/dev", err)
	}
}

// TestResolveRefusesReflog: "HEAD@{1}" (the commit before an amend) is not
// read as HEAD, which go-git's revision parser would return: a reflog
// revision is refused, as are ranges of them.
func TestResolveRefusesReflog(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "one", map[string]string{"a": "1\n"})
	gitOut(t, dir, "commit", "-q", "--amend", "-m", "one, amended")
	r := open(t, dir)
	for _, rev := range []string{"HEAD@{1}", "HEAD@{5}", "main@{1}", "@{1}"} {
		if h, err := r.Resolve(rev); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("Resolve(%q) = %s, %v; want ErrUnknownRevision", rev, h, err)
		}
	}
	if _, err := r.Resolve("HEAD"); err != nil {
		t.Fatal(err)
	}
}

// TestResolveRefBeforeAbbreviatedID: a branch whose name is also the start of
// another commit's id names the branch, as git reads it (go-git would take
// the commit: a pull request branch "a" read as main, its range empty); a
// branch of four or more hex digits, which git reads as the branch with a
// warning, is refused as ambiguous; a hex name of fewer than four digits
// that names no ref is no revision.
func TestResolveRefBeforeAbbreviatedID(t *testing.T) {
	dir := newRepo(t)
	main := commitFiles(t, dir, "one", map[string]string{"a": "1\n"})
	short := string(main)[:1]
	gitOut(t, dir, "checkout", "-q", "-b", short)
	tip := commitFiles(t, dir, "two", map[string]string{"a": "2\n"})
	long := string(main)[:6]
	gitOut(t, dir, "branch", long, string(tip))
	r := open(t, dir)
	for rev, want := range map[string]Hash{short: tip, short + "~1": main, "refs/heads/" + short: tip, string(main)[:7]: main} {
		if h, err := r.Resolve(rev); err != nil || h != want {
			t.Errorf("Resolve(%q) = %s, %v; want %s (git rev-parse: %s)", rev, h, err, want, gitOut(t, dir, "rev-parse", rev))
		}
	}
	for _, rev := range []string{long, long + "^", string(main)[:2]} {
		if h, err := r.Resolve(rev); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("Resolve(%q) = %s, %v; want ErrUnknownRevision", rev, h, err)
		}
	}
	if h, err := r.Resolve("refs/heads/" + long); err != nil || h != tip {
		t.Errorf("Resolve(refs/heads/%s) = %s, %v; want %s", long, h, err, tip)
	}
}
