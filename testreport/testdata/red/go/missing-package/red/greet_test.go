package greet

import (
	"testing"

	"example.com/greet/names"
)

func TestDefault(t *testing.T) {
	if got := Hello(names.Default()); got != "hi, world" {
		t.Errorf("Hello(Default()) = %q", got)
	}
}
