package noteline

import "bytes"

// Note limits (docs/format.md#limits).
const (
	// MaxNoteSize is the largest note, in bytes (4 MiB).
	MaxNoteSize = 4 << 20
	// MaxNoteLines is the largest number of lines in one note (docs/format.md#limits):
	// the 4 MiB size is the bound that matters; 1,024 lines hold the three
	// statements of a commit that ticks 341 tasks.
	MaxNoteLines = 1024
)

// Split splits a note into its lines (docs/format.md#storage: JSON Lines): on
// "\n", with a final "\n" not making an empty last line. Lines are returned as
// written (a "\r" before the "\n" stays part of the line: [Decode] drops it).
func Split(note []byte) [][]byte {
	if len(note) == 0 {
		return nil
	}
	note = bytes.TrimSuffix(note, []byte("\n"))
	return bytes.Split(note, []byte("\n"))
}
