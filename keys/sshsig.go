package keys

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// ErrNotSSHSignature: the signature is not an armored SSHSIG, so
// [CheckSSHSignature] cannot tell anything of it.
var ErrNotSSHSignature = errors.New("not an armored SSH signature")

// SSHKeyID is the keyid of an SSH public key: its "SHA256:<unpadded base64>"
// fingerprint, for a certificate that of the key it certifies
// (docs/format.md#signatures-dsse-v1).
func SSHKeyID(pub ssh.PublicKey) string {
	if cert, ok := pub.(*ssh.Certificate); ok {
		pub = cert.Key
	}
	return ssh.FingerprintSHA256(pub)
}

// ParseSSHSignature parses text that must be exactly one armored SSHSIG, with
// no armor headers and nothing but whitespace around it.
func ParseSSHSignature(text []byte) (*sshsig.Signature, error) {
	block, rest := pem.Decode(text)
	if block == nil {
		return nil, errors.New("no armored block")
	}
	if block.Type != sshsig.PEMType {
		return nil, fmt.Errorf("armored block %q, want %q", block.Type, sshsig.PEMType)
	}
	if len(block.Headers) != 0 {
		return nil, errors.New("armor headers are not allowed")
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, errors.New("data after the armored block")
	}
	if !bytes.HasPrefix(bytes.TrimLeft(text, " \t\r\n"), []byte("-----BEGIN "+sshsig.PEMType+"-----")) {
		return nil, errors.New("data before the armored block")
	}
	return sshsig.ParseSignature(block.Bytes)
}

// VerifySSHSignature checks sig over message with the public key it embeds,
// without any trust: the namespace must be [SSHNamespace] (a git commit or
// file signature replayed as an attestation is a bad signature), RSA must not
// sign with SHA-1, and the signature must verify. Whose key it is, is the
// verifier's question.
func VerifySSHSignature(message []byte, sig *sshsig.Signature) error {
	if sig.Namespace != SSHNamespace {
		return fmt.Errorf("ssh signature namespace %q, want %q", sig.Namespace, SSHNamespace)
	}
	if sig.Signature.Format == ssh.KeyAlgoRSA || sig.Signature.Format == ssh.CertAlgoRSAv01 {
		return errors.New("ssh signature uses RSA with SHA-1")
	}
	if err := sshsig.Verify(bytes.NewReader(message), sig, sig.PublicKey, sig.HashAlgorithm, SSHNamespace); err != nil {
		return fmt.Errorf("ssh signature by %s does not verify: %w", SSHKeyID(sig.PublicKey), err)
	}
	return nil
}

// CheckSSHSignature checks an armored SSHSIG over message as
// [VerifySSHSignature] does, and returns the keyid of the key it embeds. A
// signature that is no SSHSIG is [ErrNotSSHSignature]; one that does not
// verify names that keyid with the error when it parses.
func CheckSSHSignature(message, armored []byte) (string, error) {
	if !bytes.HasPrefix(bytes.TrimLeft(armored, " \t\r\n"), []byte("-----BEGIN "+sshsig.PEMType+"-----")) {
		return "", ErrNotSSHSignature
	}
	sig, err := ParseSSHSignature(armored)
	if err != nil {
		return "", fmt.Errorf("ssh signature: %w", err)
	}
	keyID := SSHKeyID(sig.PublicKey)
	return keyID, VerifySSHSignature(message, sig)
}
