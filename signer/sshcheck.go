package signer

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/hiddeco/sshsig"
	"github.com/taskproof/taskproof/keys"
	"golang.org/x/crypto/ssh"
)

// ErrNotSSHSignature: the signature is not an armored SSHSIG, so
// [CheckSSHSignature] cannot tell anything of it.
var ErrNotSSHSignature = errors.New("not an armored SSH signature")

// CheckSSHSignature checks an armored SSHSIG over message with the public key
// it embeds, in the in-toto namespace, without any trust: whether the
// signature is intact, not whether its key is anyone's. It returns the keyid
// of that key (for a certificate, of the key it certifies). A signature that
// is no SSHSIG is [ErrNotSSHSignature]; one that does not verify names the
// embedded key's keyid with the error when it parses.
func CheckSSHSignature(message, armored []byte) (string, error) {
	trimmed := bytes.TrimSpace(armored)
	if !bytes.HasPrefix(trimmed, []byte("-----BEGIN "+sshsig.PEMType+"-----")) {
		return "", ErrNotSSHSignature
	}
	block, rest := pem.Decode(trimmed)
	if block == nil || block.Type != sshsig.PEMType || len(bytes.TrimSpace(rest)) != 0 {
		return "", errors.New("ssh signature: not one armored block")
	}
	sig, err := sshsig.ParseSignature(block.Bytes)
	if err != nil {
		return "", fmt.Errorf("ssh signature: %w", err)
	}
	keyID := sshKeyID(sig.PublicKey)
	if sig.Namespace != keys.SSHNamespace {
		return keyID, fmt.Errorf("ssh signature namespace %q, want %q", sig.Namespace, keys.SSHNamespace)
	}
	if sig.Signature.Format == ssh.KeyAlgoRSA || sig.Signature.Format == ssh.CertAlgoRSAv01 {
		return keyID, errors.New("ssh signature uses RSA with SHA-1")
	}
	if err := sshsig.Verify(bytes.NewReader(message), sig, sig.PublicKey, sig.HashAlgorithm, keys.SSHNamespace); err != nil {
		return keyID, fmt.Errorf("ssh signature by %s does not verify: %w", keyID, err)
	}
	return keyID, nil
}
