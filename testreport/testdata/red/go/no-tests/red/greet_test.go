package greet

import "testing"

func helloFor(t *testing.T, name string) string {
	t.Helper()
	return Hello(name)
}
