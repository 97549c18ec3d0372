package gitref

import (
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/taskproof/taskproof/gitref/internal/treefs"
)

// FS returns a read-only io/fs view of commit's tree, rooted at the repository
// root (names are '/'-separated, fs.ValidPath). Regular and executable files
// read as their blob; symbolic links and submodules are listed but cannot be
// opened (fs.ErrInvalid). Mod times are the commit's committer time. The view
// implements fs.ReadFileFS, fs.ReadDirFS and fs.StatFS; like the Repo, it is
// safe for concurrent use (the fs.File values it opens are not).
func (r *Repo) FS(commit Hash) (fs.FS, error) {
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	return treefs.New(fsReader{r}, c.TreeHash, c.Committer.When), nil
}

// fsReader is the Repo as treefs reads it.
type fsReader struct{ r *Repo }

func (f fsReader) EntryAt(root plumbing.Hash, path string) (object.TreeEntry, bool, error) {
	return f.r.entryAt(root, path)
}
func (f fsReader) Tree(h plumbing.Hash) (*object.Tree, error) { return f.r.tree(h) }
func (f fsReader) Blob(h plumbing.Hash) ([]byte, error)       { return f.r.blob(h, 0) }
func (f fsReader) BlobSize(h plumbing.Hash) (int64, error) {
	o, err := f.r.object(plumbing.BlobObject, h)
	if err != nil {
		return 0, err
	}
	return o.Size(), nil
}
