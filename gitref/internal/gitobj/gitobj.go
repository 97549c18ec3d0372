// Package gitobj holds what gitref and its internal packages share about git
// objects: the object id as lowercase hex ([Hash]), and the errors of reading
// objects and writing the repository's files (an object over a size limit, a
// missing object, storage that refuses a write). gitref re-exports them.
package gitobj

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
)

// Hash is a git object id as lowercase hex (40 characters for SHA-1). The empty
// Hash means "none" (no parent, ref absent).
type Hash string

// IsZero reports whether h is the empty Hash.
func (h Hash) IsZero() bool { return h == "" }

// String returns h's hex form.
func (h Hash) String() string { return string(h) }

// ErrBadHash: a string is not a full lowercase-hex object id.
var ErrBadHash = errors.New("bad object id")

// ParseHash validates s as a full lowercase hex SHA-1 object id. It returns an
// error wrapping ErrBadHash otherwise.
func ParseHash(s string) (Hash, error) {
	if len(s) != 40 || !IsLowerHex(s) {
		return "", fmt.Errorf("%w: %q is not 40 lowercase hex digits", ErrBadHash, s)
	}
	return Hash(s), nil
}

// IsLowerHex reports whether s is made of lowercase hex digits only.
func IsLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// FromPlumbing is go-git's id as a Hash ("" for the zero id).
func FromPlumbing(h plumbing.Hash) Hash {
	if h.IsZero() {
		return ""
	}
	return Hash(h.String())
}

// ToPlumbing is h as go-git's id.
func ToPlumbing(h Hash) plumbing.Hash { return plumbing.NewHash(string(h)) }

// HasNUL reports whether b holds a NUL byte.
func HasNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

// ErrGitProgram: the git program is not installed, or a git command failed
// for a reason other than a rejected ref (network, authentication, unknown
// remote).
var ErrGitProgram = errors.New("git command failed")

// ErrNotFound: a path does not exist in a commit's tree, or an object is absent.
var ErrNotFound = errors.New("not found")

// ErrUnsupportedRepository: the repository uses a format go-git cannot read
// (SHA-256 object ids, the reftable ref backend, an unknown extension).
var ErrUnsupportedRepository = errors.New("unsupported repository format")

// ErrMissingObject is wrapped by the errors of an object the repository does
// not hold (gitref's MissingObjectError).
var ErrMissingObject = errors.New("object missing from the repository")

// ErrTooLarge is wrapped by TooLargeError.
var ErrTooLarge = errors.New("object too large")

// TooLargeError reports a blob over a size limit (notes are limited to 4 MiB:
// docs/format.md#limits).
type TooLargeError struct {
	Object Hash
	Size   int64 // bytes
	Limit  int64 // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("blob %s is %d bytes, over the limit of %d", e.Object, e.Size, e.Limit)
}

// Unwrap returns ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// ErrStorage is wrapped by *StorageError: the repository's files cannot be
// written because of where they are kept — a full file system, a read-only
// one, permissions, the file size limit — which is the repository's
// situation to fix, not a fault of taskproof (docs/format.md#git-preconditions).
var ErrStorage = errors.New("repository storage cannot be written")

// StorageError is a write into the repository (an object, a ref's lock file,
// the config) that the operating system refused for one of the reasons
// ErrStorage names. Ref, when not "", is the ref the write was to move, left
// as it was.
type StorageError struct {
	Path  string        // the file the system refused
	Errno syscall.Errno // why
	Ref   string        // the ref left unchanged, or ""
	Err   error         // the error as the write reported it
}

// storageErrnos are the errors of the system that say the storage cannot take
// the write, with the name of each and what to do.
var storageErrnos = map[syscall.Errno]struct{ name, fix string }{
	syscall.ENOSPC: {"ENOSPC", "the file system holding %s is full: free space there"},
	syscall.EDQUOT: {"EDQUOT", "the disk quota of the file system holding %s is used up: free space or raise the quota"},
	syscall.EROFS:  {"EROFS", "%s is on a read-only file system: remount it read-write, or work in a writable clone"},
	syscall.EACCES: {"EACCES", "%s is not accessible to this user: fix its owner or mode (ls -ld), or run as the repository's owner"},
	syscall.EPERM:  {"EPERM", "%s cannot be written (not permitted): fix its owner, mode or attributes (lsattr)"},
	syscall.EFBIG:  {"EFBIG", "a file under %s would pass the file size limit: raise it (ulimit -f)"},
	syscall.EIO:    {"EIO", "the disk holding %s reports an I/O error: check it (dmesg) before anything else"},
}

func (e *StorageError) Error() string {
	what := storageErrnos[e.Errno]
	fix := fmt.Sprintf(what.fix, filepath.Dir(e.Path))
	unchanged := "nothing was changed"
	if e.Ref != "" {
		unchanged = e.Ref + " is as it was"
	}
	return fmt.Sprintf("%v [%s]: %s, then run the command again (%s)", e.Err, what.name, fix, unchanged)
}

// Unwrap returns ErrStorage and the error as reported.
func (e *StorageError) Unwrap() []error { return []error{ErrStorage, e.Err} }

// StorageFault returns err as a *StorageError (with ref, the ref the write was
// to move) when its chain holds one of the system errors of storageErrnos on
// a file; err unchanged otherwise (nil for nil).
func StorageFault(err error, ref string) error {
	var se *StorageError
	if err == nil || errors.As(err, &se) {
		return err
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	if _, ok := storageErrnos[errno]; !ok {
		return err
	}
	var path string
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		path = pe.Path
	case errors.As(err, &le):
		path = le.New
	default:
		return err
	}
	return &StorageError{Path: path, Errno: errno, Ref: ref, Err: err}
}

// ProbeWrite writes a file of one block (4 KiB) in dir and removes it; it
// returns the first error of the system.
func ProbeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".taskproof-probe-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(make([]byte, 4096))
	if werr == nil {
		werr = f.Sync()
	}
	cerr := f.Close()
	os.Remove(f.Name())
	if werr != nil {
		return werr
	}
	return cerr
}
