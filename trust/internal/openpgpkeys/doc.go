// Package openpgpkeys judges the keys of the verifier's OpenPGP keyrings as
// gpg judges them (docs/format.md#openpgp-keys): which certificates a
// keyring holds, which of their self-signatures verify, and whether the key
// that made a data signature may sign at the verifier's time (not revoked,
// not expired, a signing key, a subkey with its back-signature).
// go-crypto reads the packets and checks each signature's mathematics; the
// rules here decide trust. Package trust reads keyrings through it and
// reports its refusals as trust errors.
package openpgpkeys
