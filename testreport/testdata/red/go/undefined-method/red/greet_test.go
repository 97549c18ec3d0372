package greet

import "testing"

func TestShout(t *testing.T) {
	g := Greeter{Greeting: "hello"}
	if got := g.Shout("Ada"); got != "HELLO, ADA" {
		t.Errorf("Shout(Ada) = %q", got)
	}
}
