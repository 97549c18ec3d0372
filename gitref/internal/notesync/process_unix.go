//go:build unix

package notesync

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process pid runs (signal 0 reaches it, or
// it is another user's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
