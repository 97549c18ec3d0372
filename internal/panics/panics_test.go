package panics

import (
	"errors"
	"strings"
	"testing"
)

func TestCall(t *testing.T) {
	want := errors.New("plain")
	if err := Call(func() error { return want }); err != want {
		t.Fatalf("Call returned %v, want f's error", err)
	}
	if Recovered() != nil {
		t.Fatal("Recovered() before any panic")
	}
	err := Call(func() error {
		var m map[string]int
		m["x"] = 1 // a runtime error
		return nil
	})
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Call of a panicking f returned %T %v, want *Error", err, err)
	}
	if !strings.HasPrefix(pe.Error(), "internal error: panic: assignment to entry in nil map") {
		t.Errorf("message %q", pe.Error())
	}
	// The stack is the panicking goroutine's, down to where it panicked.
	if !strings.Contains(string(pe.Stack), "panics.TestCall.func") || !strings.Contains(string(pe.Stack), "panics_test.go") {
		t.Errorf("stack does not show the panicking function:\n%s", pe.Stack)
	}
	if Recovered() != pe {
		t.Error("Recovered() is not the panic recovered")
	}
	if err := Call(func() error { panic(want) }); errors.Is(err, want) {
		t.Error("a panic with an error value unwraps to it")
	}
	if Recovered() != pe {
		t.Error("Recovered() is not the first panic")
	}
	var nilPanic *Error
	if err := Call(func() error { panic(nil) }); !errors.As(err, &nilPanic) {
		t.Errorf("panic(nil) returned %v", err)
	}
}
