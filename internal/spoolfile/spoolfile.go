// Package spoolfile holds what the merge gate keeps out of memory in
// temporary files that a killed run leaves nowhere: the tick walk and the
// report's ticks and objects, gob records (Records) or bytes (File).
package spoolfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrSpool is matched by the errors of the temporary files the merge
// gate holds its tick walk and its report in (os.CreateTemp in os.TempDir, that
// is TMPDIR): a directory that is missing, not writable or full is the
// system's state, not the repository's, and nothing is judged without them.
var ErrSpool = errors.New("verify: temporary file")

// spoolError is a spool file's failure to op (create, write, read) in dir.
type spoolError struct {
	op, dir string
	err     error
}

func (e *spoolError) Error() string {
	return fmt.Sprintf("cannot %s a temporary file in %s (TMPDIR): %v", e.op, e.dir, e.err)
}
func (e *spoolError) Unwrap() error        { return e.err }
func (e *spoolError) Is(target error) bool { return target == ErrSpool }

// File is a temporary file whose name is removed as soon as it is open
// where the system allows it (an open file outlives its name on Unix), so a
// killed verify leaves nothing behind; elsewhere Close removes it.
// Its Read, Write and Seek errors are errors matching ErrSpool.
type File struct {
	*os.File
	dir   string
	named bool // the name still exists: Close removes it
}

// Create creates a File (os.CreateTemp(dir, pattern); dir "" is
// os.TempDir).
func Create(dir, pattern string) (*File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if dir == "" {
		dir = os.TempDir()
	}
	if err != nil {
		return nil, &spoolError{"create", dir, err}
	}
	return &File{File: f, dir: dir, named: os.Remove(f.Name()) != nil}, nil
}

func (f *File) fail(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &spoolError{op, f.dir, err}
}

func (f *File) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.fail("write", err)
}

func (f *File) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	return n, f.fail("read", err)
}

func (f *File) Seek(offset int64, whence int) (int64, error) {
	n, err := f.File.Seek(offset, whence)
	return n, f.fail("seek in", err)
}

// Close closes the file and removes its name if it still has one.
func (f *File) Close() error {
	err := f.File.Close()
	if f.named {
		if rerr := os.Remove(f.Name()); err == nil {
			err = rerr
		}
	}
	return f.fail("close", err)
}
