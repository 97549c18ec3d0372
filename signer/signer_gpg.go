package signer

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// gpgSigner signs through the gpg program with a key of gpg's keyring, as git
// does for gpg.format=openpgp: `gpg --status-fd=2 --detach-sign --armor
// --local-user FINGERPRINT`, binary mode. The signature is the same armored detached
// binary signature in-process OpenPGP signing makes (docs/format.md#signatures-dsse-v1).
type gpgSigner struct {
	program string // the gpg program (gpg.program)
	user    string // the key as user.signingKey or --key names it
	fpr     string // its primary key's fingerprint, upper-case hex
	// keyIDs are the 64-bit key IDs of the primary key and its subkeys: a
	// signature gpg hands back must be by one of them.
	keyIDs map[uint64]bool
}

func (s *gpgSigner) Kind() Kind    { return KindOpenPGP }
func (s *gpgSigner) KeyID() string { return s.fpr }

func (s *gpgSigner) Sign(pae []byte) ([]byte, error) {
	// The fingerprint, not the name given: the signature must be by the key
	// whose fingerprint is the keyid (gpg picks its signing subkey).
	cmd := exec.Command(s.program, "--status-fd=2", "--no-textmode", "--detach-sign", "--armor", "--local-user", s.fpr)
	cmd.Stdin = bytes.NewReader(pae)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil || !strings.Contains(stderr.String(), "[GNUPG:] SIG_CREATED ") {
		return nil, fmt.Errorf("openpgp signing with %s through %s: %v: %s", s.user, s.program, err, gpgMessage(stderr.String()))
	}
	out := stdout.Bytes()
	if !bytes.HasPrefix(bytes.TrimSpace(out), []byte("-----BEGIN PGP SIGNATURE-----")) {
		return nil, fmt.Errorf("openpgp signing with %s through %s: no armored signature on its output", s.user, s.program)
	}
	if err := s.checkIssuer(out); err != nil {
		return nil, fmt.Errorf("openpgp signing with %s through %s: %w", s.user, s.program, err)
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out, nil
}

// checkIssuer refuses an armored signature that is not one signature packet
// by the key (its primary key or a subkey) whose fingerprint is the keyid: a
// gpg.program that signs with another key would otherwise be reported as the
// keyid's signature (docs/format.md#signing-with-gits-configuration).
func (s *gpgSigner) checkIssuer(armored []byte) error {
	block, err := armor.Decode(bytes.NewReader(armored))
	if err != nil {
		return fmt.Errorf("its signature is not armored OpenPGP: %v", err)
	}
	p, err := packet.Read(block.Body)
	if err != nil {
		return fmt.Errorf("its signature cannot be read: %v", err)
	}
	sig, ok := p.(*packet.Signature)
	switch {
	case !ok:
		return fmt.Errorf("its output is a %T, not a signature", p)
	case sig.IssuerKeyId == nil:
		return errors.New("its signature names no issuer key")
	case !s.keyIDs[*sig.IssuerKeyId]:
		return fmt.Errorf("%w: the signature is by key %016X, not by %s or one of its subkeys", ErrNoSigningKey, *sig.IssuerKeyId, s.fpr)
	}
	return nil
}

// newGPGProgram returns a [KindOpenPGP] signer for the key user (a key
// ID, fingerprint or user ID, as git's user.signingKey names it) held in the
// keyring of the gpg program ($GNUPGHOME). It fails when program is not
// installed or holds no secret key, or more than one, for user — with the
// commands that fix it ([ErrNoSigningKey]). The keyid is the primary key's
// fingerprint, as for in-process OpenPGP signing.
func newGPGProgram(program, user string) (Signer, error) {
	export := fmt.Sprintf("export it (gpg --export-secret-keys --armor %s > key.asc) and sign with key.asc as an OpenPGP key file", user)
	path, err := exec.LookPath(program)
	if err != nil {
		return nil, fmt.Errorf("%w: %q names a key in gpg's keyring, and the gpg program %q is not installed: install it, or %s", ErrNoSigningKey, user, program, export)
	}
	cmd := exec.Command(path, "--batch", "--with-colons", "--fixed-list-mode", "--list-secret-keys", "--", user)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: gpg has no secret key for %q (%s --list-secret-keys %s: %s): import it (gpg --import key.asc) or set user.signingKey to a key it holds", ErrNoSigningKey, user, program, user, gpgMessage(stderr.String()))
	}
	var fprs []string
	var keyIDs []map[uint64]bool // per primary key: its and its subkeys' key IDs
	inSec, inSub := false, false
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Split(line, ":")
		switch {
		case f[0] == "sec":
			inSec, inSub = true, false
		case f[0] == "ssb" || f[0] == "sub":
			inSec, inSub = false, len(keyIDs) > 0
		case f[0] == "fpr" && inSec && len(f) > 9:
			fprs = append(fprs, strings.ToUpper(f[9]))
			keyIDs = append(keyIDs, map[uint64]bool{})
			addKeyID(keyIDs[len(keyIDs)-1], f[9])
			inSec = false
		case f[0] == "fpr" && inSub && len(f) > 9:
			addKeyID(keyIDs[len(keyIDs)-1], f[9])
			inSub = false
		}
	}
	switch len(fprs) {
	case 0:
		return nil, fmt.Errorf("%w: gpg has no secret key for %q: import it (gpg --import key.asc) or set user.signingKey to a key it holds", ErrNoSigningKey, user)
	case 1:
	default:
		return nil, fmt.Errorf("%w: %q names %d secret keys in gpg's keyring (%s); name one by its fingerprint", ErrNoSigningKey, user, len(fprs), strings.Join(fprs, ", "))
	}
	return &gpgSigner{program: path, user: user, fpr: fprs[0], keyIDs: keyIDs[0]}, nil
}

// addKeyID adds the 64-bit key ID of hex fingerprint fpr to ids: its last 16
// hex digits for a v4 key (40 digits), its first 16 for a v5 or v6 key (64,
// RFC 9580).
func addKeyID(ids map[uint64]bool, fpr string) {
	var hex string
	switch len(fpr) {
	case 40:
		hex = fpr[24:]
	case 64:
		hex = fpr[:16]
	default:
		return
	}
	if id, err := strconv.ParseUint(hex, 16, 64); err == nil {
		ids[id] = true
	}
}

// gpgMessage keeps gpg's human-readable lines (not its status lines).
func gpgMessage(stderr string) string {
	var keep []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "[GNUPG:]") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "; ")
}
