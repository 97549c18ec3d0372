package verify_test

import (
	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/verify"
)

func init() {
	verify.Gate.Branch, verify.Gate.BranchSpooled = gate.Branch, gate.BranchSpooled
}
