package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/armor"
)

// TestGitConfigTrustOnlyWithoutFlags: git's gpg.ssh.allowedSignersFile is
// the verifier's trust only when no trust flag names any: a gate given a
// keyring alone does not also credit the SSH signers a git configuration
// lists, and the file is still read when nothing else is given, or named
// with --allowed-signers.
func TestGitConfigTrustOnlyWithoutFlags(t *testing.T) {
	r := newVFRepo(t)
	outside := filepath.Join(t.TempDir(), "configured_signers")
	vfWrite(t, outside, mustRead(t, r.allowed))
	r.git(t, "config", "gpg.ssh.allowedSignersFile", outside)
	h := newGPGHome(t)
	h.genKey(time.Now().Add(-time.Hour))
	other := filepath.Join(t.TempDir(), "other.asc")
	vfWrite(t, other, string(h.gpg(time.Now(), "", "--armor", "--export")))

	out, errOut := r.run(t, 1, "verify", r.t2, "--keyring", other)
	if !strings.Contains(out, "untrusted_signer") || strings.Contains(errOut, "gpg.ssh.allowedSignersFile") {
		t.Errorf("--keyring alone credits the configured SSH signers:\n%s%s", out, errOut)
	}
	out, errOut = r.run(t, 0, "verify", r.t2)
	if !strings.Contains(errOut, "(gpg.ssh.allowedSignersFile)") || !strings.Contains(out, "conclusion: success") {
		t.Errorf("no trust flag: the configured file is not the trust:\n%s%s", out, errOut)
	}
	r.run(t, 0, "verify", r.t2, "--keyring", other, "--allowed-signers", outside)
}

// TestDeciderOpenPGPAddress: a decider is the address an OpenPGP user id
// names as gpg reads it: "alice@example.com" made by `gpg --quick-gen-key
// alice@example.com` is that address, as "Alice <alice@example.com>" is; a
// user id holding two addresses names no one, and the refusal says so.
func TestDeciderOpenPGPAddress(t *testing.T) {
	for _, c := range []struct {
		uid  string
		exit int
		want string
	}{
		{"alice@example.com", 0, "conclusion: success"},
		{"Alice <alice@example.com>", 0, "conclusion: success"},
		{"Mallory <m@example.org> <alice@example.com>", 1, `which names no single address`},
		{"alice@example.com (work)", 1, `openpgp user id "alice@example.com (work)", which names no single address`},
	} {
		t.Run(c.uid, func(t *testing.T) {
			r := newVFRepo(t)
			h := newGPGHome(t)
			now := time.Now().Add(-time.Hour)
			h.gpg(now, "", "--quick-gen-key", c.uid, "ed25519", "sign", "never")
			secret := filepath.Join(t.TempDir(), "secret.asc")
			vfWrite(t, secret, string(h.gpg(now, "", "--armor", "--export-secret-keys")))
			keyring := filepath.Join(t.TempDir(), "keyring.asc")
			vfWrite(t, keyring, string(h.gpg(now, "", "--armor", "--export")))
			policy := policyFile(t, "[attested]\ndeciders = [\"alice@example.com\"]\n")
			r.tick(t, "T004")
			r.run(t, 0, "attest", "decide", "--task", "T004", "--verdict", "attested", "--by", "alice@example.com", "--reason", "checked by hand", "--key", secret)
			out, _ := r.run(t, c.exit, "verify", "HEAD", "--keyring", keyring, "--policy", policy)
			if !strings.Contains(out, c.want) {
				t.Errorf("want %q in\n%s", c.want, out)
			}
			if c.exit != 0 && strings.Contains(out, `did not sign the decision (signed by "alice@example.com")`) {
				t.Errorf("the refusal contradicts itself:\n%s", out)
			}
		})
	}
}

// TestOpenPGPRevocationCertificate: a revocation certificate — gpg's
// --generate-revocation output, or the one gpg keeps in openpgp-revocs.d once
// its guarding colon is removed — revokes its key as gpg's import does,
// whether given as a keyring of its own or after the key in one file; kept
// with its colon it is no revocation (gpg imports nothing from it), and the
// file says what to do.
func TestOpenPGPRevocationCertificate(t *testing.T) {
	h := newGPGHome(t)
	fpr, secret := h.genKey(time.Now().Add(-time.Hour))
	r := newVFRepo(t)
	r.tick(t, "T004")
	r.run(t, 0, "attest", "tick", "--key", secret, "--verdict", "regression_only", "--regression-reason", "planning_work")
	dir := t.TempDir()
	key := filepath.Join(dir, "key.asc")
	vfWrite(t, key, string(h.gpg(time.Now(), "", "--armor", "--export", fpr)))
	kept, err := os.ReadFile(filepath.Join(h.home, "openpgp-revocs.d", fpr+".rev"))
	if err != nil {
		t.Fatal(err)
	}
	guarded := filepath.Join(dir, "guarded.rev")
	vfWrite(t, guarded, string(kept))
	published := filepath.Join(dir, "published.rev")
	vfWrite(t, published, strings.Replace(string(kept), ":-----BEGIN PGP", "-----BEGIN PGP", 1))
	both := filepath.Join(dir, "both.asc")
	vfWrite(t, both, mustRead(t, key)+mustRead(t, published))
	// gpg itself: the published certificate revokes the key.
	h.gpg(time.Now(), "", "--import", published)
	if !strings.Contains(string(h.gpg(time.Now(), "", "--with-colons", "--list-keys", fpr)), "pub:r:") {
		t.Fatal("gpg does not read the certificate as a revocation")
	}

	r.run(t, 0, "verify", "HEAD", "--keyring", key)
	for _, args := range [][]string{{"--keyring", key, "--keyring", published}, {"--keyring", published, "--keyring", key}, {"--keyring", both}} {
		out, _ := r.run(t, 1, append([]string{"verify", "HEAD"}, args...)...)
		if !strings.Contains(out, "revoked on") {
			t.Errorf("%v: the revocation certificate did not revoke the key:\n%s", args, out)
		}
	}
	// The colon-guarded file alone: what to do, not a packet error.
	_, errOut := r.run(t, 3, "verify", "HEAD", "--keyring", key, "--keyring", guarded)
	if !strings.Contains(errOut, "remove the colon") {
		t.Errorf("guarded certificate: %s", errOut)
	}
	// A revocation of another key changes nothing (as gpg skips it); a
	// certificate that does not verify with its key is refused rather than
	// left without effect.
	other := newGPGHome(t)
	otherFpr, _ := other.genKey(time.Now().Add(-time.Hour))
	otherRev, err := os.ReadFile(filepath.Join(other.home, "openpgp-revocs.d", otherFpr+".rev"))
	if err != nil {
		t.Fatal(err)
	}
	unrelated := filepath.Join(dir, "unrelated.rev")
	vfWrite(t, unrelated, strings.Replace(string(otherRev), ":-----BEGIN PGP", "-----BEGIN PGP", 1))
	r.run(t, 0, "verify", "HEAD", "--keyring", key, "--keyring", unrelated)
	damaged := filepath.Join(dir, "damaged.rev")
	vfWrite(t, damaged, damageArmored(t, mustRead(t, published)))
	if _, errOut := r.run(t, 3, "verify", "HEAD", "--keyring", key, "--keyring", damaged); !strings.Contains(errOut, "revocation certificate for this key that does not verify") {
		t.Errorf("damaged certificate: %s", errOut)
	}
}

// damageArmored returns the armored block of text with the last byte of its
// body changed (inside a signature's value) and armored again.
func damageArmored(t *testing.T, text string) string {
	t.Helper()
	block, err := armor.Decode(strings.NewReader(text[strings.Index(text, "-----BEGIN"):]))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(block.Body)
	if err != nil {
		t.Fatal(err)
	}
	body[len(body)-1] ^= 0x01
	var b bytes.Buffer
	w, err := armor.Encode(&b, block.Type, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	w.Close()
	return b.String()
}
