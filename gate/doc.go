// Package gate is the merge gate: over a range base..head, every task head
// holds checked must rest on a tick the range's evidence vouches for, or on
// one the base still holds (docs/format.md#the-gates-model,
// docs/format.md#gate-rules).
//
// [Branch] and [BranchSpooled] run it with a [verify.Verifier], which checks
// each tick commit's note (the per-object checks) and applies the verifier's
// policy; [Verify] and [VerifySpooled] take a [verify.Verified] target, a
// range or a list of objects. The result is a [verify.Report], which package
// report and verify.WriteJSON write. [ResolveTargets] reads verify's
// arguments into that target; [DefaultBase] chooses the base a branch is
// verified against when none is named.
//
// The gate's code is staged by the model's steps, and its comments cite a
// step by name ("model: Origins"): the tick walk indexed by lineage (Range,
// Lineage: branch.go, gatestream.go, walkspool.go), head's lines traced to
// their origins and the base's hold on them (Origins, Requirements:
// model.go, statecheck.go), each origin judged by its commit's note
// (Evidence: branch.go, with the hints of carryhint.go and squash.go and the
// bug tasks of bugs.go), and the conclusion (Verdict: concludeBranch). The
// slow reference implementation of the model in internal/gatemodel's tests
// is compared with it on random histories.
package gate
