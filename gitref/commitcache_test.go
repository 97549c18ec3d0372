package gitref

import (
	"testing"

	"github.com/taskproof/taskproof/gitref/internal/objstore"
	"github.com/taskproof/taskproof/internal/repocache"
)

// TestDropCaches: dropCaches, as the merge gate reaches it through
// repocache.Drop, empties the object and commit caches, and what was cached
// reads the same afterwards.
func TestDropCaches(t *testing.T) {
	dir := newRepo(t)
	head := commitFiles(t, dir, "one", map[string]string{"a.md": "a\n"})
	r := open(t, dir)
	c, err := r.Commit(head)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.commits.Get(toPlumbing(head)); !ok {
		t.Fatal("the commit read is not cached")
	}
	if _, err := r.File(head, "a.md"); err != nil {
		t.Fatal(err)
	}
	if ok := r.store.Cached(toPlumbing(c.Tree)); !ok {
		t.Fatal("the tree read is not cached")
	}
	repocache.Drop(r)
	if _, ok := r.commits.Get(toPlumbing(head)); ok || r.commits.Len() != 0 {
		t.Errorf("commit cache after dropCaches: %d entries", r.commits.Len())
	}
	if ok := r.store.Cached(toPlumbing(c.Tree)); ok {
		t.Error("the object cache still holds the tree")
	}
	again, err := r.Commit(head)
	if err != nil || again.Tree != c.Tree || again.Message != c.Message {
		t.Errorf("read again: %+v, %v; want %+v", again, err, c)
	}
	if b, err := r.File(head, "a.md"); err != nil || string(b) != "a\n" {
		t.Errorf("a.md read again: %q, %v", b, err)
	}
}

// TestOpenAccess: Open's Access sets the caches and the pack reading it
// documents.
func TestOpenAccess(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "one", map[string]string{"a.md": "a\n"})
	for _, tc := range []struct {
		a      Access
		object int64
		commit int
		mapped bool
	}{
		{Access{}, objstore.DefaultCacheSize, 0, true},
		{Access{OnePass: true}, onePassObjectCache, onePassCommitCache, false},
		{Access{OnePass: true, ObjectCache: 2 << 20, CommitCache: 2 << 20}, 2 << 20, 2 << 20, false},
		{Access{ObjectCache: 1}, 1 << 20, 0, true},
	} {
		r, err := Open(dir, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.store.CacheSize(); got != tc.object {
			t.Errorf("%+v: object cache %d, want %d", tc.a, got, tc.object)
		}
		if r.commits.Max() != tc.commit {
			t.Errorf("%+v: commit cache %d, want %d", tc.a, r.commits.Max(), tc.commit)
		}
		if r.store.PacksMapped() != tc.mapped {
			t.Errorf("%+v: packs mapped %v, want %v", tc.a, r.store.PacksMapped(), tc.mapped)
		}
		r.Close()
	}
}
