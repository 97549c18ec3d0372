package greet

import (
	"testing"
	"time"
)

func TestSlowHello(t *testing.T) {
	time.Sleep(time.Minute)
	if got := Hello("Ada"); got != "hi, Ada" {
		t.Errorf("Hello(Ada) = %q", got)
	}
}
