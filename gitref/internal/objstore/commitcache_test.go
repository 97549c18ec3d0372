package objstore

import (
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestCommitCacheLRU: past its byte budget the cache drops the least recently
// used commits first, keeps what was read again, and accounts what it holds.
func TestCommitCacheLRU(t *testing.T) {
	c := &CommitCache{}
	ids := make([]plumbing.Hash, 10)
	for i := range ids {
		ids[i] = plumbing.NewHash(fmt.Sprintf("%040x", i+1))
	}
	commit := func(i int) *object.Commit { return &object.Commit{Hash: ids[i], Message: "tick"} }
	size := commitSize(commit(0))
	c.max = 4 * size
	for i := 0; i < 4; i++ {
		c.Put(ids[i], commit(i))
	}
	if _, ok := c.Get(ids[0]); !ok { // now the most recently used
		t.Fatal("commit 0 not cached")
	}
	c.Put(ids[4], commit(4)) // drops commit 1, the least recently used
	for i, want := range []bool{true, false, true, true, true} {
		if _, ok := c.Get(ids[i]); ok != want {
			t.Errorf("commit %d cached = %v, want %v", i, ok, want)
		}
	}
	if c.bytes != 4*size || c.lru.Len() != 4 || len(c.m) != 4 {
		t.Errorf("holds %d bytes, %d entries, %d keys; want %d, 4, 4", c.bytes, c.lru.Len(), len(c.m), 4*size)
	}
	c.Put(ids[0], commit(0)) // again: not counted twice
	if c.bytes != 4*size {
		t.Errorf("after a repeated put: %d bytes, want %d", c.bytes, 4*size)
	}
}
