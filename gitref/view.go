package gitref

import (
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// viewObject returns the content of an object held in memory without copying
// it: go-git's memory objects read as a bytes.Reader, whose WriteTo hands its
// whole remaining slice to one Write. ok is false for any other object (the
// caller reads it with readObject). The bytes are shared with the object
// cache: read-only, and not to be kept past the caller's use.
func viewObject(o plumbing.EncodedObject) (b []byte, ok bool) {
	rd, err := o.Reader()
	if err != nil {
		return nil, false
	}
	defer rd.Close()
	wt, isWT := rd.(io.WriterTo)
	if !isWT {
		return nil, false
	}
	var v viewer
	if n, err := wt.WriteTo(&v); err != nil || v.calls != 1 || n != o.Size() || int64(len(v.b)) != n {
		return nil, false
	}
	return v.b, true
}

// viewer keeps the one slice a bytes.Reader's WriteTo writes (viewObject).
type viewer struct {
	b     []byte
	calls int
}

func (v *viewer) Write(p []byte) (int, error) {
	v.b = p
	v.calls++
	return len(p), nil
}

// BlobView returns blob id's content without a copy where the object cache
// holds it: the bytes may be shared with the cache, so the caller only reads
// them and does not keep them past its use (copy what it keeps). The error
// wraps ErrNotFound when the blob is missing. For parsing blobs read in bulk
// (the tick walk's tasks files); [Repo.Blob] returns a copy of its own.
func (r *Repo) BlobView(id Hash) ([]byte, error) {
	return r.viewOf(plumbing.BlobObject, id.plumbing())
}
