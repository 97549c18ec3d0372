package gitref

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

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

// storageFault returns err as a *StorageError (with ref, the ref the write was
// to move) when its chain holds one of the system errors of storageErrnos on
// a file; err unchanged otherwise (nil for nil).
func storageFault(err error, ref string) error {
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

// gitStorageErrnos are the storage errors a git command run on this clone can
// report of its own files, found by the system's text (strerror) in git's
// standard error. Permission errors are left out: "Permission denied" is as
// often a remote's refusal of a key as a file's mode.
var gitStorageErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EFBIG}

// gitStorageFault returns the failed git command ge as a *StorageError when
// this clone's storage cannot take a write: git does not always say why a
// write failed ("couldn't write '<ref>.lock'"), so a small file is written
// and removed again in the object store and under refs/, and the error the
// system gives there is the fault; else a line of git's standard error not
// from the remote ("remote: …") naming one of gitStorageErrnos. ge unchanged
// otherwise. gitDir is the repository's git directory, ref the ref the
// command left as it was.
func gitStorageFault(ge *GitError, gitDir, ref string) error {
	for _, dir := range []string{"objects", "refs"} {
		if err := probeWrite(filepath.Join(gitDir, dir)); err != nil {
			if se, ok := storageFault(err, ref).(*StorageError); ok {
				se.Err = fmt.Errorf("%w\na trial write in %s: %w", ge, filepath.Join(gitDir, dir), err)
				return se
			}
		}
	}
	for _, line := range strings.Split(ge.Stderr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "remote:") {
			continue
		}
		low := strings.ToLower(line)
		for _, errno := range gitStorageErrnos {
			if strings.Contains(low, strings.ToLower(errno.Error())) {
				return &StorageError{Path: filepath.Join(gitDir, "objects", "pack"), Errno: errno, Ref: ref, Err: ge}
			}
		}
	}
	return ge
}

// probeWrite writes a file of one block (4 KiB) in dir and removes it; it
// returns the first error of the system.
func probeWrite(dir string) error {
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
