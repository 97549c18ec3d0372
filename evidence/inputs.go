package evidence

import (
	"io"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/inputfile"
)

// MaxTestReport is the most bytes of one test report read for a tick
// (--test-report): a JUnit XML or `go test -json` file is parsed whole, so
// its size bounds the memory a tick costs. The largest real reports seen are
// tens of MiB.
const MaxTestReport = 256 << 20

// MaxEvidenceFile is the most bytes of an evidence file (--evidence): its
// members go into the statement, whose payload is at most
// [dsse.MaxPayloadSize], so a larger file could never be written.
const MaxEvidenceFile = dsse.MaxPayloadSize

// ErrInputLimit is the error for an input file over its size limit.
var ErrInputLimit = inputfile.ErrLimit

// ReadLimited reads r whole, up to limit bytes; more is an error matching
// [ErrInputLimit] that names the limit, read no further than one byte past it
// (so a file that never ends, such as /dev/zero, costs limit bytes, not
// forever).
func ReadLimited(r io.Reader, limit int64) ([]byte, error) { return inputfile.ReadLimited(r, limit) }
