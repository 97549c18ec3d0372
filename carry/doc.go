// Package carry moves a tick's evidence to the commit that now holds its work
// (docs/format.md#after-a-rebase-or-squash): after a cherry-pick, a rebase, an
// amend or a squash merge, the statements stay on the original commit, which
// the branch no longer holds, and the gate looks for them on the new one.
//
//   - [Carry] re-issues on TO the task-verification statements FROM's note
//     holds, once TO is checked to be a rewrite of FROM and FROM's signatures
//     against the verifier's trust ([Request].CheckFrom), and removes them
//     from FROM's note only after TO's is written.
//   - [PairRanges] pairs the commits of a rebased range with their originals
//     by the tasks they tick, for one carry per pair ([Plan]); [ResolvePairs]
//     reads attest carry's FROM and TO (two revisions, or two ranges) into one.
//   - [Squash] carries the statements of a squashed range's tick commits onto
//     the squash commit, once its change is checked to be the range's.
//
// What is carried, and whether it may be, is this package's; building,
// signing and writing the re-issued statements is package attest's
// ([attest.Reissue]).
package carry
