// Package verify checks taskproof attestations against the verifier's trust
// (package trust; docs/format.md#choices-where-the-brief-leaves-room, "Trust
// and policy come from outside what is verified"): the per-object checks
// (docs/format.md#verification-rules), the verifier's policy applied to
// their results, and the report the merge gate (package gate) and the
// objects mode conclude in (docs/format.md#gate-rules).
//
// Verification (object.go): [NewVerifier] builds a [Verifier] from a
// repository, its notes and a [trust.Trust] ([trust.LoadTrust]), with options
// ([WithPolicy] for a policy [policy.LoadSource] read, [WithTime]). Its Object,
// Objects and Explain, and the gate run with it, refuse trust or a policy
// read from what they verify ([FromVerifiedError], the rule trust's
// CheckNotFromRange states) unless [WithFromVerifiedUnsafe]. A [Report]
// holds a run's results (result.go), in memory or, for a long range, out of
// it (spool.go, its index in verify/internal/tickindex); [WriteJSON] writes
// it, package report the other formats, through its iterators (results.go).
package verify
