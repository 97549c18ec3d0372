// Package treefs is the read-only io/fs view of a commit's tree behind
// gitref's Repo.FS: regular and executable files read as their blob,
// symbolic links and submodules listed but not opened, directories read from
// their trees, mod times the commit's.
package treefs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Reader is what the view reads of the repository.
type Reader interface {
	// EntryAt is the entry at '/'-separated path under tree root.
	EntryAt(root plumbing.Hash, path string) (e object.TreeEntry, found bool, err error)
	Tree(h plumbing.Hash) (*object.Tree, error)
	Blob(h plumbing.Hash) ([]byte, error)
	BlobSize(h plumbing.Hash) (int64, error)
}

// New is the view of tree root, its mod times when.
func New(r Reader, root plumbing.Hash, when time.Time) fs.FS {
	return &treeFS{r: r, root: root, when: when}
}

// isRegular reports whether m is a regular file, executable or not.
func isRegular(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Deprecated || m == filemode.Executable
}

type treeFS struct {
	r    Reader
	root plumbing.Hash
	when time.Time
}

// lookup returns the entry at name ("." is the root tree).
func (t *treeFS) lookup(op, name string) (object.TreeEntry, error) {
	if !fs.ValidPath(name) {
		return object.TreeEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return object.TreeEntry{Name: ".", Mode: filemode.Dir, Hash: t.root}, nil
	}
	e, ok, err := t.r.EntryAt(t.root, name)
	if err != nil {
		return object.TreeEntry{}, &fs.PathError{Op: op, Path: name, Err: err}
	}
	if !ok {
		return object.TreeEntry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return e, nil
}

func (t *treeFS) Open(name string) (fs.File, error) {
	e, err := t.lookup("open", name)
	if err != nil {
		return nil, err
	}
	info := t.info(e, path.Base(name))
	switch {
	case e.Mode == filemode.Dir:
		ents, err := t.readDir(e.Hash, name)
		if err != nil {
			return nil, err
		}
		return &dirFile{info: info, entries: ents}, nil
	case isRegular(e.Mode):
		b, err := t.r.Blob(e.Hash)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &blobFile{info: info, Reader: bytes.NewReader(b)}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
}

func (t *treeFS) ReadFile(name string) ([]byte, error) {
	e, err := t.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if !isRegular(e.Mode) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	b, err := t.r.Blob(e.Hash)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := t.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return t.readDir(e.Hash, name)
}

func (t *treeFS) Stat(name string) (fs.FileInfo, error) {
	e, err := t.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return t.info(e, path.Base(name)), nil
}

func (t *treeFS) readDir(h plumbing.Hash, name string) ([]fs.DirEntry, error) {
	tr, err := t.r.Tree(h)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, 0, len(tr.Entries))
	for _, e := range tr.Entries {
		out = append(out, fs.FileInfoToDirEntry(t.info(e, e.Name)))
	}
	// io/fs wants entries sorted by name; git sorts directories as "name/".
	sortDirEntries(out)
	return out, nil
}

func (t *treeFS) info(e object.TreeEntry, name string) *entryInfo {
	fi := &entryInfo{name: name, mode: 0o444, when: t.when}
	switch {
	case e.Mode == filemode.Dir:
		fi.mode = fs.ModeDir | 0o555
	case e.Mode == filemode.Executable:
		fi.mode = 0o555
	case e.Mode == filemode.Symlink:
		fi.mode = fs.ModeSymlink | 0o444
	case e.Mode == filemode.Submodule:
		fi.mode = fs.ModeIrregular
	}
	if isRegular(e.Mode) {
		fi.r, fi.blob = t.r, e.Hash
	}
	return fi
}

// entryInfo is a tree entry's fs.FileInfo. A regular file's size is read
// from its blob when Size is called, not before: a Stat or ReadDir that only
// asks whether a path exists reads no blob.
type entryInfo struct {
	name string
	mode fs.FileMode
	when time.Time
	r    Reader        // with blob: a regular file's
	blob plumbing.Hash // its blob
}

func (i *entryInfo) Name() string { return i.name }

// Size is a regular file's size in bytes (0 when its blob cannot be read),
// 0 for anything else.
func (i *entryInfo) Size() int64 {
	if i.r == nil {
		return 0
	}
	size, err := i.r.BlobSize(i.blob)
	if err != nil {
		return 0
	}
	return size
}

func (i *entryInfo) Mode() fs.FileMode  { return i.mode }
func (i *entryInfo) ModTime() time.Time { return i.when }
func (i *entryInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *entryInfo) Sys() any           { return nil }

type blobFile struct {
	info *entryInfo
	*bytes.Reader
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *blobFile) Close() error               { return nil }

type dirFile struct {
	info    *entryInfo
	entries []fs.DirEntry
	off     int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.off:]
	if n <= 0 {
		d.off = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.off += n
	return rest[:n], nil
}

func sortDirEntries(es []fs.DirEntry) {
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
