package gitref

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
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

// TestKeyedObject: the id the object cache computes with crypto/sha1 is git's
// object id (plumbing.ComputeHash) for every type and size, and an object
// whose content is shorter than its size keeps plumbing's zero id.
func TestKeyedObject(t *testing.T) {
	for _, c := range []struct {
		typ     plumbing.ObjectType
		content string
	}{
		{plumbing.BlobObject, ""}, {plumbing.BlobObject, "- [x] T001 Done\n"},
		{plumbing.TreeObject, "100644 tasks.md\x00" + strings.Repeat("\x01", 20)},
		{plumbing.CommitObject, "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n"},
		{plumbing.BlobObject, strings.Repeat("x", 100_000)},
	} {
		o := &plumbing.MemoryObject{}
		o.SetType(c.typ)
		if _, err := o.Write([]byte(c.content)); err != nil {
			t.Fatal(err)
		}
		want := plumbing.ComputeHash(c.typ, []byte(c.content))
		if got := keyedObject(o).Hash(); got != want {
			t.Errorf("%s of %d bytes: id %s, want %s", c.typ, len(c.content), got, want)
		}
	}
	short := &plumbing.MemoryObject{}
	short.SetType(plumbing.BlobObject)
	short.SetSize(10)
	if _, err := short.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	short.SetSize(10)
	if got := keyedObject(short).Hash(); !got.IsZero() {
		t.Errorf("short object: id %s, want the zero id", got)
	}
}

// TestViewObject: a memory object's content is viewed without a copy (the
// same bytes), through the object cache's wrapper too; an empty object is not
// viewed (the caller reads it).
func TestViewObject(t *testing.T) {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TreeObject)
	if _, err := o.Write([]byte("100644 a\x00" + strings.Repeat("\x02", 20))); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []plumbing.EncodedObject{o, keyedObject(o)} {
		b, ok := viewObject(obj)
		if !ok || int64(len(b)) != o.Size() {
			t.Fatalf("viewObject(%T) = %d bytes, %v", obj, len(b), ok)
		}
		rd, _ := o.Reader()
		want := make([]byte, o.Size())
		if _, err := rd.Read(want); err != nil || string(want) != string(b) {
			t.Fatalf("viewObject(%T) = %q, want %q", obj, b, want)
		}
	}
	if _, ok := viewObject(&plumbing.MemoryObject{}); ok {
		t.Error("viewObject(empty) ok")
	}
}
