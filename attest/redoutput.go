package attest

import (
	"fmt"

	"github.com/taskproof/taskproof/testreport"
)

// checkRedOutput checks the red run's captured output a request gives
// (`--red-output`) against what it shows (docs/format.md#verdict-from-evidence):
// output in which the runner says the run passed is no red run — refused
// (an error matching ErrRequest) unless forced, then a warning; output that
// does not show a red run of the request's kind is a warning.
func checkRedOutput(req TickRequest) ([]string, error) {
	if req.Red == nil || req.Red.Output == nil {
		return nil, nil
	}
	name := req.RedOutputName
	if name == "" {
		name = "given"
	}
	ro := testreport.ReadRunOutput(req.Red.Output)
	switch {
	case ro.Outcome == testreport.OutcomePassed:
		what := fmt.Sprintf("the red output %s shows a passing run (%s): a red run is the tests failing before the change", name, where(ro))
		if !req.Force {
			return nil, &ContradictionError{What: what}
		}
		return []string{what + " (written anyway: forced)"}, nil
	case ro.Outcome == testreport.OutcomeUnknown:
		return []string{fmt.Sprintf("the red output %s shows no test run taskproof recognises (go test, pytest, jest, vitest, cargo test, Maven): its red kind %s is not confirmed", name, req.Red.Kind)}, nil
	case !ro.Confirms(req.Red.Kind):
		return []string{fmt.Sprintf("the red output %s does not show a red run of kind %s (%s): the kind is not confirmed", name, req.Red.Kind, where(ro))}, nil
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
