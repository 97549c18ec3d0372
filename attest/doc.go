// Package attest is taskproof's writer: the workflows that turn a tick into
// signed statements in a git note (docs/format.md#storage).
//
//   - [Tick] attests the tasks a commit ticks, [Decide] records a person's
//     attested or skipped decision, [Reissue] writes statements carried from
//     another commit (package carry decides what is carried), [SignNote]
//     signs unsigned statements in place.
//   - The statements of a tick (docs/format.md#statements): the
//     task-verification/v0 statement, the test-result statements and the VSA
//     naming them ([TickStatements], [VSAPredicate]).
//   - [ShowNote] decodes a note for display, verifying nothing.
//
// The Statement codec and which note lines belong to a tick are package
// statement's, the evidence test reports give package evidence's, writing
// lines into a note and merging notes package notemerge's, envelopes package dsse's, note lines package noteline's,
// signers package signer's; verification against the verifier's trust lives in
// package verify.
package attest
