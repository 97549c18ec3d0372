package audit

import (
	"testing"

	"github.com/taskproof/taskproof/gitref"
)

// TestAccess: only an audit of all notes that checks no signature reads the
// repository once, with caches that do not grow with the history; a range,
// or a signature check that reads each tick's objects again, keeps the
// default caches.
func TestAccess(t *testing.T) {
	a := Access(true, false)
	if !a.OnePass || a.ObjectCache <= 0 || a.CommitCache <= 0 {
		t.Errorf("Access(all, no signatures) = %+v, want one pass with bounded caches", a)
	}
	for _, c := range [][2]bool{{true, true}, {false, false}, {false, true}} {
		if a := Access(c[0], c[1]); a != (gitref.Access{}) {
			t.Errorf("Access(%v, %v) = %+v, want the default", c[0], c[1], a)
		}
	}
}
