package signer

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/taskproof/taskproof/internal/inputfile"
	"github.com/taskproof/taskproof/keys"
)

// sshSigner signs SSHSIG (namespace in-toto, sha512) with an in-process key.
type sshSigner struct {
	signer ssh.Signer
}

func (s *sshSigner) Kind() Kind    { return KindSSH }
func (s *sshSigner) KeyID() string { return keys.SSHKeyID(s.signer.PublicKey()) }
func (s *sshSigner) Sign(pae []byte) ([]byte, error) {
	return sshSign(s.signer, pae)
}

// sshSign returns the armored SSHSIG of message: namespace in-toto, hash
// sha512, RSA keys with rsa-sha2-512 (docs/format.md#signatures-dsse-v1).
func sshSign(signer ssh.Signer, message []byte) ([]byte, error) {
	sig, err := sshsig.Sign(bytes.NewReader(message), signer, sshsig.HashSHA512, keys.SSHNamespace)
	if err != nil {
		return nil, fmt.Errorf("ssh signing with %s: %w", keys.SSHKeyID(signer.PublicKey()), err)
	}
	return sshsig.Armor(sig), nil
}

// NewSSH returns a [KindSSH] signer for the private key in keyFile
// (OpenSSH "BEGIN OPENSSH PRIVATE KEY" format, or PEM PKCS#1/PKCS#8/SEC1).
// passphrase decrypts an encrypted key: nil with an encrypted key gives
// [ErrPassphraseRequired], a wrong one [ErrBadPassphrase]. The keyid is the key's
// "SHA256:<unpadded base64>" fingerprint.
func NewSSH(keyFile string, passphrase []byte) (Signer, error) {
	data, err := inputfile.Read(keyFile, MaxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading ssh signing key: %w", err)
	}
	return newSSHSignerFromBytes(data, keyFile, passphrase)
}

func newSSHSignerFromBytes(data []byte, name string, passphrase []byte) (Signer, error) {
	var (
		signer ssh.Signer
		err    error
	)
	if passphrase == nil {
		signer, err = ssh.ParsePrivateKey(data)
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("loading ssh signing key %s: %w", name, ErrPassphraseRequired)
		}
	} else {
		signer, err = ssh.ParsePrivateKeyWithPassphrase(data, passphrase)
		if err != nil && strings.Contains(err.Error(), "not password protected") {
			// A passphrase given for a plain key is not an error.
			signer, err = ssh.ParsePrivateKey(data)
		}
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, fmt.Errorf("loading ssh signing key %s: %w", name, ErrBadPassphrase)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("loading ssh signing key %s: %w", name, err)
	}
	return &sshSigner{signer: signer}, nil
}

// isSSHPublicKey reports whether data is an authorized-keys style public key line
// (what git's user.signingKey names when the private key lives in ssh-agent).
func isSSHPublicKey(data []byte) bool {
	_, _, _, _, err := ssh.ParseAuthorizedKey(data)
	return err == nil
}

// agentSigner signs through ssh-agent; it dials SSH_AUTH_SOCK for every
// signature so that no connection outlives a call.
type agentSigner struct {
	socket string
	pub    ssh.PublicKey
}

func (s *agentSigner) Kind() Kind    { return KindSSH }
func (s *agentSigner) KeyID() string { return keys.SSHKeyID(s.pub) }
func (s *agentSigner) Sign(pae []byte) ([]byte, error) {
	conn, signer, err := agentLookup(s.socket, func(k ssh.PublicKey) bool {
		return bytes.Equal(k.Marshal(), s.pub.Marshal())
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return sshSign(signer, pae)
}

// newSSHAgent returns a [KindSSH] signer whose key is held by the ssh-agent
// at $SSH_AUTH_SOCK. pubKeyOrFingerprint selects the key: a "SHA256:…"
// fingerprint, a "key::<type> <base64>" literal (git's user.signingKey form), an
// authorized-keys line, or the path of a public key file. It fails with an error
// matching [ErrAgent] when the agent is unreachable or lacks the key.
func newSSHAgent(pubKeyOrFingerprint string) (Signer, error) {
	socket := os.Getenv("SSH_AUTH_SOCK")
	if socket == "" {
		return nil, fmt.Errorf("%w: SSH_AUTH_SOCK is not set", ErrAgent)
	}
	var match func(ssh.PublicKey) bool
	ref := strings.TrimSpace(pubKeyOrFingerprint)
	if strings.HasPrefix(ref, "SHA256:") {
		match = func(k ssh.PublicKey) bool { return ssh.FingerprintSHA256(k) == ref }
	} else {
		data := []byte(strings.TrimPrefix(ref, "key::"))
		pub, _, _, _, err := ssh.ParseAuthorizedKey(data)
		if err != nil {
			file, ferr := inputfile.Read(ref, MaxKeyFile)
			if ferr != nil {
				return nil, fmt.Errorf("selecting ssh-agent key %q: not a fingerprint, public key or readable file: %w", ref, ferr)
			}
			if pub, _, _, _, err = ssh.ParseAuthorizedKey(file); err != nil {
				return nil, fmt.Errorf("selecting ssh-agent key: parsing public key file %s: %w", ref, err)
			}
		}
		want := pub.Marshal()
		match = func(k ssh.PublicKey) bool { return bytes.Equal(k.Marshal(), want) }
	}
	conn, signer, err := agentLookup(socket, match)
	if err != nil {
		return nil, err
	}
	conn.Close()
	return &agentSigner{socket: socket, pub: signer.PublicKey()}, nil
}

// agentLookup dials the agent at socket and returns the first signer whose
// public key satisfies match, with the open connection the signer uses.
func agentLookup(socket string, match func(ssh.PublicKey) bool) (net.Conn, ssh.Signer, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: connecting to %s: %v", ErrAgent, socket, err)
	}
	signers, err := agent.NewClient(conn).Signers()
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("%w: listing keys: %v", ErrAgent, err)
	}
	for _, s := range signers {
		if match(s.PublicKey()) {
			return conn, s, nil
		}
	}
	conn.Close()
	return nil, nil, fmt.Errorf("%w: the agent at %s does not hold the requested key", ErrAgent, socket)
}
