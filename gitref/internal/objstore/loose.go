package objstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
)

// looseHeaderMax is the most inflated bytes a loose object's header
// ("<type> <decimal size>\0") can take: the longest type name, a space, 19
// digits and the NUL.
const looseHeaderMax = len("commit") + 1 + 19 + 1

// looseHeaderInput is the most compressed bytes inflated to find the end of
// a loose object's header: zlib's 2 bytes, at most one deflate block header
// (a dynamic Huffman table, some 300 bytes) and the header's own bytes.
const looseHeaderInput = 4 << 10

// ErrNotLoose: the object is not a loose object of the repository (it may be
// packed, or in an alternate object store).
var ErrNotLoose = errors.New("not a loose object")

// errLooseHeader: a loose object's header does not end within
// looseHeaderMax inflated bytes.
var errLooseHeader = errors.New("malformed header: too long")

// LooseBlob reads blob id from its loose object file, refusing it from its
// header alone when the header's size is over limit (> 0): git's loose format
// is zlib("<type> <size>\0" content), so the size is known after inflating a
// few dozen bytes, and a note that inflates to a gigabyte from a few
// megabytes on disk costs one small read
// (docs/format.md#note-size-from-the-object-header).
// It returns ErrNotLoose when there is no loose object id in the repository's
// own object directory; the caller then reads the object through go-git
// (packed objects: go-git takes the size from the pack entry header, or a
// delta's target size, without inflating them).
func (s *Store) LooseBlob(id plumbing.Hash, limit int64) ([]byte, error) {
	hex := id.String()
	f, err := os.Open(filepath.Join(s.commonDir, "objects", hex[:2], hex[2:]))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNotLoose
		}
		return nil, fmt.Errorf("reading blob %s: %w", id, err)
	}
	defer f.Close()
	return readLooseBlob(f, id, limit)
}

// readLooseBlob reads blob id from f, a loose object file, with go-git's
// objfile reader, after checking that its header ends within looseHeaderMax
// inflated bytes (go-git reads the header a byte at a time with no bound: a
// header that never ends, inflated from a small file, would be read whole).
// The size is checked against limit (> 0) before any content is inflated,
// then the content is read through a bound of the header's size plus one
// byte: an object longer than its header says is refused without reading
// further. As everywhere else, the object is what its path says
// (docs/format.md#object-ids-and-collisions): it is not hashed again.
func readLooseBlob(f io.ReaderAt, id plumbing.Hash, limit int64) ([]byte, error) {
	if err := looseHeaderEnds(io.NewSectionReader(f, 0, looseHeaderInput)); err != nil {
		return nil, fmt.Errorf("reading blob %s: loose object: %w", id, err)
	}
	or, err := objfile.NewReader(io.NewSectionReader(f, 0, math.MaxInt64))
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: loose object: %w", id, err)
	}
	defer or.Close()
	typ, size, err := or.Header()
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: loose object: %w", id, err)
	}
	if size < 0 {
		return nil, fmt.Errorf("reading blob %s: loose object: %w", id, objfile.ErrNegativeSize)
	}
	if typ != plumbing.BlobObject {
		return nil, fmt.Errorf("blob %s: %w (the object is a %s)", id, gitobj.ErrNotFound, typ)
	}
	if limit > 0 && size > limit {
		return nil, &gitobj.TooLargeError{Object: gitobj.FromPlumbing(id), Size: size, Limit: limit}
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(or, b); err != nil {
		return nil, fmt.Errorf("reading blob %s: loose object shorter than its size %d: %w", id, size, err)
	}
	var one [1]byte
	if n, _ := or.Read(one[:]); n > 0 {
		return nil, fmt.Errorf("reading blob %s: loose object longer than its size %d", id, size)
	}
	return b, nil
}

// looseHeaderEnds inflates the start of a loose object from rd and reports
// errLooseHeader unless a NUL, the header's end, is among its first
// looseHeaderMax bytes.
func looseHeaderEnds(rd io.Reader) error {
	zr, err := zlib.NewReader(rd)
	if err != nil {
		return err
	}
	defer zr.Close()
	var hdr [looseHeaderMax]byte
	n, err := io.ReadFull(zr, hdr[:])
	if bytes.IndexByte(hdr[:n], 0) >= 0 {
		return nil
	}
	if err != nil && n < len(hdr) {
		return fmt.Errorf("truncated header: %w", err)
	}
	return errLooseHeader
}
