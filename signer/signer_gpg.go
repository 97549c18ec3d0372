package signer

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// gpgSigner signs through the gpg program with a key of gpg's keyring, as git
// does for gpg.format=openpgp: `gpg --status-fd=2 --detach-sign --armor
// --local-user FINGERPRINT`, binary mode. The signature is the same armored detached
// binary signature in-process OpenPGP signing makes (docs/format.md#signatures-dsse-v1).
type gpgSigner struct {
	program string // the gpg program (gpg.program)
	user    string // the key as user.signingKey or --key names it
	fpr     string // its primary key's fingerprint, upper-case hex
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
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out, nil
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
	inSec := false
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Split(line, ":")
		switch {
		case f[0] == "sec":
			inSec = true
		case f[0] == "ssb" || f[0] == "sub":
			inSec = false
		case f[0] == "fpr" && inSec && len(f) > 9:
			fprs = append(fprs, strings.ToUpper(f[9]))
			inSec = false
		}
	}
	switch len(fprs) {
	case 0:
		return nil, fmt.Errorf("%w: gpg has no secret key for %q: import it (gpg --import key.asc) or set user.signingKey to a key it holds", ErrNoSigningKey, user)
	case 1:
	default:
		return nil, fmt.Errorf("%w: %q names %d secret keys in gpg's keyring (%s); name one by its fingerprint", ErrNoSigningKey, user, len(fprs), strings.Join(fprs, ", "))
	}
	return &gpgSigner{program: path, user: user, fpr: fprs[0]}, nil
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
