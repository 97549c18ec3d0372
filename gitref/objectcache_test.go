package gitref

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/taskproof/taskproof/gitref/internal/objstore"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestSetObjectCacheSize resizes the object cache while readers run (for
// -race) and checks every read still gives the file's content.
func TestSetObjectCacheSize(t *testing.T) {
	dir := newRepo(t)
	var commits []Hash
	for i := range 8 {
		commits = append(commits, commitFiles(t, dir, fmt.Sprint(i), map[string]string{"f.txt": fmt.Sprintf("content %d\n", i)}))
	}
	r := open(t, dir)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 50 {
				i := (w + n) % len(commits)
				b, err := r.File(commits[i], "f.txt")
				if want := fmt.Sprintf("content %d\n", i); err != nil || string(b) != want {
					t.Errorf("File(%s) = %q, %v; want %q", commits[i], b, err, want)
					return
				}
			}
		}()
	}
	for _, size := range []int64{0, 16 << 20, 1 << 20, objstore.DefaultCacheSize} {
		r.store.SetCacheSize(size)
	}
	wg.Wait()
	if got := r.store.CacheSize(); got != objstore.DefaultCacheSize {
		t.Errorf("cache bound %d, want %d", got, objstore.DefaultCacheSize)
	}
	r.store.SetCacheSize(0)
	if got := r.store.CacheSize(); got != 1<<20 {
		t.Errorf("cache bound %d after SetCacheSize(0), want the 1 MiB floor", got)
	}
}

// TestCacheServesWhatTheIndexSays: an object read from a pack is what the pack
// index says its id is, as for git, whether or not the cache holds it. The
// repository's index is edited so that the ids of two blobs name each other's
// content (what git fsck calls corrupt, and git cat-file still reads so): a
// cache keyed by the SHA-1 of the content read for the first id would serve
// it for the second.
func TestCacheServesWhatTheIndexSays(t *testing.T) {
	dir := newRepo(t)
	commitFiles(t, dir, "two blobs", map[string]string{"a": "alpha\n", "b": "bravo\n"})
	gitOut(t, dir, "repack", "-adq")
	a, b := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD:a")), strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD:b"))
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d pack indexes after repack", len(idxs))
	}
	swapIndexOffsets(t, idxs[0], a, b)
	want := map[string]string{a: testenv.Git(t, dir, "cat-file", "blob", a), b: testenv.Git(t, dir, "cat-file", "blob", b)}
	if want[a] != "bravo\n" || want[b] != "alpha\n" {
		t.Fatalf("git reads the edited index as %q", want)
	}
	r := open(t, dir)
	for _, id := range []string{a, b, a, b} {
		got, err := r.Blob(Hash(id), BlobRead{Shared: true})
		if err != nil || string(got) != want[id] {
			t.Errorf("Blob(%s, Shared) = %q, %v; git cat-file reads %q", id, got, err, want[id])
		}
	}
}

// swapIndexOffsets swaps the pack offsets of objects x and y in the version 2
// pack index at path.
func swapIndexOffsets(t *testing.T, path, x, y string) {
	t.Helper()
	d, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const fanout = 8 + 256*4
	n := int(binary.BigEndian.Uint32(d[fanout-4 : fanout]))
	offsets := fanout + 20*n + 4*n // after the ids and the CRCs
	at := func(id string) int {
		h, _ := hex.DecodeString(id)
		for i := range n {
			if bytes.Equal(d[fanout+20*i:fanout+20*i+20], h) {
				return offsets + 4*i
			}
		}
		t.Fatalf("%s not in %s", id, path)
		return 0
	}
	i, j := at(x), at(y)
	var tmp [4]byte
	copy(tmp[:], d[i:i+4])
	copy(d[i:i+4], d[j:j+4])
	copy(d[j:j+4], tmp[:])
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, d, 0o644); err != nil {
		t.Fatal(err)
	}
}
