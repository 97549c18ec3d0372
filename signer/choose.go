package signer

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/inputfile"
	"github.com/taskproof/taskproof/internal/userpath"
	"github.com/taskproof/taskproof/keys"
)

// ErrNoSigner: no signing key was given or configured, and unsigned statements
// were not asked for. The CLI maps it to exit code 3.
var ErrNoSigner = errors.New("no signing key")

// ErrChoice is matched by the errors of a [Choice] that contradicts itself:
// Unsigned with a kind or keys, an unknown kind, one key given twice, more keys
// than an envelope holds signatures (docs/format.md#limits). The CLI maps it
// to a usage error (exit code 2).
var ErrChoice = errors.New("invalid signer choice")

// Choice is what the user asked for on the command line; empty fields
// fall back to git's configuration (see [Choose]).
type Choice struct {
	// Kind is "ssh", "openpgp" or "raw"; "" follows gpg.format for a key from
	// git's configuration and the key file's content for a key in Keys.
	Kind Kind
	// Keys are key files, public keys, "key::…" literals, fingerprints or gpg
	// key IDs, one signer each; none follows user.signingKey.
	Keys []string
	// Passphrase decrypts encrypted keys (nil: none).
	Passphrase []byte
	// Unsigned asks for no signer at all; it excludes Kind and Keys.
	Unsigned bool
	// RSAScheme is the signature scheme of raw RSA keys ("" is [RSAPSS]);
	// given, at least one key must be a raw RSA key.
	RSAScheme RSAScheme
}

// GitConfig is the part of git's configuration the signer choice reads;
// the snapshot gitref.Repo.Config reads has this shape.
type GitConfig interface {
	Get(key string) (value string, ok bool)
	Path(key string) (path string, ok bool, err error)
}

// Choose picks the signers as git would for `git commit -S`
// (docs/format.md#signing-with-gits-configuration), the choice's fields taking
// precedence:
//   - the keys from Keys, else user.signingKey;
//   - for a configured key, the kind from Kind, else gpg.format ("ssh" → SSH,
//     "openpgp" or unset → OpenPGP, "x509" refused); for a key in Keys, the
//     kind from Kind, else from the key file's content (detectKeyKind), a
//     value that is no file being a gpg key ID;
//   - an SSH key path has "~" expanded; a public key signs through ssh-agent
//     when the agent holds it, else with the private key beside it (the path
//     without ".pub"), as ssh-keygen -Y sign does;
//   - an OpenPGP key that is no file names a key in gpg's keyring and signs
//     through the gpg program (gpg.openpgp.program, gpg.program, else "gpg").
//
// gpg.ssh.defaultKeyCommand is never run. It returns no signers only for
// Unsigned; no key anywhere is [ErrNoSigner], a key that cannot be used an
// error naming it and what to do, two keys with one keyid an error matching
// [ErrChoice].
func Choose(choice Choice, config GitConfig) ([]Signer, error) {
	if choice.Unsigned {
		if choice.Kind != "" || len(choice.Keys) > 0 {
			return nil, fmt.Errorf("%w: unsigned statements take no signer or key", ErrChoice)
		}
		return nil, nil
	}
	switch choice.Kind {
	case "", KindSSH, KindOpenPGP, KindRaw:
	default:
		return nil, fmt.Errorf("%w: unknown signer %q (want ssh, openpgp or raw)", ErrChoice, choice.Kind)
	}
	var signers []Signer
	if len(choice.Keys) == 0 {
		s, err := configuredSigner(choice, config)
		if err != nil {
			return nil, err
		}
		signers = append(signers, s)
	}
	for _, ref := range choice.Keys {
		s, err := givenSigner(choice, ref, config)
		if err != nil {
			return nil, err
		}
		signers = append(signers, s)
	}
	if choice.RSAScheme != "" {
		if err := applyRSAScheme(signers, choice.RSAScheme); err != nil {
			return nil, err
		}
	}
	// Two signatures with one keyid would be one key signing twice (and
	// go-securesystemslib's verifier stumbles on shared keyids): refuse.
	if len(choice.Keys) > 1 {
		seen := map[string]string{}
		for i, s := range signers {
			id := strings.ToLower(s.KeyID())
			if prev, dup := seen[id]; dup {
				return nil, fmt.Errorf("%w: keys %s and %s are the same key (keyid %s); an envelope holds one signature per key", ErrChoice, prev, choice.Keys[i], s.KeyID())
			}
			seen[id] = choice.Keys[i]
		}
	}
	if len(signers) > dsse.MaxSignatures {
		return nil, fmt.Errorf("%w: %w: %d keys (limit %d)", ErrChoice, ErrTooManySignatures, len(signers), dsse.MaxSignatures)
	}
	return signers, nil
}

// applyRSAScheme makes every raw RSA signer of signers sign in scheme; a
// scheme that no signer can use is a contradiction ([ErrChoice]), not a
// silently ignored flag.
func applyRSAScheme(signers []Signer, scheme RSAScheme) error {
	applied := false
	for i, s := range signers {
		rs, err := WithRSAScheme(s, scheme)
		switch {
		case errors.Is(err, ErrNotRSA):
			continue
		case err != nil:
			return fmt.Errorf("%w: %w", ErrChoice, err)
		}
		signers[i], applied = rs, true
	}
	if !applied {
		return fmt.Errorf("%w: an RSA signature scheme (%s) was given but no key is a raw RSA key", ErrChoice, scheme)
	}
	return nil
}

// noKeyHelp says how to configure a key, for [ErrNoSigner].
const noKeyHelp = "configure one as for `git commit -S` (git config gpg.format ssh; git config user.signingKey ~/.ssh/id_ed25519.pub), give a key file, or write unsigned statements and sign them later with `taskproof attest sign`"

// configuredSigner is the signer of user.signingKey, of gpg.format's kind
// unless choice.Kind says otherwise.
func configuredSigner(choice Choice, config GitConfig) (Signer, error) {
	kind, why := choice.Kind, ""
	if kind == "" {
		format, _ := config.Get("gpg.format")
		if l := strings.ToLower(format); l != format && (l == "ssh" || l == "openpgp" || l == "x509") {
			return nil, fmt.Errorf("%w: gpg.format=%s: git reads only %s, in lower case (git commit -S fails with \"bad config variable 'gpg.format'\"); git config gpg.format %s", ErrUnsupportedKey, format, l, l)
		}
		switch format {
		case "ssh":
			kind, why = KindSSH, " (git's gpg.format)"
		case "":
			kind, why = KindOpenPGP, " (git's default: gpg.format is unset)"
		case "openpgp":
			kind, why = KindOpenPGP, " (git's gpg.format)"
		default:
			return nil, fmt.Errorf("%w: gpg.format=%s is not a signer taskproof has (ssh, openpgp); choose the signer kind and its key", ErrUnsupportedKey, format)
		}
	}
	v, ok := config.Get("user.signingKey")
	if !ok || strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("%w for the %s signer%s: git's user.signingKey is not set; %s", ErrNoSigner, kind, why, noKeyHelp)
	}
	switch kind {
	case KindSSH:
		if isSSHLiteral(v) {
			return loadSSH(v, "user.signingKey", choice.Passphrase)
		}
		p, _, err := config.Path("user.signingKey")
		if err != nil {
			return nil, err
		}
		return loadSSH(p, "user.signingKey", choice.Passphrase)
	case KindOpenPGP:
		if why != "" && looksLikeSSHKey(v, config) {
			format, _ := config.Get("gpg.format")
			if format == "" {
				format = "unset, so git signs with OpenPGP"
			} else {
				format = "=" + format
			}
			return nil, fmt.Errorf("%w: user.signingKey %s is an SSH key, but gpg.format is %s (git commit -S would hand the key to gpg too): git config gpg.format ssh", ErrNoSigningKey, v, format)
		}
		if looksLikePath(v) {
			// A secret key file (git itself would hand this to gpg -u and
			// fail; taskproof reads the file).
			p, _, err := config.Path("user.signingKey")
			if err != nil {
				return nil, err
			}
			return loadOpenPGPFile(p, choice.Passphrase)
		}
		return newGPGProgram(gpgProgram(config), v)
	default:
		p, _, err := config.Path("user.signingKey")
		if err != nil {
			return nil, err
		}
		return Load(kind, p, choice.Passphrase)
	}
}

// looksLikeSSHKey reports whether user.signingKey value v is an SSH key: a
// literal ("key::ssh-ed25519 …", "ssh-ed25519 …") or a file whose content is
// an SSH public or private key.
func looksLikeSSHKey(v string, config GitConfig) bool {
	if isSSHLiteral(v) {
		return true
	}
	if !looksLikePath(v) {
		return false
	}
	p, _, err := config.Path("user.signingKey")
	if err != nil {
		return false
	}
	data, err := inputfile.Read(p, MaxKeyFile)
	if err != nil {
		return false
	}
	kind, err := detectKeyKind(data)
	return err == nil && kind == KindSSH
}

// givenSigner is the signer of one --key value.
func givenSigner(choice Choice, ref string, config GitConfig) (Signer, error) {
	kind := choice.Kind
	if isSSHLiteral(ref) && (kind == "" || kind == KindSSH) {
		return loadSSH(ref, "key file", choice.Passphrase)
	}
	path, err := userpath.Expand(ref)
	if err != nil {
		return nil, fmt.Errorf("loading signing key %s: %w", ref, err)
	}
	data, readErr := inputfile.Read(path, MaxKeyFile)
	if readErr != nil {
		if errors.Is(readErr, os.ErrNotExist) && (kind == "" || kind == KindOpenPGP) && !looksLikePath(ref) {
			// Not a file: a key ID, fingerprint or user ID in gpg's keyring,
			// as git's user.signingKey names OpenPGP keys.
			return newGPGProgram(gpgProgram(config), ref)
		}
		return nil, fmt.Errorf("loading signing key: %w", readErr)
	}
	if kind == "" {
		if kind, err = detectKeyKind(data); err != nil {
			return nil, fmt.Errorf("key %s: %w", ref, err)
		}
	}
	switch kind {
	case KindSSH:
		return loadSSH(path, "key file", choice.Passphrase)
	case KindOpenPGP:
		return loadOpenPGPFile(path, choice.Passphrase)
	default:
		return Load(kind, path, choice.Passphrase)
	}
}

// detectKeyKind names the signer kind of a key file from its content: an
// OpenSSH private key or an SSH public key (authorized-keys line) → SSH; a PEM
// private key (PKCS#8, PKCS#1, SEC1) → raw; an armored or binary OpenPGP secret
// key → OpenPGP. Public keys other than SSH ones cannot sign and, like
// anything else, give an error matching [ErrNoSigningKey].
func detectKeyKind(data []byte) (Kind, error) {
	trimmed := bytes.TrimSpace(data)
	switch {
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN OPENSSH PRIVATE KEY-----")):
		return KindSSH, nil
	case isSSHPublicKey(trimmed):
		return KindSSH, nil
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN PGP PRIVATE KEY BLOCK-----")):
		return KindOpenPGP, nil
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN PGP PUBLIC KEY BLOCK-----")):
		return "", fmt.Errorf("%w: an OpenPGP public key cannot sign (export the secret key: gpg --export-secret-keys --armor KEYID)", ErrNoSigningKey)
	}
	if block, _ := pem.Decode(trimmed); block != nil {
		switch block.Type {
		case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY":
			return KindRaw, nil
		case "ENCRYPTED PRIVATE KEY":
			return "", fmt.Errorf("%w: encrypted PKCS#8 keys are not read; decrypt it (openssl pkcs8 -in KEY -out PLAIN.pem)", ErrUnsupportedKey)
		}
		return "", fmt.Errorf("%w: a PEM %q block is not a private key", ErrNoSigningKey, block.Type)
	}
	if len(data) > 0 && data[0]&0x80 != 0 {
		tag := (data[0] >> 2) & 0x0f // old packet format
		if data[0]&0x40 != 0 {
			tag = data[0] & 0x3f // new packet format
		}
		switch tag {
		case 5: // secret-key packet
			return KindOpenPGP, nil
		case 6:
			return "", fmt.Errorf("%w: a binary OpenPGP public key cannot sign (export the secret key: gpg --export-secret-keys KEYID)", ErrNoSigningKey)
		}
	}
	return "", fmt.Errorf("%w: not a key taskproof recognises (an OpenSSH private key, an SSH public key, a PEM private key or an OpenPGP secret key)", ErrNoSigningKey)
}

// isSSHLiteral reports whether v names an SSH key without a file: git's
// "key::<public key>" form (and its older bare "ssh-…" form) or a "SHA256:"
// fingerprint.
func isSSHLiteral(v string) bool {
	return strings.HasPrefix(v, "key::") || strings.HasPrefix(v, "ssh-") || strings.HasPrefix(v, "SHA256:")
}

// loadSSH builds an SSH signer from ref (a literal, a public key file or a
// private key file, already "~"-expanded). A public key signs through
// ssh-agent when the agent holds it, else with the private key file beside it.
func loadSSH(ref, from string, passphrase []byte) (Signer, error) {
	if isSSHLiteral(ref) {
		s, err := newSSHAgent(strings.TrimPrefix(ref, "key::"))
		if err != nil {
			return nil, fmt.Errorf("%s %q is a public key, so its private key must be in ssh-agent: %w (start ssh-agent and ssh-add the key, or name the private key file)", from, ref, err)
		}
		return s, nil
	}
	data, err := inputfile.Read(ref, MaxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading ssh signing key (%s): %w", from, err)
	}
	if !isSSHPublicKey(data) {
		return newSSHSignerFromBytes(data, ref, passphrase)
	}
	pub, _, _, _, _ := ssh.ParseAuthorizedKey(data)
	if err := certWindow(ref, pub, time.Now()); err != nil {
		return nil, err
	}
	agentSigner, agentErr := newSSHAgent(ref)
	if agentErr == nil {
		return agentSigner, nil
	}
	private, ok := privateKeyPath(ref)
	if !ok {
		return nil, fmt.Errorf("%s %s is a public key and %w; there is no private key beside it (the path without .pub or -cert.pub): ssh-add the key or name the private key file", from, ref, agentErr)
	}
	privData, err := inputfile.Read(private, MaxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("%s %s is a public key and %w; the private key beside it cannot be read: %v", from, ref, agentErr, err)
	}
	s, err := newSSHSignerFromBytes(privData, private, passphrase)
	if err != nil {
		return nil, err
	}
	if want := keys.SSHKeyID(pub); s.KeyID() != want {
		return nil, fmt.Errorf("%w: %s is not the private key of %s (%s)", ErrNoSigningKey, private, ref, want)
	}
	cert, ok := pub.(*ssh.Certificate)
	if !ok {
		return s, nil
	}
	// As ssh-keygen -Y sign does, the certificate is grafted onto the private
	// key: the signature carries the certificate, which a cert-authority
	// entry of allowed signers accepts.
	certSigner, err := ssh.NewCertSigner(cert, s.(*sshSigner).signer)
	if err != nil {
		return nil, fmt.Errorf("%w: %s cannot sign with the certificate %s: %v", ErrNoSigningKey, private, ref, err)
	}
	return &sshSigner{signer: certSigner}, nil
}

// privateKeyPath is the private key file beside the public key or
// certificate file ref, as ssh-keygen -Y sign finds it: ref without
// "-cert.pub", else without ".pub".
func privateKeyPath(ref string) (string, bool) {
	for _, suffix := range []string{"-cert.pub", ".pub"} {
		if p, ok := strings.CutSuffix(ref, suffix); ok && p != "" {
			return p, true
		}
	}
	return "", false
}

// certWindow refuses to sign with an SSH certificate outside its validity
// window at now: every verifier would judge such a signature
// untrusted_signer. A key that is no certificate passes.
func certWindow(ref string, pub ssh.PublicKey, now time.Time) error {
	cert, ok := pub.(*ssh.Certificate)
	if !ok {
		return nil
	}
	unix := now.Unix()
	if unix < 0 {
		unix = 0
	}
	stamp := func(t uint64) string {
		if t > math.MaxInt64 {
			return "forever"
		}
		return time.Unix(int64(t), 0).UTC().Format(time.RFC3339)
	}
	switch {
	case uint64(unix) < cert.ValidAfter:
		return fmt.Errorf("%w: the certificate %s is not valid before %s", ErrNoSigningKey, ref, stamp(cert.ValidAfter))
	case uint64(unix) >= cert.ValidBefore:
		return fmt.Errorf("%w: the certificate %s expired at %s", ErrNoSigningKey, ref, stamp(cert.ValidBefore))
	}
	return nil
}

// loadOpenPGPFile reads an armored or binary OpenPGP secret key file.
func loadOpenPGPFile(path string, passphrase []byte) (Signer, error) {
	data, err := inputfile.Read(path, MaxKeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading openpgp signing key: %w", err)
	}
	return newOpenPGP(data, passphrase)
}

// gpgProgram is the program git signs OpenPGP with: gpg.openpgp.program, else
// gpg.program, else "gpg".
func gpgProgram(config GitConfig) string {
	for _, k := range []string{"gpg.openpgp.program", "gpg.program"} {
		if v, ok := config.Get(k); ok && v != "" {
			if p, _, err := config.Path(k); err == nil {
				return p
			}
			return v
		}
	}
	return "gpg"
}

func looksLikePath(s string) bool {
	return strings.ContainsAny(s, "/\\") || strings.HasPrefix(s, "~") || strings.HasSuffix(s, ".asc") ||
		strings.HasSuffix(s, ".gpg") || strings.HasSuffix(s, ".pub") || strings.HasSuffix(s, ".pem") || strings.HasSuffix(s, ".key")
}
