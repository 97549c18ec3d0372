package audit_test

import (
	"testing"

	"github.com/taskproof/taskproof/audit"
)

// TestSetRange: --all reads HEAD's history whatever the argument; a range
// is its base and head; a revision is all of its history.
func TestSetRange(t *testing.T) {
	f := newFixture(t, 3)
	o := audit.Options{All: true}
	if err := o.SetRange(f.repo, "HEAD~2"); err != nil || o.Head != f.ticks[2] || o.Base != "" {
		t.Errorf("all: %+v, %v; want HEAD's history", o, err)
	}
	o = audit.Options{}
	if err := o.SetRange(f.repo, "HEAD~2..HEAD~1"); err != nil || o.Base != f.ticks[0] || o.Head != f.ticks[1] {
		t.Errorf("range: %+v, %v", o, err)
	}
	o = audit.Options{}
	if err := o.SetRange(f.repo, "HEAD~1"); err != nil || o.Base != "" || o.Head != f.ticks[1] {
		t.Errorf("revision: %+v, %v; want all of its history", o, err)
	}
	if err := o.SetRange(f.repo, "nosuch"); err == nil {
		t.Error("an unknown revision: no error")
	}
}
