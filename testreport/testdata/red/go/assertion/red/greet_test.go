package greet

import "testing"

func TestHello(t *testing.T) {
	if got := Hello("Ada"); got != "hello, Ada" {
		t.Errorf("Hello(Ada) = %q, want %q", got, "hello, Ada")
	}
}
