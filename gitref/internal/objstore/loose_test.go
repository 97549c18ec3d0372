package objstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// FuzzLooseBlob: a loose object is read as a blob only when it is
// "blob <size>\0<content>", its header within looseHeaderMax bytes, with
// content of that size read back exactly.
func FuzzLooseBlob(f *testing.F) {
	for _, s := range []string{"blob 5\x00hello", "blob 12\x00hello", "commit 0\x00", "tree -1\x00", "blob +5\x00hello", "blob 99999999999999999999\x00", "blob", "tag 7 \x00", "ofs-delta 3\x00", "blob 05\x00hello", "blob 4\x00hello"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(raw)
		zw.Close()
		b, err := readLooseBlob(bytes.NewReader(z.Bytes()), plumbing.ZeroHash, 1<<20)
		if err != nil {
			return
		}
		nul := bytes.IndexByte(raw, 0)
		if nul < 0 || nul >= looseHeaderMax {
			t.Fatalf("accepted %q with no NUL in the first %d bytes", raw, looseHeaderMax)
		}
		digits, ok := strings.CutPrefix(string(raw[:nul]), "blob ")
		n, err := strconv.ParseInt(digits, 10, 64)
		if !ok || err != nil || !bytes.Equal(b, raw[nul+1:]) || int64(len(b)) != n {
			t.Fatalf("read %q as a blob of %q", raw, b)
		}
	})
}

// TestLooseHeaderBomb: a loose object whose header never ends, inflated from
// a small file, is refused after a bounded read.
func TestLooseHeaderBomb(t *testing.T) {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("blob "))
	zw.Write(bytes.Repeat([]byte("9"), 256<<20))
	zw.Close()
	in := &countingReader{r: bytes.NewReader(z.Bytes())}
	_, err := readLooseBlob(in, plumbing.ZeroHash, 1<<20)
	if !errors.Is(err, errLooseHeader) {
		t.Fatalf("endless header: %v, want errLooseHeader", err)
	}
	if in.n > looseHeaderInput {
		t.Errorf("read %d compressed bytes, want at most %d", in.n, looseHeaderInput)
	}
}

type countingReader struct {
	r io.ReaderAt
	n int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += n
	return n, err
}
