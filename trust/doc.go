// Package trust is the verifier's trust and the signature checks made against
// it (docs/format.md#choices-where-the-brief-leaves-room, "Trust and policy
// come from outside what is verified").
//
// Trust (trust*.go) is the verifier's, never the project's: git's allowed
// signers file ([ParseAllowedSigners]), an OpenPGP keyring ([ParseKeyring],
// its keys judged as gpg judges them in trust/internal/openpgpkeys) and raw
// PEM public keys ([ParseRawKey]), combined by [NewTrust]; Sigstore roots
// and certificate identities ([NewSigstoreTrust]). A [Trust] with no input is
// refused ([ErrNoTrust]): no trust never means a pass. [LoadTrust] reads the
// inputs a [Sources] names and refuses a trust file that the head being
// verified holds ([CheckOutsideWorkTree]); [LoadTrustUnsafe] does not. An
// input read from git (REV:PATH) must not come from the commits being
// verified either ([CheckNotFromRange], [CheckNotFromCommits]:
// [FromVerifiedError]).
//
// Signatures (signature*.go): [VerifySignatures] checks every signature of a
// DSSE envelope against a [Trust] at the verifier's clock and returns one
// result per signature plus the distinct trusted keys that verified; raw keys
// verify in every scheme rawverify.go reads. Sigstore bundles (sigstore*.go):
// [VerifyBundle] checks a keyless bundle against the Sigstore trust and a
// bundle signed with a key (sigstore_key.go) as an envelope signed by a
// trusted raw key, both with sigstore-go. An [Outcome] is the verdict on a
// signature, an envelope's signatures, or (in package verify) an object.
package trust
