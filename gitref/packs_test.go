package gitref

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskproof/taskproof/gitref/internal/objstore"
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
		got, err := objstore.ReadAll(o, nil)
		if err != nil {
			t.Fatalf("object %s: %v", id, err)
		}
		if h := plumbing.ComputeHash(ty, got); h.String() != id {
			t.Fatalf("object %s (%s) read as content hashing to %s", id, typ, h)
		}
		size, err := r.store.Storer().EncodedObjectSize(plumbing.NewHash(id))
		if err != nil || size != int64(len(got)) {
			t.Fatalf("EncodedObjectSize(%s) = %d, %v; want %d", id, size, err, len(got))
		}
	}
}

// TestBlobOnce: a blob read Once is every blob of a packed repository (delta
// chains, blobs over 16 KiB that go-git reads lazily, loose blobs) as a
// Shared read gives it, none read from a pack is cached, and it fails as a
// Shared read does on an absent object and on one that is not a blob.
func TestBlobOnce(t *testing.T) {
	dir, _, _ := testenv.PackedRepo(t, 30)
	loose := commitFiles(t, dir, "loose", map[string]string{"f.txt": "loose\n"})
	blobs := objectsOfType(t, dir, "blob")
	blobs = append(blobs, gitOut(t, dir, "rev-parse", loose.String()+":f.txt"))
	once, view := open(t, dir), open(t, dir)
	var large bool
	for _, id := range blobs {
		got, err := once.Blob(Hash(id), BlobRead{Once: true})
		if err != nil {
			t.Fatalf("Blob(%s, Once): %v", id, err)
		}
		want, err := view.Blob(Hash(id), BlobRead{Shared: true})
		if err != nil {
			t.Fatalf("Blob(%s, Shared): %v", id, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Blob(%s, Once) = %d bytes, Shared %d", id, len(got), len(want))
		}
		large = large || len(got) > 16<<10
		if once.store.Cached(plumbing.NewHash(id)) && id != blobs[len(blobs)-1] {
			t.Errorf("Blob(%s, Once) cached the packed blob", id)
		}
	}
	if !large || len(blobs) < 30 {
		t.Fatalf("%d blobs, one over 16 KiB: %v", len(blobs), large)
	}
	for _, id := range []Hash{Hash(strings.Repeat("e", 40)), loose} {
		_, got := once.Blob(id, BlobRead{Once: true})
		_, want := view.Blob(id, BlobRead{Shared: true})
		if got == nil || want == nil || got.Error() != want.Error() {
			t.Errorf("Blob(%s, Once) = %v, Shared %v", id, got, want)
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
		if cached := r.store.Cached(plumbing.NewHash(id)); cached && id != string(loose) {
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
