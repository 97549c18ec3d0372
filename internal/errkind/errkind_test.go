package errkind

import (
	"errors"
	"fmt"
	"testing"
)

func TestNew(t *testing.T) {
	kind, other := errors.New("kind"), errors.New("other")
	err := fmt.Errorf("wrapped: %w", New(kind, "--base goes with --branch"))
	if !errors.Is(err, kind) || errors.Is(err, other) {
		t.Errorf("errors.Is: kind %v, other %v", errors.Is(err, kind), errors.Is(err, other))
	}
	if got := err.Error(); got != "wrapped: --base goes with --branch" {
		t.Errorf("message %q", got)
	}
}
