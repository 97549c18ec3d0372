package evidence_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/taskproof/taskproof/evidence"
)

func TestReadLimited(t *testing.T) {
	for _, tc := range []struct {
		size, limit int64
		over        bool
	}{{0, 4, false}, {4, 4, false}, {5, 4, true}, {1 << 20, 4, true}} {
		b, err := evidence.ReadLimited(io.LimitReader(zeros{}, tc.size), tc.limit)
		if tc.over {
			if !errors.Is(err, evidence.ErrInputLimit) {
				t.Errorf("%d bytes, limit %d: err %v, want ErrInputLimit", tc.size, tc.limit, err)
			}
			continue
		}
		if err != nil || !bytes.Equal(b, make([]byte, tc.size)) {
			t.Errorf("%d bytes, limit %d: %d bytes, err %v", tc.size, tc.limit, len(b), err)
		}
	}
	// An input that never ends is refused at the limit.
	if _, err := evidence.ReadLimited(zeros{}, 1<<10); !errors.Is(err, evidence.ErrInputLimit) {
		t.Errorf("endless input: err %v, want ErrInputLimit", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
