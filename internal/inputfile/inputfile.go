// Package inputfile reads the files a user names on the command line — trust
// files, the policy, signing keys — whole and within a stated limit, so that
// a file that never ends (/dev/zero, a pipe left open) costs its limit, not
// the machine's memory; and it reads a file that can be read only once (a
// pipe: `<(…)`, /dev/stdin) once per process, so that two loads of the same
// input (the notes merge's preference, then the verifier) see the same bytes.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ErrLimit is the error for an input over its size limit.
var ErrLimit = errors.New("over its size limit")

// ReadLimited reads r whole, up to limit bytes; more is an error matching
// [ErrLimit] that names the limit, read no further than one byte past it.
func ReadLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrLimit, limit)
	}
	return b, nil
}

// once holds what was read of the inputs that are no regular files, by path.
var once struct {
	sync.Mutex
	read map[string][]byte
}

// Read reads the file at path whole, up to limit bytes (more: an error
// matching ErrLimit naming the path). A path that is no regular file (a
// pipe, a character device) is read once: later reads in the process return
// the bytes the first one read.
func Read(path string, limit int64) ([]byte, error) {
	// Stat first: opening a named pipe again would wait for a writer that
	// is gone.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		once.Lock()
		defer once.Unlock()
		if b, ok := once.read[path]; ok {
			return b, nil
		}
		b, err := readPath(path, limit)
		if err != nil {
			return nil, err
		}
		if once.read == nil {
			once.read = map[string][]byte{}
		}
		once.read[path] = b
		return b, nil
	}
	return readPath(path, limit)
}

func readPath(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFile(f, path, limit)
}

func readFile(f *os.File, path string, limit int64) ([]byte, error) {
	b, err := ReadLimited(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
