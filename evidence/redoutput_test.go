package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/testreport"
)

// TestReadRedOutput: an output read as a stream gives the same
// output_sha256 and excerpt as the whole output, holds only its end, and
// names the deciding line by its number in the whole output.
func TestReadRedOutput(t *testing.T) {
	small := []byte("--- FAIL: TestBye (0.00s)\n    bye_test.go:7: want bye\nFAIL\nFAIL\texample.com/m\t0.002s\n")
	var big bytes.Buffer
	lines := 0
	for big.Len() < 3*RedOutputWindow {
		fmt.Fprintf(&big, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", lines, lines)
		lines += 2
	}
	big.WriteString("héllo ünïcode at the end\nok  \texample.com/m\t0.1s\n")
	for _, tc := range []struct {
		name    string
		out     []byte
		whole   bool
		outcome testreport.Outcome
		line    int
	}{
		{"short", small, true, testreport.OutcomeFailed, 1},
		{"long", big.Bytes(), false, testreport.OutcomePassed, lines + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro, err := ReadRedOutput(bytes.NewReader(tc.out), predicate.RedAssertion)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(tc.out)
			if ro.Run.OutputSHA256 != hex.EncodeToString(sum[:]) || ro.Size != int64(len(tc.out)) || ro.Whole != tc.whole {
				t.Errorf("sha %s size %d whole %v", ro.Run.OutputSHA256, ro.Size, ro.Whole)
			}
			got, _ := predicate.Excerpt(ro.Run.Output)
			want, _ := predicate.Excerpt(tc.out)
			if got != want {
				t.Errorf("excerpt %q, want %q", got, want)
			}
			if !tc.whole && len(ro.Run.Output) > predicate.MaxExcerpt {
				t.Errorf("holds %d bytes of the output", len(ro.Run.Output))
			}
			if ro.Shows.Outcome != tc.outcome || ro.Shows.Line != tc.line {
				t.Errorf("shows %+v, want %s at line %d", ro.Shows, tc.outcome, tc.line)
			}
		})
	}
}

// TestReadRedOutputLimit: an output that does not end is refused at the
// limit, not read on.
func TestReadRedOutputLimit(t *testing.T) {
	_, err := ReadRedOutput(io.LimitReader(zeros{}, MaxRedOutput+1), predicate.RedAssertion)
	if !errors.Is(err, ErrRedOutputLimit) || !strings.Contains(err.Error(), "1 GiB") {
		t.Fatalf("err = %v, want ErrRedOutputLimit", err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}
