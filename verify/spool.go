package verify

import (
	"bufio"
	"bytes"
	"io"
	"os"
)

// itemSpool holds a report list's leading items out of memory: each item's
// JSON encoding as WriteJSON writes it in the list (indented four spaces, no
// trailing newline), the items joined by ",\n", in a temporary file.
type itemSpool struct {
	f   *os.File
	w   *bufio.Writer
	n   int
	buf bytes.Buffer
}

// newItemSpool creates the spool's temporary file (os.CreateTemp in dir, ""
// for the default); Close removes it.
func newItemSpool(dir string) (*itemSpool, error) {
	f, err := os.CreateTemp(dir, "taskproof-report-*")
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
func (s *itemSpool) close() error {
	err := s.f.Close()
	if rerr := os.Remove(s.f.Name()); err == nil {
		err = rerr
	}
	return err
}
