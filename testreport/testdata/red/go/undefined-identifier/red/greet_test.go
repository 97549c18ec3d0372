package greet

import "testing"

func TestGreet(t *testing.T) {
	if got := Greet("Ada"); got != "hello, Ada" {
		t.Errorf("Greet(Ada) = %q", got)
	}
}
