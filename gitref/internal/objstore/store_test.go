package objstore

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskproof/taskproof/gitref/internal/packstore"
	"github.com/taskproof/taskproof/internal/testenv"
)

// open opens the object store of the repository with work tree dir.
func open(t *testing.T, dir string) *Store {
	t.Helper()
	g := filepath.Join(dir, ".git")
	s, err := Open(g, g, dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// bigBlobs makes a repository of five commits, each with a blob over
// 16 KiB, packed; it returns the repository and the blobs' ids and contents.
func bigBlobs(t *testing.T) (dir string, ids []plumbing.Hash, contents []string) {
	dir = testenv.NewRepo(t)
	big := strings.Repeat("0123456789abcdef\n", 4096) // 68 KiB
	for i := range 5 {
		testenv.CommitFiles(t, dir, fmt.Sprint(i), map[string]string{"big": fmt.Sprint(i) + big})
		ids = append(ids, plumbing.NewHash(strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD:big"))))
		contents = append(contents, fmt.Sprint(i)+big)
	}
	testenv.Git(t, dir, "repack", "-adq")
	return dir, ids, contents
}

// allObjects lists every object of the repository with its size, as git
// reads them: "<id> <size>" lines.
func allObjects(t *testing.T, dir string) [][]string {
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(testenv.Git(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objectsize) %(deltabase)")), "\n") {
		out = append(out, strings.Fields(line))
	}
	return out
}

// TestPackfileReopened checks that objects read through pack readers that a
// handle opens again every few reads (packfileReads) are the objects read
// through readers it keeps.
func TestPackfileReopened(t *testing.T) {
	dir, _, _ := testenv.PackedRepo(t, 40)
	objects := allObjects(t, dir)
	read := func() []string {
		s := open(t, dir)
		s.SetCacheSize(1 << 20)
		var out []string
		for _, f := range objects {
			o, err := s.Object(plumbing.AnyObject, plumbing.NewHash(f[0]), 0)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ReadAll(o, nil)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, f[0]+" "+string(b))
		}
		return out
	}
	want := read()
	saved := packfileReads
	packfileReads = 2
	defer func() { packfileReads = saved }()
	if got := read(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reopening the pack every 2 reads reads\n%v\nnot\n%v", got, want)
	}
}

// TestPackFilesShared: reading objects over 16 KiB (which a handle reads with
// a second reader of the pack, packReaders) opens the pack file once for all
// its readers, no more readers than the handle holds, and Close closes them
// all.
func TestPackFilesShared(t *testing.T) {
	dir, ids, contents := bigBlobs(t)
	g := filepath.Join(dir, ".git")
	s, err := Open(g, g, dir)
	if err != nil {
		t.Fatal(err)
	}
	sh := s.packFS.(packstore.FS).Shared
	for round := range 3 {
		for i, id := range ids {
			o, err := s.Object(plumbing.BlobObject, id, 0)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ReadAll(o, nil)
			if err != nil || string(b) != contents[i] {
				t.Fatalf("blob %d: %d bytes, %v", i, len(b), err)
			}
		}
		files, refs := sh.Open()
		if files != 1 || refs != 2 {
			t.Fatalf("round %d: %d pack files open, %d readers; want 1 and 2 (the handle's sized and whole readers)", round, files, refs)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n, _ := sh.Open(); n != 0 {
		t.Fatalf("%d pack files open after Close", n)
	}
}

// TestPackEntrySizes: the size read from an object's pack entry (the entry's
// header, a delta's header of its delta data) is git's, for every object of
// packs holding deep delta chains and objects over 16 KiB.
func TestPackEntrySizes(t *testing.T) {
	packed, _, _ := testenv.PackedRepo(t, 30)
	large, _, _ := bigBlobs(t)
	deltas := 0
	for _, dir := range []string{packed, large} {
		s := open(t, dir)
		hd, err := s.acquire()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range allObjects(t, dir) {
			got, err := s.packObjectSize(hd, plumbing.NewHash(f[0]))
			if err != nil || fmt.Sprint(got) != f[1] {
				t.Fatalf("size of %s from its pack entry: %d, %v; git: %s", f[0], got, err, f[1])
			}
			if f[2] != plumbing.ZeroHash.String() {
				deltas++
			}
		}
		s.release(hd)
	}
	if deltas < 10 {
		t.Fatalf("%d deltas: the test reads few delta headers", deltas)
	}
}

// TestReadCacheEscaped: a read cache put to outside its handle's read (a pack
// reader, or an object it made, reached from outside the handle that owns
// it) panics rather than let two goroutines share the cache.
func TestReadCacheEscaped(t *testing.T) {
	s := open(t, testenv.NewRepo(t))
	defer func() {
		if recover() != errCacheEscaped {
			t.Error("a read cache put to outside its handle's read did not panic")
		}
	}()
	(&readCache{ObjectCache: s.cache}).Put(&plumbing.MemoryObject{})
}
