package verify_test

import (
	"path/filepath"
	"testing"

	"github.com/taskproof/taskproof/gate"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/verify"
)

// BenchmarkBranchPolicy is BenchmarkBranch with a policy (its target:
// docs/benchmarks.md): "default" is the
// embedded default policy, "example" testdata/policy/example.toml (every built-in
// rule, CEL rules, range rules). Compare the two sub-benchmarks' ns/op.
func BenchmarkBranchPolicy(b *testing.B) {
	g := newGateBench(b, benchUnits, benchTasks)
	example, err := policy.Load(filepath.Join(testenv.RepoRoot(b), "testdata", "policy", "example.toml"))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pol  *policy.Policy
	}{{"default", nil}, {"example", example}} {
		b.Run(tc.name, func(b *testing.B) {
			v := g.verifier(b)
			v.Policy = tc.pol
			for b.Loop() {
				rep, err := gate.Branch(v, gitref.Hash(g.h.Root), gitref.Hash(g.h.Head), verify.GateOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if len(rep.Ticks) != benchUnits*benchTasks {
					b.Fatalf("%d ticks, want %d", len(rep.Ticks), benchUnits*benchTasks)
				}
				if tc.pol != nil && len(rep.Policy) == 0 && len(rep.Ticks[0].Policy) == 0 {
					b.Fatal("the example policy produced no results")
				}
			}
		})
	}
}
