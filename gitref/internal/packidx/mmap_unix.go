//go:build unix

package packidx

import (
	"os"
	"syscall"
)

// MapFile maps the file at path, a pack or pack index file, read-only into memory, or
// returns nil when it cannot (empty, too large for the address space, or
// mmap(2) refused): the caller then reads it with pread. Pack files are never
// modified once written (git writes a new pack under a temporary name and
// renames it into place, named by its checksum; a repack removes the old
// file, whose pages live on while they are mapped), so the mapping cannot
// change under the reader. The descriptor is closed at once: a mapping does
// not need it.
func MapFile(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || int64(int(st.Size())) != st.Size() {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// UnmapFile releases a mapping made by MapFile.
func UnmapFile(b []byte) { _ = syscall.Munmap(b) }

// MapSupported: MapFile maps files on this system.
const MapSupported = true
