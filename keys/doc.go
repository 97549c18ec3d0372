// Package keys is the verification side of taskproof's keys
// (docs/format.md#signatures-dsse-v1): the signer kinds ([Kind]) and how a
// signature's kind is told from its bytes ([SignatureKind]), the SSH signature
// namespace ([SSHNamespace]) and the check of an SSH signature with the key
// it embeds ([CheckSSHSignature], [VerifySSHSignature]), and raw PEM public
// keys: parsing them ([ParseRawSignerVerifier]) and the keyids that name them
// ([RawKeyID], [SSLibKeyID], [RawKeyHints]).
//
// Verifiers and signers both need these; keeping them here lets a verifier
// read keys without importing package signer and the signing clients
// (Sigstore's Fulcio and OIDC) it brings.
package keys
