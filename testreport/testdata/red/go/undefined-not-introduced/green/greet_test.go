package greet

import "testing"

func TestHello(t *testing.T) {
	if got := Hello("Ada"); got != "hi, Ada" {
		t.Errorf("Hello(Ada) = %q", got)
	}
}
