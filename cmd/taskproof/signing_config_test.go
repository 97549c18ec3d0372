package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"

	"github.com/taskproof/taskproof/internal/testenv"
)

// signingHome is a user's home made for a test: HOME and GNUPGHOME in
// temporary directories (so "~" expands there and gpg's keyring is the
// test's), no ssh-agent, git reading $HOME/.gitconfig as a user's git does.
type signingHome struct {
	t     *testing.T
	home  string
	gnupg string
	env   []string
}

func newSigningHome(t *testing.T) *signingHome {
	t.Helper()
	home := t.TempDir()
	gnupg, err := os.MkdirTemp("", "gpg") // short: gpg-agent's socket path is limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("gpgconf", "--homedir", gnupg, "--kill", "all").Run()
		os.RemoveAll(gnupg)
	})
	var env []string
	for _, kv := range testenv.GitEnv() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "GNUPGHOME", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "GNUPGHOME="+gnupg)
	return &signingHome{t: t, home: home, gnupg: gnupg, env: env}
}

// run runs program name with the home's environment plus extra in dir.
func (h *signingHome) run(dir string, extra []string, name string, args ...string) (string, string, int) {
	h.t.Helper()
	path := name
	if name != testenv.Binary(h.t) {
		path = testenv.LookPath(h.t, name)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, h.env...), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	h.t.Fatal(err)
	return "", "", 0
}

func (h *signingHome) must(dir string, extra []string, name string, args ...string) string {
	h.t.Helper()
	out, stderr, code := h.run(dir, extra, name, args...)
	if code != 0 {
		h.t.Fatalf("%s %v: exit %d\n%s%s", name, args, code, out, stderr)
	}
	return out
}

func (h *signingHome) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// sshKey makes ~/.ssh/<name> with the real ssh-keygen and returns its path,
// fingerprint and allowed-signers line.
func (h *signingHome) sshKey(name string) (path, fp, allowed string) {
	h.t.Helper()
	path = filepath.Join(h.home, ".ssh", name)
	os.MkdirAll(filepath.Dir(path), 0o700)
	h.must("", nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path)
	fp = strings.Fields(h.must("", nil, "ssh-keygen", "-l", "-E", "sha256", "-f", path+".pub"))[1]
	pub, _ := os.ReadFile(path + ".pub")
	return path, fp, name + "@example.invalid namespaces=\"in-toto\" " + string(pub)
}

// gpgKey makes a key in the home's gpg keyring and returns its fingerprint.
func (h *signingHome) gpgKey(uid string) string {
	h.t.Helper()
	h.must("", nil, "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "never")
	out := h.must("", nil, "gpg", "--batch", "--with-colons", "--list-secret-keys", uid)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "fpr:") {
			return strings.Split(line, ":")[9]
		}
	}
	h.t.Fatalf("no fingerprint for %s:\n%s", uid, out)
	return ""
}

// gitSigns checks that git itself signs a commit in dir with this
// configuration: the same configuration must make taskproof sign.
func (h *signingHome) gitSigns(dir string, extra []string) {
	h.t.Helper()
	id := strings.TrimSpace(h.must(dir, extra, "git", "commit-tree", "-S", "-m", "probe", "HEAD^{tree}"))
	if obj := h.must(dir, extra, "git", "cat-file", "commit", id); !strings.Contains(obj, "gpgsig ") {
		h.t.Fatalf("git commit-tree -S made an unsigned commit:\n%s", obj)
	}
}

// attestAndVerify runs attest tick on r.c1 (both of its tasks), checks that
// every note line is signed by exactly the keyids wanted, and that verify with
// trust passes.
func (h *signingHome) attestAndVerify(r *cliRepo, extra, attestArgs, trust []string, keyids ...string) {
	h.t.Helper()
	bin := testenv.Binary(h.t)
	args := append([]string{"attest", "tick", "--commit", r.c1, "--verdict", "regression_only", "--regression-reason", "planning_work"}, attestArgs...)
	stdout, stderr, code := h.run(r.dir, extra, bin, args...)
	if code != 0 {
		h.t.Fatalf("attest tick: exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stderr, "unsigned") {
		h.t.Errorf("attest tick warned of unsigned statements: %s", stderr)
	}
	envs := envelopes(h.t, r.note(h.t, r.c1))
	if len(envs) == 0 {
		h.t.Fatal("no note written")
	}
	for i, e := range envs {
		var got []string
		for _, s := range e.Signatures {
			got = append(got, strings.ToUpper(s.KeyID))
		}
		var want []string
		for _, k := range keyids {
			want = append(want, strings.ToUpper(k))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			h.t.Errorf("line %d signed by %v, want %v", i+1, got, want)
		}
	}
	vargs := append([]string{"verify", r.c1}, trust...)
	if out, stderr, code := h.run(r.dir, extra, bin, vargs...); code != 0 {
		h.t.Errorf("verify %v: exit %d\n%s%s", trust, code, out, stderr)
	}
}

// TestSigningWithGitsConfiguration: every way a user configures git so that
// `git commit -S` signs makes `attest tick` sign too, checked with the real
// git, ssh-keygen and gpg and the real binary, and `taskproof verify` with the
// matching trust passes (docs/format.md#signing-with-gits-configuration).
func TestSigningWithGitsConfiguration(t *testing.T) {
	testenv.LookPath(t, "gpg")
	type world struct {
		h       *signingHome
		r       *cliRepo
		key, fp string
		allowed string // allowed signers file
	}
	setup := func(t *testing.T) *world {
		h := newSigningHome(t)
		key, fp, line := h.sshKey("id_ed25519")
		return &world{h: h, r: newCLIRepo(t), key: key, fp: fp, allowed: h.write("allowed_signers", line)}
	}
	ssh := func(w *world, extra []string) {
		w.h.gitSigns(w.r.dir, extra)
		w.h.attestAndVerify(w.r, extra, nil, []string{"--allowed-signers", w.allowed}, w.fp)
	}
	t.Run("user.signingKey ~/.ssh/id_ed25519.pub, no ssh-agent", func(t *testing.T) {
		w := setup(t)
		w.h.write(".gitconfig", "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/id_ed25519.pub\n")
		ssh(w, nil)
	})
	t.Run("user.signingKey ~/.ssh/id_ed25519", func(t *testing.T) {
		w := setup(t)
		w.h.write(".gitconfig", "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/id_ed25519\n")
		ssh(w, nil)
	})
	t.Run("key set in an [include] file", func(t *testing.T) {
		w := setup(t)
		w.h.write(".gitconfig", "[include]\n\tpath = ~/.config/signing.gitconfig\n")
		w.h.write(".config/signing.gitconfig", "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/id_ed25519.pub\n")
		ssh(w, nil)
	})
	t.Run("key set in an [includeIf gitdir:] file", func(t *testing.T) {
		w := setup(t)
		w.h.write(".gitconfig", "[includeIf \"gitdir:"+filepath.Dir(w.r.dir)+"/\"]\n\tpath = ~/work.gitconfig\n")
		w.h.write("work.gitconfig", "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/id_ed25519.pub\n")
		ssh(w, nil)
	})
	t.Run("key set through GIT_CONFIG_COUNT", func(t *testing.T) {
		w := setup(t)
		ssh(w, []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=gpg.format", "GIT_CONFIG_VALUE_0=ssh",
			"GIT_CONFIG_KEY_1=user.signingKey", "GIT_CONFIG_VALUE_1=" + w.key + ".pub"})
	})
	t.Run("git not installed: includeIf and ~ read in-process", func(t *testing.T) {
		w := setup(t)
		w.h.write(".gitconfig", "[includeIf \"gitdir:"+filepath.Dir(w.r.dir)+"/\"]\n\tpath = ~/work.gitconfig\n")
		w.h.write("work.gitconfig", "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/id_ed25519.pub\n")
		w.h.gitSigns(w.r.dir, nil)
		noGit := []string{"PATH=" + t.TempDir()} // taskproof finds no git program
		w.h.attestAndVerify(w.r, noGit, nil, []string{"--allowed-signers", w.allowed}, w.fp)
	})
	t.Run("gpg.format openpgp with a key ID in gpg's keyring", func(t *testing.T) {
		w := setup(t)
		fpr := w.h.gpgKey("Alice <alice@example.invalid>")
		keyring := w.h.write("alice.asc", w.h.must("", nil, "gpg", "--batch", "--armor", "--export", fpr))
		w.h.write(".gitconfig", "[gpg]\n\tformat = openpgp\n[user]\n\tsigningKey = "+fpr[24:]+"\n")
		w.h.gitSigns(w.r.dir, nil)
		w.h.attestAndVerify(w.r, nil, nil, []string{"--keyring", keyring}, fpr)
	})
	t.Run("gpg.format unset with a key in gpg's keyring", func(t *testing.T) {
		w := setup(t)
		fpr := w.h.gpgKey("Bob <bob@example.invalid>")
		keyring := w.h.write("bob.asc", w.h.must("", nil, "gpg", "--batch", "--armor", "--export", fpr))
		w.h.write(".gitconfig", "[user]\n\tsigningKey = bob@example.invalid\n")
		w.h.gitSigns(w.r.dir, nil)
		w.h.attestAndVerify(w.r, nil, nil, []string{"--keyring", keyring}, fpr)
	})
}

// TestSigningKeyKindFromFile: `--key FILE` without `--signer` signs with the
// kind the file holds.
func TestSigningKeyKindFromFile(t *testing.T) {
	testenv.LookPath(t, "gpg")
	h := newSigningHome(t)
	key, fp, line := h.sshKey("id_ed25519")
	allowed := h.write("allowed_signers", line)
	fpr := h.gpgKey("Carol <carol@example.invalid>")
	keyring := h.write("carol.asc", h.must("", nil, "gpg", "--batch", "--armor", "--export", fpr))
	armored := h.write("carol-secret.asc", h.must("", nil, "gpg", "--batch", "--armor", "--export-secret-keys", fpr))
	binary := filepath.Join(h.home, "carol-secret.gpg")
	h.must("", nil, "gpg", "--batch", "--output", binary, "--export-secret-keys", fpr)
	_, priv, _ := ed25519.GenerateKey(nil)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	pubDER, _ := x509.MarshalPKIXPublicKey(priv.Public())
	rawKey := h.write("raw.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	rawPub := h.write("raw.pub.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})))
	rawID := rawKeyID(t, pubDER)
	tests := []struct {
		name  string
		key   string
		trust []string
		keyid string
	}{
		{"OpenSSH private key", key, []string{"--allowed-signers", allowed}, fp},
		{"SSH public key beside its private key", key + ".pub", []string{"--allowed-signers", allowed}, fp},
		{"armored OpenPGP secret key", armored, []string{"--keyring", keyring}, fpr},
		{"binary OpenPGP secret key", binary, []string{"--keyring", keyring}, fpr},
		{"PKCS#8 PEM key", rawKey, []string{"--key", rawPub}, rawID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hh := *h
			hh.t = t
			(&hh).attestAndVerify(newCLIRepo(t), nil, []string{"--key", tt.key}, tt.trust, tt.keyid)
		})
	}
}

// TestSigningTwoKeys: `--key A --key B` puts two signatures in every envelope,
// and verify passes when both keys are trusted; the same key twice is refused.
func TestSigningTwoKeys(t *testing.T) {
	testenv.LookPath(t, "gpg")
	h := newSigningHome(t)
	a, fpA, lineA := h.sshKey("id_a")
	b, fpB, lineB := h.sshKey("id_b")
	allowed := h.write("allowed_signers", lineA+lineB)
	r := newCLIRepo(t)
	h.attestAndVerify(r, nil, []string{"--key", a, "--key", b}, []string{"--allowed-signers", allowed}, fpA, fpB)

	// An SSH key and an OpenPGP key: the verifier needs both in its trust.
	fpr := h.gpgKey("Dave <dave@example.invalid>")
	keyring := h.write("dave.asc", h.must("", nil, "gpg", "--batch", "--armor", "--export", fpr))
	secret := h.write("dave-secret.asc", h.must("", nil, "gpg", "--batch", "--armor", "--export-secret-keys", fpr))
	mixed := newCLIRepo(t)
	h.attestAndVerify(mixed, nil, []string{"--key", a, "--key", secret}, []string{"--allowed-signers", allowed, "--keyring", keyring}, fpA, fpr)
	if _, _, code := h.run(mixed.dir, nil, testenv.Binary(t), "verify", mixed.c1, "--allowed-signers", allowed); code != 1 {
		t.Errorf("verify trusting only the SSH key: exit %d, want 1 (every signature must verify)", code)
	}

	r2 := newCLIRepo(t)
	_, stderr, code := h.run(r2.dir, nil, testenv.Binary(t), "attest", "tick", "--commit", r2.c1, "--verdict", "regression_only",
		"--regression-reason", "planning_work", "--key", a, "--key", a+".pub")
	if code != 2 || !strings.Contains(stderr, "same key") || r2.note(t, r2.c1) != "" {
		t.Errorf("same key twice: exit %d, stderr %q; want exit 2 and no note", code, stderr)
	}
}

// TestSigningConfiguredKeyUnusable: a configured or given key that cannot be
// used is exit 3 naming what to do, and no note is written — never unsigned
// statements.
func TestSigningConfiguredKeyUnusable(t *testing.T) {
	h := newSigningHome(t)
	_, _, _ = h.sshKey("id_ed25519")
	os.Remove(filepath.Join(h.home, ".ssh", "id_ed25519"))
	tests := []struct {
		name   string
		config string
		args   []string
		msg    string
	}{
		{"public key, no agent, no private key", "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/id_ed25519.pub\n", nil, "SSH_AUTH_SOCK is not set"},
		{"missing key file", "[gpg]\n\tformat = ssh\n[user]\n\tsigningKey = ~/.ssh/absent\n", nil, "no such file"},
		{"keyring key gpg does not hold", "[user]\n\tsigningKey = 0xDEADBEEFDEADBEEF\n", nil, "gpg has no secret key"},
		{"gpg.format x509", "[gpg]\n\tformat = x509\n[user]\n\tsigningKey = x\n", nil, "gpg.format=x509"},
		{"no key at all", "", nil, "--unsigned"},
		{"--key of no known kind", "", []string{"--key", h.write("notakey", "hello\n")}, "not a key taskproof recognises"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.write(".gitconfig", tt.config)
			r := newCLIRepo(t)
			args := append([]string{"attest", "tick", "--commit", r.c1, "--verdict", "regression_only", "--regression-reason", "planning_work"}, tt.args...)
			_, stderr, code := h.run(r.dir, nil, testenv.Binary(t), args...)
			if code != 3 || !strings.Contains(stderr, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit 3 mentioning %q", code, stderr, tt.msg)
			}
			if n := r.note(t, r.c1); n != "" {
				t.Errorf("a refused tick wrote a note: %s", n)
			}
		})
	}
}

// rawKeyID is the keyid a raw key signs under (docs/format.md#signatures-dsse-v1):
// securesystemslib's, as go-securesystemslib's LoadKey computes it.
func rawKeyID(t *testing.T, pubDER []byte) string {
	t.Helper()
	k, err := signerverifier.LoadKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
	if err != nil {
		t.Fatal(err)
	}
	return k.KeyID
}
