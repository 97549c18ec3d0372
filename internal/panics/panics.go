// Package panics turns a panic into an error: a panic is taskproof's own bug,
// reported as an internal error (exit 5) with the stack where it happened,
// never a crash with Go's exit code 2. Every goroutine taskproof starts runs
// its work through [Call], and so does the command on the main goroutine.
package panics

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"
)

// Error is a recovered panic.
type Error struct {
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack, taken before it unwound
}

// Error says what panicked. It does not unwrap to the panic's value (a
// panic with a library's sentinel error is a bug, not that condition).
func (e *Error) Error() string { return fmt.Sprintf("internal error: panic: %v", e.Value) }

// first is the first panic Call recovered in the process.
var first atomic.Pointer[Error]

// Call runs f and returns its error; when f panics, the panic is recovered
// and returned as an *Error, and remembered (see [Recovered]).
func Call(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			e := &Error{Value: v, Stack: debug.Stack()}
			first.CompareAndSwap(nil, e)
			err = e
		}
	}()
	return f()
}

// Recovered returns the first panic [Call] recovered in the process, nil when
// none: a command that ends with any result after one reports the panic
// instead, whatever the code between made of its error (an error wrapped
// into another kind, or read as a finding, would hide a bug behind a
// verdict).
func Recovered() *Error { return first.Load() }
