// Package signer holds taskproof's signing keys and signers
// (docs/format.md#signatures-dsse-v1). A [Signer] signs the DSSE
// pre-authentication encoding (PAE) of a payload in-process, never by running
// ssh-keygen (gpg only for a key that lives in gpg's keyring); [Sign] wraps a
// canonical Statement into a signed [dsse.Envelope].
//
// The kinds ([Kind]): SSH (a key file, [NewSSH], or a key in ssh-agent),
// OpenPGP (a secret key file, or a key in gpg's keyring signed through the gpg
// program), raw PEM keys ([NewRaw]) and keyless
// Sigstore ([NewSigstore], a [LineSigner] whose note line is a bundle;
// [FetchActionsIDToken] gets its identity token in GitHub Actions). [Load]
// builds one signer of a kind from a key reference; [Choose] picks the signers
// as `git commit -S` would from git's configuration
// (docs/format.md#signing-with-gits-configuration).
//
// Errors are sentinels for errors.Is: [ErrPassphraseRequired],
// [ErrBadPassphrase], [ErrUnsupportedKey], [ErrNoSigningKey], [ErrAgent],
// [ErrSigstore], [ErrNoSigner], [ErrChoice]. Verifying signatures against the
// verifier's trust lives in package verify; key kinds, the SSH namespace and
// raw public keys are package keys', which verifiers share.
package signer
