package keys

import "bytes"

// Kind names a signer kind of docs/format.md#signatures-dsse-v1, as it
// appears in reports. Signers write it and verifiers judge by it, so it lives
// with the verification-side key code.
type Kind string

// Signer kinds (docs/format.md#signatures-dsse-v1, docs/format.md#note-lines).
const (
	KindSSH     Kind = "ssh"
	KindOpenPGP Kind = "openpgp"
	KindRaw     Kind = "raw"
	// KindSigstore is the kind of a Sigstore bundle's signature: a keyless
	// signature by a short-lived Fulcio certificate, logged in Rekor.
	KindSigstore Kind = "sigstore"
)

// SSHNamespace is the SSHSIG namespace of every taskproof SSH signature.
const SSHNamespace = "in-toto"

// SignatureKind tells a signature's kind from its bytes
// (docs/format.md#signatures-dsse-v1): armored SSHSIG text is ssh, an armored
// OpenPGP signature is openpgp, anything else raw. It says nothing about
// validity.
func SignatureKind(sig []byte) Kind {
	t := bytes.TrimLeft(sig, " \t\r\n")
	switch {
	case bytes.HasPrefix(t, []byte("-----BEGIN SSH SIGNATURE-----")):
		return KindSSH
	case bytes.HasPrefix(t, []byte("-----BEGIN PGP SIGNATURE-----")):
		return KindOpenPGP
	}
	return KindRaw
}
