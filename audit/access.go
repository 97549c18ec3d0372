package audit

import (
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/tick"
)

// noteObjectCache is the object cache, in bytes, of an audit reading every
// note in pack order: each note blob's delta base is the blob read just
// before it.
const noteObjectCache = 2 << 20

// Access is the access to open a repository with for a [Run] with
// Options.All set as all says, checking signatures or not. An audit of all
// notes that checks no signature walks the history once and reads the notes
// in pack order: small caches hold what each next read needs, and do not
// grow with the history. A range's notes are looked up per tick in the notes
// tree, and checking signatures reads each tick's objects again: both keep
// the default caches.
func Access(all, checkSignatures bool) gitref.Access {
	if all && !checkSignatures {
		a := tick.WalkOnce()
		a.ObjectCache = noteObjectCache
		return a
	}
	return gitref.Access{}
}
