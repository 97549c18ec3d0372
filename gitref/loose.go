package gitref

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// looseHeaderMax is the most inflated bytes a loose object's header
// ("<type> <decimal size>\0") can take: the longest type name, a space, 19
// digits and the NUL.
const looseHeaderMax = len("commit") + 1 + 19 + 1

// errNotLoose: the object is not a loose object of the repository (it may be
// packed, or in an alternate object store).
var errNotLoose = errors.New("not a loose object")

// looseBlob reads blob id from its loose object file, refusing it from its
// header alone when the header's size is over limit (> 0): git's loose format
// is zlib("<type> <size>\0" content), so the size is known after inflating a
// few dozen bytes, and a note that inflates to a gigabyte from a few
// megabytes on disk costs one small read
// (docs/format.md#note-size-from-the-object-header). Content is
// inflated through a reader bounded to the header's size plus one byte: an
// object longer than its header says is refused without reading further.
// It returns errNotLoose when there is no loose object id in the repository's
// own object directory; the caller then reads the object through go-git
// (packed objects: go-git takes the size from the pack entry header, or a
// delta's target size, without inflating them).
func (r *Repo) looseBlob(id plumbing.Hash, limit int64) ([]byte, error) {
	hex := id.String()
	f, err := os.Open(filepath.Join(r.commonDir, "objects", hex[:2], hex[2:]))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errNotLoose
		}
		return nil, fmt.Errorf("reading blob %s: %w", id, err)
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: loose object: %w", id, err)
	}
	defer zr.Close()
	typ, size, err := looseHeader(zr)
	if err != nil {
		return nil, fmt.Errorf("reading blob %s: loose object: %w", id, err)
	}
	if typ != "blob" {
		return nil, fmt.Errorf("blob %s: %w (the object is a %s)", id, ErrNotFound, typ)
	}
	if limit > 0 && size > limit {
		return nil, &TooLargeError{Object: fromPlumbing(id), Size: size, Limit: limit}
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(zr, b); err != nil {
		return nil, fmt.Errorf("reading blob %s: loose object shorter than its size %d: %w", id, size, err)
	}
	var one [1]byte
	if n, _ := zr.Read(one[:]); n > 0 {
		return nil, fmt.Errorf("reading blob %s: loose object longer than its size %d", id, size)
	}
	return b, nil
}

// looseHeader reads a loose object's header from its inflated stream, at most
// looseHeaderMax bytes, one at a time (the content must stay unread).
func looseHeader(rd io.Reader) (typ string, size int64, err error) {
	var hdr []byte
	var one [1]byte
	for len(hdr) < looseHeaderMax {
		if _, err := io.ReadFull(rd, one[:]); err != nil {
			return "", 0, fmt.Errorf("truncated header: %w", err)
		}
		if one[0] == 0 {
			t, n, ok := bytes.Cut(hdr, []byte(" "))
			if !ok {
				return "", 0, errors.New("malformed header")
			}
			if _, err := plumbing.ParseObjectType(string(t)); err != nil {
				return "", 0, fmt.Errorf("malformed header: %w", err)
			}
			if len(n) == 0 || bytes.ContainsFunc(n, func(r rune) bool { return r < '0' || r > '9' }) {
				return "", 0, fmt.Errorf("malformed header: size %q", n)
			}
			size, err := strconv.ParseInt(string(n), 10, 64) // decimal digits, as git writes them
			if err != nil {
				return "", 0, fmt.Errorf("malformed header: size %q", n)
			}
			return string(t), size, nil
		}
		hdr = append(hdr, one[0])
	}
	return "", 0, errors.New("malformed header: too long")
}
