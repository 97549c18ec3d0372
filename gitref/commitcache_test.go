package gitref

import (
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/taskproof/taskproof/gitref/internal/objstore"
	"github.com/taskproof/taskproof/internal/repocache"
)

// TestCommitCacheLRU: past its byte budget the cache drops the least recently
// used commits first, keeps what was read again, and accounts what it holds.
func TestCommitCacheLRU(t *testing.T) {
	c := &commitCache{}
	ids := make([]plumbing.Hash, 10)
	for i := range ids {
		ids[i] = plumbing.NewHash(fmt.Sprintf("%040x", i+1))
	}
	commit := func(i int) *object.Commit { return &object.Commit{Hash: ids[i], Message: "tick"} }
	size := commitSize(commit(0))
	c.max = 4 * size
	for i := 0; i < 4; i++ {
		c.put(ids[i], commit(i))
	}
	if _, ok := c.get(ids[0]); !ok { // now the most recently used
		t.Fatal("commit 0 not cached")
	}
	c.put(ids[4], commit(4)) // drops commit 1, the least recently used
	for i, want := range []bool{true, false, true, true, true} {
		if _, ok := c.get(ids[i]); ok != want {
			t.Errorf("commit %d cached = %v, want %v", i, ok, want)
		}
	}
	if c.bytes != 4*size || c.lru.Len() != 4 || len(c.m) != 4 {
		t.Errorf("holds %d bytes, %d entries, %d keys; want %d, 4, 4", c.bytes, c.lru.Len(), len(c.m), 4*size)
	}
	c.put(ids[0], commit(0)) // again: not counted twice
	if c.bytes != 4*size {
		t.Errorf("after a repeated put: %d bytes, want %d", c.bytes, 4*size)
	}
}

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
	if _, ok := r.commits.get(toPlumbing(head)); !ok {
		t.Fatal("the commit read is not cached")
	}
	if _, err := r.File(head, "a.md"); err != nil {
		t.Fatal(err)
	}
	if ok := r.store.Cached(toPlumbing(c.Tree)); !ok {
		t.Fatal("the tree read is not cached")
	}
	repocache.Drop(r)
	if _, ok := r.commits.get(toPlumbing(head)); ok || r.commits.bytes != 0 || r.commits.lru.Len() != 0 {
		t.Errorf("commit cache after dropCaches: %d bytes, %d entries", r.commits.bytes, r.commits.lru.Len())
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
		if r.commits.max != tc.commit {
			t.Errorf("%+v: commit cache %d, want %d", tc.a, r.commits.max, tc.commit)
		}
		if r.store.PacksMapped() != tc.mapped {
			t.Errorf("%+v: packs mapped %v, want %v", tc.a, r.store.PacksMapped(), tc.mapped)
		}
		r.Close()
	}
}
