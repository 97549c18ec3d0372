package notesync

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
)

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
		if err := gitobj.ProbeWrite(filepath.Join(gitDir, dir)); err != nil {
			if se, ok := gitobj.StorageFault(err, ref).(*gitobj.StorageError); ok {
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
				return &gitobj.StorageError{Path: filepath.Join(gitDir, "objects", "pack"), Errno: errno, Ref: ref, Err: ge}
			}
		}
	}
	return ge
}
