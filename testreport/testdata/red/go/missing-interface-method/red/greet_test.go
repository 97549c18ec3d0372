package greet

import "testing"

func TestGreeterShouts(t *testing.T) {
	var s Shouter = Greeter{Greeting: "hello"}
	if got := s.Shout("Ada"); got != "HELLO, ADA" {
		t.Errorf("Shout(Ada) = %q", got)
	}
}
