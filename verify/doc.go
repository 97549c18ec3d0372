// Package verify checks taskproof attestations against the verifier's trust
// (docs/format.md#choices-where-the-brief-leaves-room, "Trust and policy come
// from outside what is verified") and reports per-object outcomes
// (docs/format.md#verification-rules) and merge-gate conclusions
// (docs/format.md#gate-rules).
//
// Trust (trust*.go) is the verifier's, never the project's: git's allowed
// signers file ([ParseAllowedSigners]), an OpenPGP keyring ([ParseKeyring]) and
// raw PEM public keys ([ParseRawKey]), combined by [NewTrust]. A [Trust] with no
// input is refused ([ErrNoTrust]): no trust never means a pass.
//
// Signatures (signature*.go): [VerifySignatures] checks every signature of a
// DSSE envelope against a [Trust] at the verifier's clock and returns one
// result per signature plus the distinct trusted keys that verified; raw keys
// verify in every scheme rawverify.go reads. Sigstore bundles (sigstore*.go):
// [VerifyBundle] checks a keyless bundle against the Sigstore trust and a
// bundle signed with a key (sigstore_key.go) as an envelope signed by a
// trusted raw key, both with sigstore-go.
//
// Verification (object.go, branch.go): [NewVerifier] builds a [Verifier] from
// a repository, its notes and a [Trust] ([LoadTrust]), with options
// ([WithPolicy] for a policy [LoadPolicy] read, [WithTime]). Its Object,
// Objects, Branch and Explain refuse trust or a policy read from what they
// verify ([FromVerifiedError]) unless [WithFromVerifiedUnsafe].
package verify
