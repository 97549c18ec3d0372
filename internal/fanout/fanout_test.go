package fanout

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taskproof/taskproof/internal/panics"
)

func TestEachRunsEveryItem(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 64} {
		var seen [100]atomic.Int32
		if err := Each(len(seen), workers, func(i int) error { seen[i].Add(1); return nil }); err != nil {
			t.Fatalf("workers=%d: %v", workers, err)
		}
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("workers=%d: item %d ran %d times", workers, i, got)
			}
		}
	}
}

// The error is the lowest failing index's, also when a higher index fails
// first in time: item 7 fails only once item 90 has failed.
func TestEachLowestIndexError(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		highFailed := make(chan struct{})
		var closed atomic.Bool
		err := Each(100, workers, func(i int) error {
			switch {
			case i == 90:
				if closed.CompareAndSwap(false, true) {
					close(highFailed)
				}
				return errors.New("item 90")
			case i == 7 && workers > 1:
				// Waits until 90 failed: with one worker 90 is never reached.
				<-highFailed
				return errors.New("item 7")
			case i == 7:
				return errors.New("item 7")
			}
			return nil
		})
		if err == nil || err.Error() != "item 7" {
			t.Fatalf("workers=%d: err = %v, want item 7's", workers, err)
		}
	}
}

func TestEachSkipsPastFailure(t *testing.T) {
	var ran atomic.Int32
	err := Each(1000, 1, func(i int) error {
		ran.Add(1)
		if i == 3 {
			return fmt.Errorf("item %d", i)
		}
		return nil
	})
	if err == nil || ran.Load() != 4 {
		t.Fatalf("err = %v, %d items ran; want item 3's error after 4 items", err, ran.Load())
	}
	if err := Each(0, 4, func(int) error { return errors.New("never") }); err != nil {
		t.Fatal(err)
	}
}

// A worker's panic is the item's error, with the stack of where it panicked;
// the lowest failing index still wins, and every item below it has run.
func TestEachRecoversPanics(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		var ran [100]atomic.Bool
		err := Each(len(ran), workers, func(i int) error {
			ran[i].Store(true)
			switch i {
			case 40:
				var p *int
				_ = *p // a nil dereference
			case 60:
				return errors.New("item 60")
			}
			return nil
		})
		var pe *panics.Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Error(), "nil pointer dereference") {
			t.Fatalf("workers=%d: err = %v, want item 40's panic", workers, err)
		}
		if !strings.Contains(string(pe.Stack), "TestEachRecoversPanics") {
			t.Errorf("workers=%d: the stack does not show the panicking function:\n%s", workers, pe.Stack)
		}
		for i := range 40 {
			if !ran[i].Load() {
				t.Fatalf("workers=%d: item %d below the panic did not run", workers, i)
			}
		}
	}
}
