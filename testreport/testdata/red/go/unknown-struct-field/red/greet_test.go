package greet

import "testing"

func TestPunct(t *testing.T) {
	g := Greeter{Greeting: "hello", Punct: "!"}
	if got := g.Say("Ada"); got != "hello, Ada!" {
		t.Errorf("Say(Ada) = %q", got)
	}
}
