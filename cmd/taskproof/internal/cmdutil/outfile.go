package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxOutputLinks bounds the symbolic links followed to an output file, as
// the kernel bounds a path's (ELOOP).
const maxOutputLinks = 40

// OutputFileError is a report file that could not be written: exit 4 (the
// system's state, not the repository's), and not tried a second time for the
// error result of the same run.
type OutputFileError struct{ err error }

func (e *OutputFileError) Error() string { return e.err.Error() }
func (e *OutputFileError) Unwrap() error { return e.err }

// WriteOutputFile writes the report file a command-line option (flag) names,
// the way the shell's `>` would, except that a regular file never holds half
// a report (docs/format.md#report-files):
//   - an absent path or a regular file is replaced atomically: write's output
//     goes into a temporary file in the same directory, renamed over path once
//     complete (a replaced file keeps its permission bits, a new one is 0644);
//   - a symbolic link is followed and its target written by these rules (a
//     dangling link creates its target, as `>` does); the temporary file is
//     in the target's directory;
//   - a FIFO, a device, and a link into /proc (/dev/stdout, /dev/fd/N) are
//     opened and written in place: renaming over them would replace a node
//     other programs read or write, and the reader would get nothing;
//   - a directory is an error.
//
// A failure is exit 4.
func WriteOutputFile(flag, path string, write func(io.Writer) error) error {
	fail := func(err error) error {
		return WithCode(ExitGit, &OutputFileError{fmt.Errorf("%s %s: %w", flag, path, err)})
	}
	target, fi, inPlace, err := resolveOutputFile(path)
	switch {
	case err != nil:
		return fail(err)
	case fi != nil && fi.IsDir():
		return fail(errors.New("is a directory"))
	case inPlace || fi != nil && !fi.Mode().IsRegular():
		err = writeInPlace(path, write)
	default:
		perm := fs.FileMode(0o644)
		if fi != nil {
			perm = fi.Mode().Perm()
		}
		err = replaceFile(target, perm, write)
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// resolveOutputFile follows path's symbolic links to the file a write would
// reach: target is that file's path, fi its Lstat (nil when absent). inPlace
// is set when a link lives in /proc, whose fd links (/dev/stdout is one) name
// an open file, a pipe or a socket rather than a path: only opening path
// reaches what they stand for.
func resolveOutputFile(path string) (target string, fi fs.FileInfo, inPlace bool, err error) {
	p := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, false, nil
		}
		if err != nil {
			return "", nil, false, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, fi, false, nil
		}
		if hops == maxOutputLinks {
			return "", nil, false, errors.New("too many levels of symbolic links")
		}
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil && (dir == "/proc" || strings.HasPrefix(dir, "/proc/")) {
			return p, fi, true, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", nil, false, err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
}

// writeInPlace opens path for writing, truncated as `>` does (a FIFO or a
// device ignores the truncation), and writes to it.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replaceFile writes into a temporary file beside target and renames it over
// target once complete, so that a reader sees the old file or the whole new
// one.
func replaceFile(target string, perm fs.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".*")
	if err != nil {
		// The temporary file's name is no name the user gave.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("cannot create a file in %s: %w", dir, pe.Err)
		}
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), perm); err != nil {
		return err
	}
	return os.Rename(f.Name(), target)
}
