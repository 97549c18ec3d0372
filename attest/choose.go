package attest

import (
	"fmt"
	"strings"
)

// SignerChoice is what the user asked for on the command line; empty fields
// fall back to git's configuration (see [ChooseSigner]).
type SignerChoice struct {
	// Kind is "ssh", "openpgp" or "raw"; "" follows gpg.format.
	Kind Kind
	// Key is a key file, public key, "key::…" literal or fingerprint (LoadSigner's
	// keyRef); "" follows user.signingKey.
	Key string
	// Passphrase decrypts an encrypted key (nil: none).
	Passphrase []byte
}

// ConfigFunc reads one git config value (gitref.Repo.ConfigValue's shape).
type ConfigFunc func(key string) (value string, ok bool, err error)

// ChooseSigner picks the signer as git would for a signed commit, with the
// choice's fields taking precedence (issue 4): the kind from Kind, else gpg.format
// ("ssh" → SSH; "openpgp" or unset → OpenPGP); the key from Key, else
// user.signingKey. gpg.ssh.defaultKeyCommand is never run. It returns a nil
// Signer and a non-empty reason when there is no key to sign with (the caller
// writes the statements unsigned and says why); an error when a key was named
// but cannot be used.
func ChooseSigner(choice SignerChoice, config ConfigFunc) (Signer, string, error) {
	kind, key := choice.Kind, choice.Key
	why := "" // how kind was chosen, when not by --signer
	if kind == "" {
		format, _, err := config("gpg.format")
		if err != nil {
			return nil, "", err
		}
		switch strings.ToLower(format) {
		case "ssh":
			kind, why = KindSSH, " (git's gpg.format)"
		case "":
			kind, why = KindOpenPGP, " (git's default: gpg.format is unset; --signer ssh for an SSH key)"
		case "openpgp":
			kind, why = KindOpenPGP, " (git's gpg.format)"
		default:
			return nil, fmt.Sprintf("gpg.format=%s is not a signer taskproof has (ssh, openpgp, raw); pass --signer and --key", format), nil
		}
	}
	switch kind {
	case KindSSH, KindOpenPGP, KindRaw:
	default:
		return nil, "", fmt.Errorf("unknown signer %q (want ssh, openpgp or raw)", kind)
	}
	if key == "" {
		v, ok, err := config("user.signingKey")
		if err != nil {
			return nil, "", err
		}
		if !ok || v == "" {
			return nil, fmt.Sprintf("no signing key: pass --key (or set git's user.signingKey) for the %s signer%s", kind, why), nil
		}
		if kind == KindOpenPGP && choice.Kind == "" && !looksLikePath(v) {
			return nil, fmt.Sprintf("user.signingKey %q names a key in gpg's keyring, which taskproof cannot use in-process; pass --signer openpgp --key FILE.asc (an exported armored secret key)", v), nil
		}
		key = v
	}
	s, err := LoadSigner(kind, key, choice.Passphrase)
	if err != nil {
		return nil, "", err
	}
	return s, "", nil
}

func looksLikePath(s string) bool {
	return strings.ContainsAny(s, "/\\") || strings.HasSuffix(s, ".asc") || strings.HasSuffix(s, ".gpg")
}
