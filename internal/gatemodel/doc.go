// Package gatemodel holds, in its tests, the reference implementation of the
// merge gate's model (docs/format.md#the-gates-model) and the random
// histories the gate is compared with it on.
//
// The reference is slow and written to be checked by hand against the
// model's steps: it asks the git program for everything (rev-list --parents,
// ls-tree, cat-file, merge-base --is-ancestor, the notes), reads tasks files
// with the tasks-file reader (predicate/specfmt) and shares no other code
// with the gate. The differential test builds random histories with the real
// git (ticks, unticks, edits, code changes, side branches merged back, merges
// that discard a side, reverts, moved units, Kiro parents and sub-tasks,
// re-indented lines), attests random subsets of their ticks with a trusted
// and an untrusted key, and runs the real binary's gate on each: whenever the
// gate passes, the reference must find every tick head's lines come from
// evidenced; histories whose every tick is attested must pass both.
//
// `make test` runs a few hundred seeds; `make model` thousands
// (TASKPROOF_MODEL_SEEDS, TASKPROOF_MODEL_FIRST).
package gatemodel
