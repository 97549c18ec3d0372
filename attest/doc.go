// Package attest is taskproof's writer: the workflows that turn a tick into
// signed statements in a git note (docs/format.md#storage).
//
//   - [Tick] attests the tasks a commit ticks, [Decide] records a person's
//     attested or skipped decision, [Carry] and [PairCarries] re-issue
//     statements after a rebase or squash, [SignNote] signs unsigned
//     statements in place.
//   - The statements (docs/format.md#statements): the in-toto Statement
//     ([EncodeStatement], [DecodeStatement]) carrying the task-verification/v0
//     predicate, the test-result statements and the VSA naming them
//     ([TickStatements], [VSAPredicate]).
//   - Note ownership (docs/format.md#storage): which lines of a note are
//     taskproof's for a tick ([OwnedTypes], [LineStatement], [StatementKeys]),
//     replacing them ([MergeNote]) and merging two versions of a note
//     ([MergeNotes], [UnionLines] for the conflicts ref).
//   - [ShowNote] decodes a note for display, verifying nothing.
//
// Envelopes are package dsse's, note lines package noteline's, signers and
// keys package signer's; verification against the verifier's trust lives in
// package verify.
package attest
