package trust

import (
	"time"

	"github.com/taskproof/taskproof/noteline"
)

// MergeTrusted is the check a notes merge prefers one side's statements by
// (notemerge.MergeOptions.Trusted, docs/format.md#conflicting-statements-of-one-tick):
// whether a note line is a DSSE envelope every signature of which verifies
// against trust at at, as the gate would credit them. A Sigstore bundle line,
// or any other line, is not judged trusted here. Nil trust: nil (no trust).
func MergeTrusted(trust *Trust, at time.Time) func(line []byte) bool {
	if trust == nil || trust.empty() {
		return nil
	}
	return func(line []byte) bool {
		dl := noteline.Decode(line)
		if dl.Kind != noteline.KindEnvelope {
			return false
		}
		res, err := VerifySignatures(dl.Envelope, trust, at)
		return err == nil && res.Status == OK && len(res.Signers) > 0
	}
}
