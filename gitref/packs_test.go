package gitref

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// packedRepo returns a repository whose objects are all in one pack written by
// the real git (with deltas: each commit changes a line of a long file), with
// the pack's index path and checksum.
func packedRepo(t testing.TB, commits int) (dir, idxPath string, sum plumbing.Hash) {
	t.Helper()
	dir = newRepo(t)
	var body strings.Builder
	for i := range 400 {
		fmt.Fprintf(&body, "line %d of a file long enough to be stored as a delta\n", i)
	}
	text := body.String()
	for i := range commits {
		text = strings.Replace(text, fmt.Sprintf("line %d ", i), fmt.Sprintf("LINE %d ", i), 1)
		commitFiles(t, dir, fmt.Sprintf("c%d", i), map[string]string{"f.txt": text, fmt.Sprintf("d/%d", i%7): fmt.Sprint(i)})
	}
	gitOut(t, dir, "repack", "-adq", "--depth=10")
	idxs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("%d pack indexes after repack", len(idxs))
	}
	hexSum := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(idxs[0]), "pack-"), ".idx")
	return dir, idxs[0], plumbing.NewHash(hexSum)
}

// TestPackIndexMatchesGoGit: packIndex answers every lookup as go-git's
// idxfile.MemoryIndex (which decodes the whole file) does, reverse lookups
// both before and after it builds its offset table.
func TestPackIndexMatchesGoGit(t *testing.T) {
	_, idxPath, sum := packedRepo(t, 40)
	f, err := os.Open(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(f).Decode(ref); err != nil {
		t.Fatal(err)
	}
	x, err := openPackIndex(idxPath, sum)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := ref.Count()
	if got, _ := x.Count(); got != n || n < 100 {
		t.Fatalf("Count = %d, go-git %d", got, n)
	}
	collect := func(it idxfile.EntryIter, err error) []idxfile.Entry {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var out []idxfile.Entry
		for {
			e, err := it.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, *e)
		}
	}
	want := collect(ref.Entries())
	if got := collect(x.Entries()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Entries differ from go-git's")
	}
	if got, w := collect(x.EntriesByOffset()), collect(ref.EntriesByOffset()); fmt.Sprint(got) != fmt.Sprint(w) {
		t.Fatalf("EntriesByOffset differ from go-git's")
	}
	for i, e := range want {
		off, err := x.FindOffset(e.Hash)
		if err != nil || uint64(off) != e.Offset {
			t.Fatalf("FindOffset(%s) = %d, %v; want %d", e.Hash, off, err, e.Offset)
		}
		crc, err := x.FindCRC32(e.Hash)
		if err != nil || crc != e.CRC32 {
			t.Fatalf("FindCRC32(%s) = %x, %v; want %x", e.Hash, crc, err, e.CRC32)
		}
		if ok, _ := x.Contains(e.Hash); !ok {
			t.Fatalf("Contains(%s) = false", e.Hash)
		}
		// The first revScanMax reverse lookups scan; the rest use the table.
		h, err := x.FindHash(int64(e.Offset))
		if err != nil || h != e.Hash {
			t.Fatalf("FindHash(%d) (lookup %d) = %s, %v; want %s", e.Offset, i, h, err, e.Hash)
		}
	}
	if x.rev == nil {
		t.Fatal("the offset table was never built")
	}
	absent := plumbing.NewHash(strings.Repeat("f", 40))
	if ok, _ := x.Contains(absent); ok {
		t.Error("Contains(ffff…) = true")
	}
	if _, err := x.FindOffset(absent); !errors.Is(err, plumbing.ErrObjectNotFound) {
		t.Errorf("FindOffset(ffff…) = %v, want ErrObjectNotFound", err)
	}
	for _, fresh := range []bool{true, false} { // by scan, by table
		y := x
		if fresh {
			if y, err = openPackIndex(idxPath, sum); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := y.FindHash(1); !errors.Is(err, plumbing.ErrObjectNotFound) {
			t.Errorf("FindHash(1) (scan %v) = %v, want ErrObjectNotFound", fresh, err)
		}
	}
}

// TestPackIndexRefusesMalformed: openPackIndex refuses an index whose layout
// is wrong, as git does when it opens one, and one naming another pack.
func TestPackIndexRefusesMalformed(t *testing.T) {
	_, idxPath, sum := packedRepo(t, 3)
	good, err := os.ReadFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func([]byte) []byte{
		"truncated":       func(b []byte) []byte { return b[:len(b)-1] },
		"short":           func(b []byte) []byte { return b[:100] },
		"magic":           func(b []byte) []byte { b[0] = 0; return b },
		"version":         func(b []byte) []byte { b[7] = 3; return b },
		"fan-out":         func(b []byte) []byte { b[8+4*10+3] = 0xff; return b },
		"trailing bytes":  func(b []byte) []byte { return append(b, 1, 2, 3) },
		"too many large":  func(b []byte) []byte { return append(b, make([]byte, 8*len(b))...) },
		"other pack's id": func(b []byte) []byte { b[len(b)-40] ^= 1; return b },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.idx")
			if err := os.WriteFile(p, mutate(bytes.Clone(good)), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := openPackIndex(p, sum); !errors.Is(err, idxfile.ErrMalformedIdxFile) && !errors.Is(err, idxfile.ErrUnsupportedVersion) {
				t.Fatalf("openPackIndex = %v, want a malformed-index error", err)
			}
		})
	}
}

// TestPackedObjectsMatchGit: every object of a packed repository (deltas
// included) reads through the Repo as content that hashes to its id, with
// its size; objects no pack holds (loose ones) are still found.
func TestPackedObjectsMatchGit(t *testing.T) {
	dir, _, _ := packedRepo(t, 30)
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
	shared := r.packFS.(listFS).shared
	for round := range 3 {
		for i, id := range blobs {
			b, err := r.Blob(id, 0)
			if err != nil || string(b) != fmt.Sprint(i)+big {
				t.Fatalf("blob %d: %d bytes, %v", i, len(b), err)
			}
		}
		shared.mu.Lock()
		files, refs := len(shared.files), 0
		for _, sp := range shared.files {
			refs += sp.refs
		}
		shared.mu.Unlock()
		if files != 1 || refs != 2 {
			t.Fatalf("round %d: %d pack files open, %d readers; want 1 and 2 (the handle's sized and whole readers)", round, files, refs)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(shared.files); n != 0 {
		t.Fatalf("%d pack files open after Close", n)
	}
}

// FuzzParsePackIndex: any bytes either fail parsePackIndex or give an index
// whose lookups (by id, by offset, every entry) return without panicking.
func FuzzParsePackIndex(f *testing.F) {
	_, idxPath, _ := packedRepo(f, 3)
	good, err := os.ReadFile(idxPath)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)-8])
	f.Add([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := parsePackIndex(data)
		if err != nil {
			return
		}
		for pos := range x.n {
			h := x.hashAt(pos)
			x.Contains(h)
			x.FindCRC32(h)
			if off, err := x.FindOffset(h); err == nil {
				x.FindHash(off)
			}
		}
		for _, o := range []int64{0, 12, 1 << 31} {
			x.FindHash(o)
		}
		sameRev(t, x)
		for _, it := range []func() (idxfile.EntryIter, error){x.Entries, x.EntriesByOffset} {
			if iter, err := it(); err == nil {
				for range x.n + 1 {
					if _, err := iter.Next(); err != nil {
						break
					}
				}
			}
		}
	})
}

// sameRev fails t unless x's radix-sorted offset table (buildRev31), where it
// applies, orders the offsets as the comparison sort does.
func sameRev(t *testing.T, x *packIndex) {
	t.Helper()
	rev, ok := x.buildRev31()
	if !ok {
		return
	}
	want, err := x.buildRevSorted()
	if err != nil || len(rev) != len(want) {
		t.Fatalf("buildRev31 gives %d positions; buildRevSorted %d, %v", len(rev), len(want), err)
	}
	seen := make([]bool, x.n)
	for i := range rev {
		a, _ := x.offset(int(rev[i]))
		b, _ := x.offset(int(want[i]))
		if a != b || seen[rev[i]] {
			t.Fatalf("position %d of the offset table: offset %d (position %d), the comparison sort's %d", i, a, rev[i], b)
		}
		seen[rev[i]] = true
	}
}

// TestPackIndexRev: the radix-sorted offset table orders every offset as the
// comparison sort does, on the real git's index and on offsets of every size
// below 2 GiB.
func TestPackIndexRev(t *testing.T) {
	_, idxPath, sum := packedRepo(t, 40)
	x, err := openPackIndex(idxPath, sum)
	if err != nil {
		t.Fatal(err)
	}
	sameRev(t, x)
	for _, spread := range []uint32{1, 255, 1 << 16, 1 << 24, 1<<31 - 1} {
		n := 5000
		off := make([]byte, 4*n)
		for i := range n {
			binary.BigEndian.PutUint32(off[4*i:], uint32((uint64(i)*2654435761)%uint64(spread)+uint64(i%3)))
		}
		y := &packIndex{n: n, off32: off}
		sameRev(t, y)
	}
	if _, ok := (&packIndex{n: 1, off32: []byte{0x80, 0, 0, 0}}).buildRev31(); ok {
		t.Error("buildRev31 takes a large-offset entry")
	}
}

// TestBlobOnce: BlobOnce reads every blob of a packed repository (delta
// chains, blobs over 16 KiB that go-git reads lazily, loose blobs) as
// BlobView does, caching none it reads from a pack, and fails as BlobView
// does on an absent object and on one that is not a blob.
func TestBlobOnce(t *testing.T) {
	dir, _, _ := packedRepo(t, 30)
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
	dir, _, _ := packedRepo(t, 30)
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
	packed, _, _ := packedRepo(t, 30)
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
