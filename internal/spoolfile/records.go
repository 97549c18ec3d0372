package spoolfile

import (
	"bufio"
	"encoding/gob"
	"io"
)

// Records is a File of gob records of type R, written in turn through a
// 64 KiB buffer and read back in the order they were written: the tick
// walk's commits, the report's ticks.
type Records[R any] struct {
	f   *File
	w   *bufio.Writer
	enc *gob.Encoder
}

// CreateRecords creates the records' File (Create(dir, pattern)); Close
// removes it.
func CreateRecords[R any](dir, pattern string) (*Records[R], error) {
	f, err := Create(dir, pattern)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	return &Records[R]{f: f, w: w, enc: gob.NewEncoder(w)}, nil
}

// Add writes one record.
func (s *Records[R]) Add(r *R) error { return s.enc.Encode(r) }

// Reader returns a function giving the records in the order Add wrote them,
// each decoded into a fresh R (gob leaves a zero field untouched), then
// io.EOF.
func (s *Records[R]) Reader() (func() (R, error), error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(s.f, 64<<10))
	return func() (R, error) {
		var r R
		err := dec.Decode(&r)
		return r, err
	}, nil
}

// Close removes the records' File.
func (s *Records[R]) Close() error { return s.f.Close() }

// Name is the name the records' File was created with.
func (s *Records[R]) Name() string { return s.f.Name() }
