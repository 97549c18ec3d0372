package greet

import "testing"

func TestHello(t *testing.T) {
	if got := Helo("Ada"); got != "hi, Ada" {
		t.Errorf("Hello(Ada) = %q", got)
	}
}
