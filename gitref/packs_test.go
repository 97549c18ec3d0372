package gitref

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskproof/taskproof/gitref/internal/packstore"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestPackedObjectsMatchGit: every object of a packed repository (deltas
// included) reads through the Repo as content that hashes to its id, with
// its size; objects no pack holds (loose ones) are still found.
func TestPackedObjectsMatchGit(t *testing.T) {
	dir, _, _ := testenv.PackedRepo(t, 30)
	loose := commitFiles(t, dir, "loose", map[string]string{"f.txt": "loose\n"})
	r := open(t, dir)
	ids := strings.Fields(gitOut(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	ids = append(ids, loose.String())
	for _, id := range ids {
		typ := strings.TrimSpace(gitOut(t, dir, "cat-file", "-t", id))
		ty, _ := plumbing.ParseObjectType(typ)
		o, err := r.object(ty, plumbing.NewHash(id))
		if err != nil {
			t.Fatalf("object %s: %v", id, err)
		}
		got, err := readObject(o, nil)
		if err != nil {
			t.Fatalf("object %s: %v", id, err)
		}
		if h := plumbing.ComputeHash(ty, got); h.String() != id {
			t.Fatalf("object %s (%s) read as content hashing to %s", id, typ, h)
		}
		size, err := r.objects.EncodedObjectSize(plumbing.NewHash(id))
		if err != nil || size != int64(len(got)) {
			t.Fatalf("EncodedObjectSize(%s) = %d, %v; want %d", id, size, err, len(got))
		}
	}
}

// TestPackFilesShared: reading objects over 16 KiB (which a handle reads with
// a second reader of the pack, packReaders) opens the pack file once for all
// its readers, no more readers than the handle holds, and Close closes them
// all.
func TestPackFilesShared(t *testing.T) {
	dir := newRepo(t)
	big := strings.Repeat("0123456789abcdef\n", 4096) // 68 KiB
	var blobs []Hash
	for i := range 5 {
		commitFiles(t, dir, fmt.Sprint(i), map[string]string{"big": fmt.Sprint(i) + big})
		blobs = append(blobs, Hash(gitOut(t, dir, "rev-parse", "HEAD:big")))
	}
	gitOut(t, dir, "repack", "-adq")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	shared := r.packFS.(packstore.FS).Shared
	for round := range 3 {
		for i, id := range blobs {
			b, err := r.Blob(id, 0)
			if err != nil || string(b) != fmt.Sprint(i)+big {
				t.Fatalf("blob %d: %d bytes, %v", i, len(b), err)
			}
		}
		files, refs := shared.Open()
		if files != 1 || refs != 2 {
			t.Fatalf("round %d: %d pack files open, %d readers; want 1 and 2 (the handle's sized and whole readers)", round, files, refs)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n, _ := shared.Open(); n != 0 {
		t.Fatalf("%d pack files open after Close", n)
	}
}

// TestBlobOnce: BlobOnce reads every blob of a packed repository (delta
// chains, blobs over 16 KiB that go-git reads lazily, loose blobs) as
// BlobView does, caching none it reads from a pack, and fails as BlobView
// does on an absent object and on one that is not a blob.
func TestBlobOnce(t *testing.T) {
	dir, _, _ := testenv.PackedRepo(t, 30)
	loose := commitFiles(t, dir, "loose", map[string]string{"f.txt": "loose\n"})
	blobs := objectsOfType(t, dir, "blob")
	blobs = append(blobs, gitOut(t, dir, "rev-parse", loose.String()+":f.txt"))
	once, view := open(t, dir), open(t, dir)
	var large bool
	for _, id := range blobs {
		got, err := once.BlobOnce(Hash(id))
		if err != nil {
			t.Fatalf("BlobOnce(%s): %v", id, err)
		}
		want, err := view.BlobView(Hash(id))
		if err != nil {
			t.Fatalf("BlobView(%s): %v", id, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("BlobOnce(%s) = %d bytes, BlobView %d", id, len(got), len(want))
		}
		large = large || len(got) > 16<<10
		if _, cached := once.cache.Get(plumbing.NewHash(id)); cached && id != blobs[len(blobs)-1] {
			t.Errorf("BlobOnce(%s) cached the packed blob", id)
		}
	}
	if !large || len(blobs) < 30 {
		t.Fatalf("%d blobs, one over 16 KiB: %v", len(blobs), large)
	}
	for _, id := range []Hash{Hash(strings.Repeat("e", 40)), loose} {
		_, got := once.BlobOnce(id)
		_, want := view.BlobView(id)
		if got == nil || want == nil || got.Error() != want.Error() {
			t.Errorf("BlobOnce(%s) = %v, BlobView %v", id, got, want)
		}
	}
}

// TestCommitPastObjectCache: a packed commit is read without the object
// cache and decodes as go-git's own storage decodes it (every field); a loose
// one and a missing one read as before.
func TestCommitPastObjectCache(t *testing.T) {
	dir, _, _ := testenv.PackedRepo(t, 30)
	loose := commitFiles(t, dir, "loose", map[string]string{"f.txt": "loose\n"})
	commits := objectsOfType(t, dir, "commit")
	if len(commits) < 30 {
		t.Fatalf("%d packed commits", len(commits))
	}
	commits = append(commits, string(loose))
	r := open(t, dir)
	gg, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range commits {
		got, err := r.commit(Hash(id))
		if err != nil {
			t.Fatalf("commit(%s): %v", id, err)
		}
		want, err := gg.CommitObject(plumbing.NewHash(id))
		if err != nil {
			t.Fatal(err)
		}
		if got.Hash != want.Hash || got.TreeHash != want.TreeHash || !reflect.DeepEqual(got.ParentHashes, want.ParentHashes) ||
			got.Message != want.Message || got.PGPSignature != want.PGPSignature || got.Author.String() != want.Author.String() ||
			!got.Author.When.Equal(want.Author.When) || got.Committer.String() != want.Committer.String() || !got.Committer.When.Equal(want.Committer.When) {
			t.Fatalf("commit(%s) = %+v, go-git %+v", id, got, want)
		}
		if _, cached := r.cache.Get(plumbing.NewHash(id)); cached && id != string(loose) {
			t.Errorf("commit(%s) put the packed commit into the object cache", id)
		}
	}
	_, got := open(t, dir).commit(Hash(strings.Repeat("e", 40)))
	if !errors.Is(got, ErrNotFound) {
		t.Errorf("commit of a missing id: %v, want ErrNotFound", got)
	}
}

// objectsOfType lists the ids of the repository's objects of type typ, as
// `git cat-file --batch-all-objects` gives them.
func objectsOfType(t *testing.T, dir, typ string) []string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(gitOut(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"), "\n") {
		if id, ok := strings.CutSuffix(line, " "+typ); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestPackEntrySizes: the size read from an object's pack entry (the entry's
// header, a delta's header of its delta data) is git's, for every object of
// packs holding deep delta chains and objects over 16 KiB.
func TestPackEntrySizes(t *testing.T) {
	packed, _, _ := testenv.PackedRepo(t, 30)
	for _, dir := range []string{packed, newLargeHistory(t, 12).dir} {
		r := open(t, dir)
		hd, err := r.acquire()
		if err != nil {
			t.Fatal(err)
		}
		deltas := 0
		for _, line := range strings.Split(gitOut(t, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objectsize) %(deltabase)"), "\n") {
			f := strings.Fields(line)
			got, err := r.packObjectSize(hd, plumbing.NewHash(f[0]))
			if err != nil || fmt.Sprint(got) != f[1] {
				t.Fatalf("size of %s from its pack entry: %d, %v; git: %s", f[0], got, err, f[1])
			}
			if f[2] != plumbing.ZeroHash.String() {
				deltas++
			}
		}
		r.release(hd)
		if deltas < 10 {
			t.Fatalf("%s: %d deltas: the test reads few delta headers", dir, deltas)
		}
	}
}
