package greet

import "testing"

func TestCount(t *testing.T) {
	if got := Count("a b"); got != 2 {
		t.Errorf("Count = %d", got)
	}
}
