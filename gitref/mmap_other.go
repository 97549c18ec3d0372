//go:build !unix

package gitref

// mapFile maps nothing on this system: pack files are read with pread.
func mapFile(string) []byte { return nil }

// unmapFile is never called on this system.
func unmapFile([]byte) {}

// mapFileSupported: mapFile maps files on this system.
const mapFileSupported = false
