package gate

import "github.com/taskproof/taskproof/verify"

// verifier is the Verifier a run of the gate checks objects with: the gate's
// stages are its methods.
type verifier struct {
	*verify.Verifier
}
