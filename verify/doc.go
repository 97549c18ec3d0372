// Package verify checks taskproof attestations against the verifier's trust
// (package trust; docs/format.md#choices-where-the-brief-leaves-room, "Trust
// and policy come from outside what is verified") and reports per-object
// outcomes (docs/format.md#verification-rules) and merge-gate conclusions
// (docs/format.md#gate-rules).
//
// Verification (object.go, branch.go): [NewVerifier] builds a [Verifier] from
// a repository, its notes and a [trust.Trust] ([trust.LoadTrust]), with options
// ([WithPolicy] for a policy [LoadPolicy] read, [WithTime]). Its Object,
// Objects, Branch and Explain refuse trust or a policy read from what they
// verify ([FromVerifiedError]) unless [WithFromVerifiedUnsafe].
package verify
