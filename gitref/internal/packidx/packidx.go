// Package packidx reads git pack index files (pack-*.idx, version 2:
// gitformat-pack(5)) in place, for the pack store's lookups by id and by
// offset.
package packidx

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// Index is a pack index file (pack-*.idx, version 2: gitformat-pack(5))
// read in place, mapped read-only into memory where the system allows it.
//
// go-git's idxfile.MemoryIndex decodes the whole file on open (every name,
// offset and CRC copied to the heap, and a SHA-1 over the file) and builds a
// map from every offset to its object id on the first reverse lookup: work in
// proportion to the repository's object count on every open, which a command
// that reads a handful of objects (`attest tick` at the tip of a long history)
// pays in full. Index checks the file's layout as git does when it opens
// an index (size, version, monotonic fan-out table, the pack checksum it names;
// like git, it does not re-hash the file on every read), looks ids up by binary
// search in the mapped names, and answers reverse lookups (an offset's id, which
// go-git asks for delta bases) by a linear scan until a few have been asked for,
// then from an offset-sorted table built once. It implements idxfile.Index and
// is safe for concurrent use.
type Index struct {
	data     []byte // the whole file: a mapping, or read into memory
	n        int    // objects
	fanout   []byte // 256 big-endian uint32
	names    []byte // n × 20 bytes, sorted
	crc      []byte // n × 4
	off32    []byte // n × 4
	off64    []byte // 8 × the large offsets
	packSum  plumbing.Hash
	revMu    sync.Mutex
	revScans int      // reverse lookups answered by a scan
	rev      []uint32 // positions sorted by offset, once built (see FindHash)
}

// revScanMax is how many reverse lookups a Index answers by scanning the
// offset table (about a millisecond each per million objects) before it builds
// the offset-sorted table (n log n, once): a short read pays a few scans, a
// walk over history the table once.
const revScanMax = 8

var _ idxfile.Index = (*Index)(nil)

// Open opens the index file at path of the pack whose checksum (its
// name) is sum.
func Open(path string, sum plumbing.Hash) (*Index, error) {
	data, mapped := MapFile(path), true
	if data == nil {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		mapped = false
	}
	x, err := Parse(data)
	if err == nil && x.packSum != sum {
		err = fmt.Errorf("%w: it indexes pack %s", idxfile.ErrMalformedIdxFile, x.packSum)
	}
	if err != nil {
		if mapped {
			UnmapFile(data)
		}
		return nil, fmt.Errorf("pack index %s: %w", path, err)
	}
	if mapped {
		// Released when the index is unreachable, not when the Repo closes:
		// go-git's objects keep the index for their lazy reads
		// (packfile.FSObject), which may outlive the Repo.
		runtime.AddCleanup(x, UnmapFile, data)
	}
	return x, nil
}

// Parse checks the layout of a version 2 pack index and slices it.
func Parse(data []byte) (*Index, error) {
	const header, fan, trailer = 8, 256 * 4, 2 * 20
	if len(data) < header+fan+trailer || !bytes.Equal(data[:4], []byte{0xff, 't', 'O', 'c'}) {
		return nil, fmt.Errorf("%w: not a version 2 index", idxfile.ErrMalformedIdxFile)
	}
	if v := binary.BigEndian.Uint32(data[4:8]); v != 2 {
		return nil, fmt.Errorf("%w: v%d", idxfile.ErrUnsupportedVersion, v)
	}
	x := &Index{data: data, fanout: data[header : header+fan]}
	prev := uint32(0)
	for k := range 256 {
		v := binary.BigEndian.Uint32(x.fanout[4*k:])
		if v < prev {
			return nil, fmt.Errorf("%w: fan-out table decreases at entry %d", idxfile.ErrMalformedIdxFile, k)
		}
		prev = v
	}
	n := int64(prev)
	least := int64(header+fan+trailer) + n*(20+4+4)
	size := int64(len(data))
	// The large-offset table holds at most one entry per object but the first.
	if size < least || (size-least)%8 != 0 || (n > 0 && size-least > 8*(n-1)) || (n == 0 && size != least) {
		return nil, fmt.Errorf("%w: %d bytes for %d objects", idxfile.ErrMalformedIdxFile, size, n)
	}
	x.n = int(n)
	p := int64(header + fan)
	x.names = data[p : p+20*n]
	p += 20 * n
	x.crc = data[p : p+4*n]
	p += 4 * n
	x.off32 = data[p : p+4*n]
	p += 4 * n
	x.off64 = data[p : size-trailer]
	copy(x.packSum[:], data[size-trailer:])
	return x, nil
}

// Find returns the position of id in the index.
func (x *Index) Find(h plumbing.Hash) (int, bool) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.fanout[4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(x.fanout[4*int(h[0]):]))
	if hi > x.n || lo > hi {
		return 0, false // checked by parsePackIndex: unreachable
	}
	i := lo + sort.Search(hi-lo, func(k int) bool {
		return bytes.Compare(x.names[20*(lo+k):20*(lo+k)+20], h[:]) >= 0
	})
	return i, i < hi && bytes.Equal(x.names[20*i:20*i+20], h[:])
}

// Offset returns the pack offset of the object at position pos.
func (x *Index) Offset(pos int) (int64, error) {
	v := binary.BigEndian.Uint32(x.off32[4*pos:])
	if v&(1<<31) == 0 {
		return int64(v), nil
	}
	k := int64(v &^ (1 << 31))
	if k >= int64(len(x.off64)/8) {
		return 0, fmt.Errorf("%w: large offset %d out of range", idxfile.ErrMalformedIdxFile, k)
	}
	o := binary.BigEndian.Uint64(x.off64[8*k:])
	if o > 1<<62 {
		return 0, fmt.Errorf("%w: offset %d out of range", idxfile.ErrMalformedIdxFile, o)
	}
	return int64(o), nil
}

// HashAt returns the id of the object at position pos.
func (x *Index) HashAt(pos int) (h plumbing.Hash) {
	copy(h[:], x.names[20*pos:])
	return h
}

// Contains implements idxfile.Index.
func (x *Index) Contains(h plumbing.Hash) (bool, error) {
	_, ok := x.Find(h)
	return ok, nil
}

// FindOffset implements idxfile.Index.
func (x *Index) FindOffset(h plumbing.Hash) (int64, error) {
	pos, ok := x.Find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return x.Offset(pos)
}

// FindCRC32 implements idxfile.Index.
func (x *Index) FindCRC32(h plumbing.Hash) (uint32, error) {
	pos, ok := x.Find(h)
	if !ok {
		return 0, plumbing.ErrObjectNotFound
	}
	return binary.BigEndian.Uint32(x.crc[4*pos:]), nil
}

// FindHash implements idxfile.Index: the id of the object at offset o.
func (x *Index) FindHash(o int64) (plumbing.Hash, error) {
	x.revMu.Lock()
	rev := x.rev
	scan := rev == nil && x.revScans < revScanMax
	if scan {
		x.revScans++
	} else if rev == nil {
		var err error
		if rev, err = x.buildRev(); err != nil {
			x.revMu.Unlock()
			return plumbing.ZeroHash, err
		}
		x.rev = rev
	}
	x.revMu.Unlock()
	if scan {
		for pos := range x.n {
			off, err := x.Offset(pos)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if off == o {
				return x.HashAt(pos), nil
			}
		}
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	i := sort.Search(len(rev), func(k int) bool {
		off, _ := x.Offset(int(rev[k])) // every offset was read by buildRev
		return off >= o
	})
	if i == len(rev) {
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	if off, _ := x.Offset(int(rev[i])); off != o {
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	return x.HashAt(int(rev[i])), nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// buildRev returns the positions sorted by offset.
func (x *Index) buildRev() ([]uint32, error) {
	if rev, ok := x.buildRev31(); ok {
		return rev, nil
	}
	return x.buildRevSorted()
}

// buildRev31 is buildRev for an index whose offsets all fit the 31 bits of
// its offset table (every pack under 2 GiB), false for any other: a radix
// sort, a byte of the offset a pass, linear in the object count (a
// comparison sort of a few hundred thousand entries is most of a short
// read's time on a large history).
func (x *Index) buildRev31() ([]uint32, bool) {
	keys := make([]uint64, x.n) // offset << 32 | position
	for pos := range x.n {
		v := binary.BigEndian.Uint32(x.off32[4*pos:])
		if v&(1<<31) != 0 {
			return nil, false
		}
		keys[pos] = uint64(v)<<32 | uint64(pos)
	}
	tmp := make([]uint64, x.n)
	for shift := 32; shift < 64 && x.n > 0; shift += 8 {
		var count [256]int
		for _, k := range keys {
			count[byte(k>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == x.n {
			continue // every key has this byte: the pass would change nothing
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range keys {
			d := byte(k >> shift)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	rev := make([]uint32, x.n)
	for i, k := range keys {
		rev[i] = uint32(k)
	}
	return rev, true
}

// buildRevSorted is buildRev by a comparison sort, for any offsets.
func (x *Index) buildRevSorted() ([]uint32, error) {
	type entry struct {
		off int64
		pos uint32
	}
	es := make([]entry, x.n)
	for pos := range x.n {
		off, err := x.Offset(pos)
		if err != nil {
			return nil, err
		}
		es[pos] = entry{off, uint32(pos)}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmpInt64(a.off, b.off) })
	rev := make([]uint32, x.n)
	for i, e := range es {
		rev[i] = e.pos
	}
	return rev, nil
}

// Count implements idxfile.Index.
func (x *Index) Count() (int64, error) { return int64(x.n), nil }

// Entries implements idxfile.Index: every entry, by id.
func (x *Index) Entries() (idxfile.EntryIter, error) {
	return &entryIter{x: x, order: nil}, nil
}

// EntriesByOffset implements idxfile.Index: every entry, by offset.
func (x *Index) EntriesByOffset() (idxfile.EntryIter, error) {
	rev, err := x.buildRev()
	if err != nil {
		return nil, err
	}
	return &entryIter{x: x, order: rev}, nil
}

type entryIter struct {
	x     *Index
	order []uint32 // nil: by position
	i     int
}

func (it *entryIter) Next() (*idxfile.Entry, error) {
	if it.i >= it.x.n {
		return nil, io.EOF
	}
	pos := it.i
	if it.order != nil {
		pos = int(it.order[it.i])
	}
	it.i++
	off, err := it.x.Offset(pos)
	if err != nil {
		return nil, err
	}
	return &idxfile.Entry{Hash: it.x.HashAt(pos), CRC32: binary.BigEndian.Uint32(it.x.crc[4*pos:]), Offset: uint64(off)}, nil
}

func (it *entryIter) Close() error { it.i = it.x.n; return nil }
