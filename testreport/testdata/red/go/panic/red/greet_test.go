package greet

import "testing"

func TestBye(t *testing.T) {
	if got := Bye("Ada"); got != "bye, Ada" {
		t.Errorf("Bye(Ada) = %q", got)
	}
}
