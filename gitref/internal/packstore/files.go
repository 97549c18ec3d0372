// Package packstore is the pack store's file layer: the git directory as
// go-git sees it, with a directory listing that tolerates concurrent writers,
// and pack files opened once for all their readers, read through a pread
// window or a read-only mapping.
package packstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5"

	"github.com/taskproof/taskproof/gitref/internal/packidx"
)

// FS is the git directory's filesystem as go-git sees it, with a directory
// listing that tolerates concurrent writers.
//
// go-git finds pack files by listing objects/pack with billy's ReadDir, which
// lstat()s every entry and fails as a whole when one entry vanishes between
// the listing and its lstat — and go-git's own loose-object writer keeps
// creating and renaming tmp_obj_* files in objects/pack. go-git reads that
// failure (ENOENT) as "no pack directory" and caches an empty pack index, after
// which every packed object is "not found": the flake of a notes writer running
// while another process writes notes. FS.ReadDir skips entries that vanish
// instead, and, as git does, lists a pack-*.pack only once its pack-*.idx is in
// place (git renames the .idx last when it writes a pack).
//
// FS also opens pack files for reading through preadFile, mapped into
// memory when *MapPacks is true (nil: never), each pack once for all its
// readers (Shared).
type FS struct {
	billy.Filesystem
	MapPacks *atomic.Bool // map pack files (nil: never)
	Shared   *Shared      // the pack files open (nil: each Open opens its own)
}

// ReadDir lists dir (relative to the filesystem's root), sorted by name.
func (l FS) ReadDir(dir string) ([]os.FileInfo, error) {
	full := filepath.Join(l.Root(), filepath.FromSlash(dir))
	ents, err := os.ReadDir(full)
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(ents))
	for _, e := range ents {
		names[e.Name()] = true
	}
	out := make([]os.FileInfo, 0, len(ents))
	for _, e := range ents {
		n := e.Name()
		if stem, ok := strings.CutSuffix(n, ".pack"); ok && strings.HasPrefix(n, "pack-") && !names[stem+".idx"] {
			continue // a pack still being written (or removed)
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed or renamed since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fi)
	}
	return out, nil
}

// Open opens a file; pack files are read with pread or from a mapping (see
// preadFile), each pack opened once while any reader of it is open (see
// Shared).
func (l FS) Open(name string) (billy.File, error) {
	if !strings.HasSuffix(name, ".pack") {
		return l.Filesystem.Open(name)
	}
	if l.Shared == nil {
		l.Shared = &Shared{}
	}
	return l.Shared.open(filepath.Join(l.Root(), filepath.FromSlash(name)), name, l.MapPacks, func() (billy.File, error) {
		return l.Filesystem.Open(name)
	})
}

// Shared holds the pack files open through a FS (and its Chroots):
// each is opened (and mapped) once and read by every reader opened on it at
// its own offset, through pread or the mapping, which are safe for concurrent
// use: every handle keeps readers of every pack, and go-git's own storage
// (packs of alternate object stores) opens a pack again for every object over
// 16 KiB it reads (packfile.FSObject): without sharing, that is an open(2), a
// close(2) and a 64 KiB window (or a mapping of the whole pack) per object. A
// pack is closed when its last reader is. Safe for concurrent use.
type Shared struct {
	mu    sync.Mutex
	files map[string]*sharedPack // by absolute path
}

// sharedPack is one open pack file of a Shared.
type sharedPack struct {
	f      billy.File // read with ReadAt only
	size   int64
	mapped []byte // the whole file, mapped; nil when reading through windows
	refs   int    // readers open
}

// open returns a new reader of the pack at abs (named name in the opening
// filesystem), opening it with openFile when no reader of it is open.
func (s *Shared) open(abs, name string, mapPacks *atomic.Bool, openFile func() (billy.File, error)) (*preadFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.files[abs]
	if sp == nil {
		f, err := openFile()
		if err != nil {
			return nil, err
		}
		size, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			f.Close()
			return nil, err
		}
		sp = &sharedPack{f: f, size: size}
		if mapPacks != nil && mapPacks.Load() {
			sp.mapped = packidx.MapFile(abs)
		}
		if s.files == nil {
			s.files = map[string]*sharedPack{}
		}
		s.files[abs] = sp
	}
	sp.refs++
	return &preadFile{File: sp.f, name: name, size: sp.size, mapped: sp.mapped, release: func() error { return s.release(abs, sp) }}, nil
}

// release ends one reader of sp, closing the file when it was the last.
func (s *Shared) release(abs string, sp *sharedPack) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp.refs--; sp.refs > 0 {
		return nil
	}
	if s.files[abs] == sp {
		delete(s.files, abs)
	}
	if sp.mapped != nil {
		packidx.UnmapFile(sp.mapped)
		sp.mapped = nil
	}
	return sp.f.Close()
}

// preadFile reads a pack file at an offset it keeps itself, through a 64 KiB
// window: go-git's pack scanner seeks before every object it reads and then
// fills a 4 KiB buffer, which costs an lseek(2) and a read(2) per object on a
// plain file. Objects read together (a commit, its trees, their blobs) are
// mostly near each other in a pack, so most reads are served from the window
// without a system call. Pack files never change once written (their name is
// their checksum), so the window cannot go stale. A read just before the
// window places the next one mostly before the read (preadTail): go-git reads
// a history's objects in either direction through a pack (commits newest
// first, trees and blobs oldest first), and a window placed only forwards
// costs a system call per object read backwards. Windows are pooled
// (preadWindows): readers opened for one object each do not allocate one.
//
// Where the system allows it (packidx.MapFile), the whole pack is mapped read-only
// into memory instead, as git does, and reads are copies from the mapping:
// no system call at all. The file and its mapping are shared by the readers
// of the pack (Shared) and released when the last one is closed.
type preadFile struct {
	billy.File        // shared: only ReadAt, Name-less methods
	name       string // as opened
	size       int64
	off        int64
	win        *[preadWindow]byte // the window's buffer, from preadWindows
	winLen     int                // bytes of win holding the file at winOff
	winOff     int64
	mapped     []byte // the whole file, mapped; nil when reading through win
	release    func() error
}

const preadWindow = 64 << 10

// preadTail is how much of a window placed for reading backwards lies from
// the read offset on: the scanner's 4 KiB buffer fill and a small object's
// content, which the scanner reads next.
const preadTail = 16 << 10

// preadWindows pools the windows of closed preadFiles.
var preadWindows = sync.Pool{New: func() any { return new([preadWindow]byte) }}

// Name is the name the file was opened by.
func (f *preadFile) Name() string { return f.name }

func (f *preadFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.mapped != nil {
		if f.off >= int64(len(f.mapped)) {
			return 0, io.EOF
		}
		n := copy(p, f.mapped[f.off:])
		f.off += int64(n)
		return n, nil
	}
	if f.win == nil || f.off < f.winOff || f.off >= f.winOff+int64(f.winLen) {
		if len(p) >= preadWindow {
			n, err := f.File.ReadAt(p, f.off)
			f.off += int64(n)
			if err == io.EOF && n > 0 {
				err = nil // io.Reader may report EOF with the next call
			}
			return n, err
		}
		start := f.off
		if f.win == nil {
			f.win = preadWindows.Get().(*[preadWindow]byte)
		} else if f.off < f.winOff && f.winOff-f.off < preadWindow {
			// Reading backwards through the pack (a history listed newest
			// first, or walked oldest first, where the pack holds objects
			// the other way round): the window holds preadTail bytes from
			// f.off on, for this object, and the objects before it.
			start = max(0, f.off-(preadWindow-preadTail))
		}
		n, err := f.File.ReadAt(f.win[:], start)
		f.winLen, f.winOff = n, start
		if f.off >= start+int64(n) {
			// Short of f.off (the file ends before the window's end):
			// read at f.off itself, as a forward window.
			n, err = f.File.ReadAt(f.win[:], f.off)
			f.winLen, f.winOff = n, f.off
		}
		if n == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return 0, err
		}
	}
	n := copy(p, f.win[f.off-f.winOff:f.winLen])
	f.off += int64(n)
	return n, nil
}

func (f *preadFile) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = f.off + offset
	case io.SeekEnd:
		abs = f.size + offset
	default:
		return f.off, fmt.Errorf("seek %s: invalid whence %d", f.name, whence)
	}
	if abs < 0 {
		return f.off, fmt.Errorf("seek %s: negative offset %d", f.name, abs)
	}
	f.off = abs
	return abs, nil
}

// ReadAt reads from the mapping when there is one.
func (f *preadFile) ReadAt(p []byte, off int64) (int, error) {
	if f.mapped == nil {
		return f.File.ReadAt(p, off)
	}
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", f.name, off)
	}
	if off >= int64(len(f.mapped)) {
		return 0, io.EOF
	}
	n := copy(p, f.mapped[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close returns the window to the pool and ends this reader of the shared
// file (see Shared); a second Close does nothing.
func (f *preadFile) Close() error {
	if f.win != nil {
		preadWindows.Put(f.win)
		f.win, f.winLen = nil, 0
	}
	f.mapped = nil
	if f.release == nil {
		return nil
	}
	release := f.release
	f.release = nil
	return release()
}

// Chroot keeps the listing behaviour below the new root.
func (l FS) Chroot(dir string) (billy.Filesystem, error) {
	c, err := l.Filesystem.Chroot(dir)
	if err != nil {
		return nil, err
	}
	return FS{Filesystem: c, MapPacks: l.MapPacks, Shared: l.Shared}, nil
}

// Chmod forwards to the wrapped filesystem (go-git makes loose objects
// read-only with it).
func (l FS) Chmod(name string, mode os.FileMode) error {
	if c, ok := l.Filesystem.(billy.Chmod); ok {
		return c.Chmod(name, mode)
	}
	return errors.ErrUnsupported
}

// Capabilities forwards to the wrapped filesystem.
func (l FS) Capabilities() billy.Capability { return billy.Capabilities(l.Filesystem) }

// Open counts the pack files open and their readers.
func (s *Shared) Open() (files, readers int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sp := range s.files {
		readers += sp.refs
	}
	return len(s.files), readers
}
