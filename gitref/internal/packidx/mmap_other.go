//go:build !unix

package packidx

// MapFile maps nothing on this system: pack files are read with pread.
func MapFile(string) []byte { return nil }

// UnmapFile is never called on this system.
func UnmapFile([]byte) {}

// MapSupported: MapFile maps files on this system.
const MapSupported = false
