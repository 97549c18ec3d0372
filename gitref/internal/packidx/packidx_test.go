package packidx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"

	"github.com/taskproof/taskproof/internal/testenv"
)

// packedRepo is testenv.PackedRepo with the pack's checksum as a hash.
func packedRepo(t testing.TB, commits int) (dir, idxPath string, sum plumbing.Hash) {
	t.Helper()
	dir, idxPath, hexSum := testenv.PackedRepo(t, commits)
	return dir, idxPath, plumbing.NewHash(hexSum)
}

// TestPackIndexMatchesGoGit: Index answers every lookup as go-git's
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
	x, err := Open(idxPath, sum)
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
			if y, err = Open(idxPath, sum); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := y.FindHash(1); !errors.Is(err, plumbing.ErrObjectNotFound) {
			t.Errorf("FindHash(1) (scan %v) = %v, want ErrObjectNotFound", fresh, err)
		}
	}
}

// TestPackIndexRefusesMalformed: Open refuses an index whose layout
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
			if _, err := Open(p, sum); !errors.Is(err, idxfile.ErrMalformedIdxFile) && !errors.Is(err, idxfile.ErrUnsupportedVersion) {
				t.Fatalf("openPackIndex = %v, want a malformed-index error", err)
			}
		})
	}
}

// FuzzParsePackIndex: any bytes either fail Parse or give an index
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
		x, err := Parse(data)
		if err != nil {
			return
		}
		for pos := range x.n {
			h := x.HashAt(pos)
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
func sameRev(t *testing.T, x *Index) {
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
		a, _ := x.Offset(int(rev[i]))
		b, _ := x.Offset(int(want[i]))
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
	x, err := Open(idxPath, sum)
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
		y := &Index{n: n, off32: off}
		sameRev(t, y)
	}
	if _, ok := (&Index{n: 1, off32: []byte{0x80, 0, 0, 0}}).buildRev31(); ok {
		t.Error("buildRev31 takes a large-offset entry")
	}
}
