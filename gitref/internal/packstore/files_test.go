package packstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"

	"github.com/taskproof/taskproof/gitref/internal/packidx"
)

// TestPreadFile compares the pack file reader's Read, Seek and ReadAt with a
// bytes.Reader over a file larger than its window, read through the pread
// window and through a mapping.
func TestPreadFile(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			testPreadFile(t, mapped)
		})
	}
}

func testPreadFile(t *testing.T, mapped bool) {
	data, p := writePackBytes(t, "pack-x.pack", 3*preadWindow+123)
	bfs := osfs.New(filepath.Dir(p))
	var on atomic.Bool
	on.Store(mapped)
	f, err := FS{Filesystem: bfs, MapPacks: &on}.Open("pack-x.pack")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pf, ok := f.(*preadFile)
	if !ok {
		t.Fatalf("Open(.pack) = %T, want *preadFile", f)
	}
	if wantMap := mapped && packidx.MapSupported; (pf.mapped != nil) != wantMap {
		t.Fatalf("mapped = %v, want %v", pf.mapped != nil, wantMap)
	}
	ref := bytes.NewReader(data)
	steps := []struct {
		off    int64
		whence int
		n      int
	}{
		{0, io.SeekStart, 10}, {5, io.SeekCurrent, 4096}, {preadWindow - 3, io.SeekStart, 10},
		{-20, io.SeekEnd, 100}, {0, io.SeekCurrent, 5}, {1, io.SeekStart, 2 * preadWindow},
		{int64(len(data)) + 5, io.SeekStart, 3}, {100, io.SeekStart, 1}, {-10, io.SeekCurrent, 64},
		// Backwards: near the window's start (the next window ends there),
		// across its start, and far before it.
		{2*preadWindow + 50, io.SeekStart, 100}, {2*preadWindow - 200, io.SeekStart, 300},
		{preadWindow + 10, io.SeekStart, 4096}, {preadWindow + 5, io.SeekStart, 10}, {3, io.SeekStart, 2},
		{int64(len(data)) - 7, io.SeekStart, 7}, {int64(len(data)) - 40, io.SeekStart, 100},
	}
	for i, s := range steps {
		got, gerr := f.Seek(s.off, s.whence)
		want, werr := ref.Seek(s.off, s.whence)
		if got != want || (gerr != nil) != (werr != nil) {
			t.Fatalf("step %d: Seek = %d, %v; want %d, %v", i, got, gerr, want, werr)
		}
		gb, wb := make([]byte, s.n), make([]byte, s.n)
		gn, gerr := io.ReadFull(f, gb)
		wn, werr := io.ReadFull(ref, wb)
		if gn != wn || !bytes.Equal(gb[:gn], wb[:wn]) || !errors.Is(gerr, werr) && (gerr != nil || werr != nil) {
			t.Fatalf("step %d: read %d, %v; want %d, %v", i, gn, gerr, wn, werr)
		}
	}
	if _, err := f.Seek(-1, io.SeekStart); err == nil {
		t.Error("Seek(-1) succeeded")
	}
	for _, at := range []struct {
		off int64
		n   int
	}{{0, 10}, {preadWindow - 3, 4096}, {int64(len(data)) - 5, 10}, {int64(len(data)) + 1, 3}} {
		gb, wb := make([]byte, at.n), make([]byte, at.n)
		gn, gerr := pf.ReadAt(gb, at.off)
		wn, werr := ref.ReadAt(wb, at.off)
		if gn != wn || !bytes.Equal(gb[:gn], wb[:wn]) || !errors.Is(gerr, werr) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v; want %d, %v", at.n, at.off, gn, gerr, wn, werr)
		}
	}
}

// writePackBytes writes a file name of n bytes, each byte telling its offset
// apart from its neighbours', in a temporary directory; it returns the bytes
// and the path.
func writePackBytes(t *testing.T, name string, n int) ([]byte, string) {
	t.Helper()
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i * 7)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return data, p
}

// countingFile counts ReadAt calls on a file.
type countingFile struct {
	billy.File
	reads int
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	f.reads++
	return f.File.ReadAt(p, off)
}

// TestPreadFileBackwards: objects read from the end of a pack to its start
// (commits listed newest first from a pack that holds them oldest first)
// cost a system call per window, not one per object, and read the file's
// bytes.
func TestPreadFileBackwards(t *testing.T) {
	data, p := writePackBytes(t, "pack-y.pack", 4*preadWindow+77)
	bf, err := osfs.New(filepath.Dir(p)).Open("pack-y.pack")
	if err != nil {
		t.Fatal(err)
	}
	defer bf.Close()
	cf := &countingFile{File: bf}
	f := &preadFile{File: cf, name: "pack-y.pack", size: int64(len(data))}
	const step, n = 997, 200
	objects := 0
	for off := int64(len(data)) - n; off >= 0; off -= step {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(f, b); err != nil {
			t.Fatalf("read at %d: %v", off, err)
		}
		if !bytes.Equal(b, data[off:off+n]) {
			t.Fatalf("read at %d: wrong bytes", off)
		}
		objects++
	}
	if limit := len(data)/(preadWindow-preadTail) + 2; cf.reads > limit {
		t.Errorf("%d objects read backwards took %d ReadAt calls, want at most %d (one per window read backwards)", objects, cf.reads, limit)
	}
}
