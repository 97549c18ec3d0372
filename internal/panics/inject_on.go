//go:build taskproof_panic

package panics

import (
	"fmt"
	"os"
	"sync"
)

// Env is the environment variable a taskproof_panic build reads: Inject(site)
// panics where it names site.
const Env = "TASKPROOF_PANIC"

var injected = sync.OnceValue(func() string { return os.Getenv(Env) })

// Inject panics when the TASKPROOF_PANIC environment variable names site.
// Only in builds with the taskproof_panic tag, which the tests of the panic
// handling make: a released binary does not read the variable.
func Inject(site string) {
	if injected() == site {
		panic(fmt.Sprintf("injected panic at %s", site))
	}
}
