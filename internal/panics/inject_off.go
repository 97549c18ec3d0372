//go:build !taskproof_panic

package panics

// Inject marks a place where a test build panics on request; in every other
// build it does nothing and costs nothing. Test builds are made with the build
// tag taskproof_panic (inject_on.go).
func Inject(site string) {}
