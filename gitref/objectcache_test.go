package gitref

import (
	"fmt"
	"sync"
	"testing"
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
	for _, size := range []int64{0, 16 << 20, 1 << 20, DefaultObjectCacheSize} {
		r.SetObjectCacheSize(size)
	}
	wg.Wait()
	if got := int64(r.cache.lru.Load().MaxSize); got != DefaultObjectCacheSize {
		t.Errorf("cache bound %d, want %d", got, DefaultObjectCacheSize)
	}
	r.SetObjectCacheSize(0)
	if got := r.cache.lru.Load().MaxSize; got != 1<<20 {
		t.Errorf("cache bound %d after SetObjectCacheSize(0), want the 1 MiB floor", got)
	}
}
