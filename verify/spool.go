package verify

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrSpool is matched by the errors of the temporary files BranchSpooled
// holds the tick walk and the report in (os.CreateTemp in os.TempDir, that
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

// itemSpool holds a report list's leading items out of memory: each item's
// JSON encoding as WriteJSON writes it in the list (indented four spaces, no
// trailing newline), the items joined by ",\n", in a temporary file.
type itemSpool struct {
	f   *spoolFile
	w   *bufio.Writer
	n   int
	buf bytes.Buffer
}

// newItemSpool creates the spool's temporary file (os.CreateTemp in dir, ""
// for the default); Close removes it.
func newItemSpool(dir string) (*itemSpool, error) {
	f, err := createSpoolFile(dir, "taskproof-report-*")
	if err != nil {
		return nil, err
	}
	return &itemSpool{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add appends v's item encoding.
func (s *itemSpool) add(v any) error {
	s.buf.Reset()
	if s.n > 0 {
		s.buf.WriteString(",\n")
	}
	s.buf.WriteString("    ")
	if err := encodeIndented(&s.buf, v, "    "); err != nil {
		return err
	}
	s.n++
	_, err := s.w.Write(bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")))
	return err
}

// writeTo copies the spooled items to w (as add wrote them, from the first).
func (s *itemSpool) writeTo(w io.Writer) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	if err == nil {
		_, err = s.f.Seek(0, io.SeekEnd)
	}
	return err
}

// close removes the spool's file.
func (s *itemSpool) close() error { return s.f.close() }

// spoolFile is a temporary file whose name is removed as soon as it is open
// where the system allows it (an open file outlives its name on Unix), so a
// killed verify leaves nothing behind; elsewhere close removes it.
// Its Read, Write and Seek errors are spoolErrors.
type spoolFile struct {
	*os.File
	dir   string
	named bool // the name still exists: close removes it
}

func createSpoolFile(dir, pattern string) (*spoolFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if dir == "" {
		dir = os.TempDir()
	}
	if err != nil {
		return nil, &spoolError{"create", dir, err}
	}
	return &spoolFile{File: f, dir: dir, named: os.Remove(f.Name()) != nil}, nil
}

func (f *spoolFile) fail(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &spoolError{op, f.dir, err}
}

func (f *spoolFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.fail("write", err)
}

func (f *spoolFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	return n, f.fail("read", err)
}

func (f *spoolFile) Seek(offset int64, whence int) (int64, error) {
	n, err := f.File.Seek(offset, whence)
	return n, f.fail("seek in", err)
}

// close closes the file and removes its name if it still has one.
func (f *spoolFile) close() error {
	err := f.File.Close()
	if f.named {
		if rerr := os.Remove(f.Name()); err == nil {
			err = rerr
		}
	}
	return f.fail("close", err)
}

// tickSpool holds, for a report's leading ticks, the lists the passes after
// the judging do not read (Reasons, Signers), out of memory: one gob record a
// tick, in order, in a temporary file. The ticks in Report.Ticks keep every
// other field.
type tickSpool struct {
	f   *spoolFile
	w   *bufio.Writer
	enc *gob.Encoder
	n   int
}

// tickLists are a spooled tick's lists, nil told apart from empty.
type tickLists struct {
	Reasons                []Reason
	Signers                []Signer
	NilReasons, NilSigners bool
}

func newTickSpool(dir string) (*tickSpool, error) {
	f, err := createSpoolFile(dir, "taskproof-ticks-*")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	return &tickSpool{f: f, w: w, enc: gob.NewEncoder(w)}, nil
}

// add moves t's lists to the spool (t keeps nil lists).
func (s *tickSpool) add(t *TickResult) error {
	l := tickLists{Reasons: t.Reasons, Signers: t.Signers, NilReasons: t.Reasons == nil, NilSigners: t.Signers == nil}
	if err := s.enc.Encode(&l); err != nil {
		return err
	}
	t.Reasons, t.Signers = nil, nil
	s.n++
	return nil
}

// reader returns a function giving the spooled lists of tick 0, 1, … in turn.
func (s *tickSpool) reader() (func() (tickLists, error), error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(s.f, 64<<10))
	return func() (tickLists, error) {
		var l tickLists
		if err := dec.Decode(&l); err != nil {
			return l, fmt.Errorf("reading the spooled report: %w", err)
		}
		if l.Reasons == nil && !l.NilReasons {
			l.Reasons = []Reason{}
		}
		if l.Signers == nil && !l.NilSigners {
			l.Signers = []Signer{}
		}
		return l, nil
	}, nil
}

func (s *tickSpool) close() error { return s.f.close() }

// tickReader returns a function giving rep's ticks in order, i = 0, 1, …:
// a copy of Ticks[i] with the lists its spool holds (and then its hint, which
// reads them: addHints leaves spooled ticks out).
func (rep *Report) tickReader() (func(i int) (*TickResult, error), error) {
	if rep.tickSpool == nil || rep.tickSpool.n == 0 {
		return func(i int) (*TickResult, error) { return &rep.Ticks[i], nil }, nil
	}
	next, err := rep.tickSpool.reader()
	if err != nil {
		return nil, fmt.Errorf("reading the spooled report: %w", err)
	}
	var t TickResult
	return func(i int) (*TickResult, error) {
		t = rep.Ticks[i]
		if i >= rep.tickSpool.n {
			return &t, nil
		}
		l, err := next()
		if err != nil {
			return nil, err
		}
		t.Reasons, t.Signers = l.Reasons, l.Signers
		if t.Failing {
			t.Hint = tickHint(&t)
		}
		return &t, nil
	}, nil
}
