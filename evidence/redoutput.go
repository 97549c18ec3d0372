package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/testreport"
)

// MaxRedOutput is the most bytes of a red run's captured output
// `attest tick --red-output` reads (docs/format.md#verdict-from-evidence):
// longer output, or output that does not end (/dev/zero), is refused.
const MaxRedOutput = 1 << 30

// RedOutputWindow is how much of the start and of the end of a captured
// output longer than twice it is read for its runner's words (and kept in
// memory); shorter output is read whole.
const RedOutputWindow = 4 << 20

// ErrRedOutputLimit is the error for a captured output over [MaxRedOutput].
var ErrRedOutputLimit = errors.New("over the limit of a red run's captured output")

// RedOutput is a red run's captured output read with bounded memory: the red
// run to write (its output's SHA-256 streamed, its Output the end the
// excerpt is cut from) and what the output shows of the run.
type RedOutput struct {
	Run   predicate.RedRun
	Shows testreport.RunOutput
	// Size is the output's length; Whole whether it was read whole for its
	// runner's words (else its first and last RedOutputWindow bytes).
	Size  int64
	Whole bool
}

// ReadRedOutput reads a red run's captured output of kind from r, hashing it
// as it streams. At most 3×RedOutputWindow bytes are held; an output over
// MaxRedOutput bytes is an error matching [ErrRedOutputLimit].
func ReadRedOutput(r io.Reader, kind predicate.RedKind) (*RedOutput, error) {
	h := sha256.New()
	head := make([]byte, 2*RedOutputWindow+1)
	n, err := io.ReadFull(r, head)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// Short enough to read whole, as a report or line by line.
		out := head[:n]
		h.Write(out)
		return &RedOutput{
			Run:   predicate.RedRun{Kind: kind, Output: out, OutputSHA256: hex.EncodeToString(h.Sum(nil))},
			Shows: testreport.ReadRunOutput(out), Size: int64(n), Whole: true,
		}, nil
	case err != nil:
		return nil, err
	}
	h.Write(head)
	size := int64(n)
	newlines := int64(bytes.Count(head, []byte{'\n'}))
	// tail holds the output's end: at least RedOutputWindow bytes once that
	// many follow the head's window, at most twice as many.
	tail := make([]byte, 0, 2*RedOutputWindow)
	tail = append(tail, head[RedOutputWindow:]...)
	head = head[:RedOutputWindow]
	buf := make([]byte, 64<<10)
	for {
		m, err := r.Read(buf)
		if m > 0 {
			size += int64(m)
			if size > MaxRedOutput {
				return nil, fmt.Errorf("%w: %d bytes read, the limit is %d (1 GiB)", ErrRedOutputLimit, size, int64(MaxRedOutput))
			}
			chunk := buf[:m]
			h.Write(chunk)
			newlines += int64(bytes.Count(chunk, []byte{'\n'}))
			for len(chunk) > 0 {
				if len(tail) == cap(tail) {
					keep := copy(tail, tail[len(tail)-RedOutputWindow:])
					tail = tail[:keep]
				}
				k := min(cap(tail)-len(tail), len(chunk))
				tail, chunk = append(tail, chunk[:k]...), chunk[k:]
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	tail = tail[len(tail)-RedOutputWindow:]
	// The runner's words are read from the head's whole lines, then the
	// tail's; a line number in the tail is counted over the whole output.
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	} else {
		head = append(head, '\n')
	}
	tailLines := tail
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tailLines = tail[i+1:]
	} else {
		tailLines = nil
	}
	headLines := bytes.Count(head, []byte{'\n'})
	skipped := int(newlines-int64(bytes.Count(tailLines, []byte{'\n'}))) - headLines
	shows := testreport.ReadRunOutput(append(head, tailLines...))
	if shows.Line > headLines {
		shows.Line += skipped
	}
	end := bytes.Clone(tail[len(tail)-predicate.MaxExcerpt:])
	return &RedOutput{
		Run:   predicate.RedRun{Kind: kind, Output: end, OutputSHA256: hex.EncodeToString(h.Sum(nil))},
		Shows: shows, Size: size,
	}, nil
}

// checkRedOutput checks the red run's captured output a request gives
// (`--red-output`) against what it shows (docs/format.md#verdict-from-evidence):
// output in which the runner says the run passed is no red run — refused
// (an error matching ErrRequest) unless forced, then a warning; output that
// does not show a red run of the request's kind is a warning.
func CheckRedOutput(req Request) ([]string, error) {
	if req.Red == nil || req.Red.Output == nil {
		return nil, nil
	}
	name := req.RedOutputName
	if name == "" {
		name = "given"
	}
	var ro testreport.RunOutput
	part := ""
	if req.RedShows != nil {
		ro = req.RedShows.Shows
		if !req.RedShows.Whole {
			part = fmt.Sprintf("; of its %d bytes the first and last %d MiB were read", req.RedShows.Size, RedOutputWindow>>20)
		}
	} else {
		ro = testreport.ReadRunOutput(req.Red.Output)
	}
	switch {
	case ro.Outcome == testreport.OutcomePassed:
		what := fmt.Sprintf("the red output %s shows a passing run (%s%s): a red run is the tests failing before the change", name, where(ro), part)
		if !req.Force {
			return nil, &ContradictionError{What: what}
		}
		return []string{what + " (written anyway: forced)"}, nil
	case ro.Outcome == testreport.OutcomeUnknown:
		return []string{fmt.Sprintf("the red output %s shows no test run taskproof recognises (go test, pytest, jest, vitest, cargo test, Maven%s): its red kind %s is not confirmed", name, part, req.Red.Kind)}, nil
	case !ro.Confirms(req.Red.Kind):
		return []string{fmt.Sprintf("the red output %s does not show a red run of kind %s (%s%s): the kind is not confirmed", name, req.Red.Kind, where(ro), part)}, nil
	}
	return nil, nil
}

// where is the output's deciding line: "line 12: ok  example.com/m".
func where(ro testreport.RunOutput) string {
	if ro.Line > 0 {
		return fmt.Sprintf("line %d: %s", ro.Line, ro.Text)
	}
	return ro.Text
}
