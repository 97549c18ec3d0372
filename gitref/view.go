package gitref

import (
	"github.com/go-git/go-git/v5/plumbing"
)

// BlobView returns blob id's content without a copy where the object cache
// holds it: the bytes may be shared with the cache, so the caller only reads
// them and does not keep them past its use (copy what it keeps). The error
// wraps ErrNotFound when the blob is missing. For parsing blobs read in bulk
// (the tick walk's tasks files); [Repo.Blob] returns a copy of its own.
func (r *Repo) BlobView(id Hash) ([]byte, error) {
	return r.viewOf(plumbing.BlobObject, toPlumbing(id))
}
