package trust

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/internal/testkeys"
)

// TestSSHAgainstSSHKeygen is the SSH differential table: allowed signers
// entries (plain keys, valid-after, valid-before, namespaces, cert-authority)
// and signatures by a plain key or by certificates the real ssh-keygen -s
// issued (windows, principals, critical options, host certificates), judged
// by taskproof at several times and by the real `ssh-keygen -Y verify -O
// verify-time=T -I X` at the same times, for X each principal taskproof
// could credit. The verdicts must be equal, except that taskproof refuses a
// certificate with a critical option, which ssh-keygen ignores
// (docs/format.md#ssh-certificates).
func TestSSHAgainstSSHKeygen(t *testing.T) {
	keygen := testenv.LookPath(t, "ssh-keygen")
	user, ca, otherCA := newSSHKey(t), newSSHKey(t), newSSHKey(t)
	dir := t.TempDir()
	payload := []byte(testStatement)
	pae := testkeys.PAE(payload)

	issue := func(name, principals, validity string, extra ...string) *ssh.Certificate {
		pub := filepath.Join(dir, name+".pub")
		if err := os.WriteFile(pub, []byte(user.line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"-q", "-s", ca.path, "-I", name, "-V", validity}
		if principals != "" {
			args = append(args, "-n", principals)
		}
		testenv.Run(t, nil, nil, keygen, append(append(args, extra...), pub)...)
		text, err := os.ReadFile(filepath.Join(dir, name+"-cert.pub"))
		if err != nil {
			t.Fatal(err)
		}
		k, _, _, _, err := ssh.ParseAuthorizedKey(text)
		if err != nil {
			t.Fatal(err)
		}
		return k.(*ssh.Certificate)
	}
	certSig := func(cert *ssh.Certificate, ns string) []byte {
		cs, err := ssh.NewCertSigner(cert, user.signer)
		if err != nil {
			t.Fatal(err)
		}
		sig, err := sshsig.Sign(bytes.NewReader(pae), cs, sshsig.HashSHA512, ns)
		if err != nil {
			t.Fatal(err)
		}
		return sshsig.Armor(sig)
	}
	plain := testkeys.SSHKeygenSign(t, user.path, "in-toto", pae)
	sigs := map[string][]byte{
		"plain key":                   plain,
		"plain key, namespace git":    testkeys.SSHKeygenSign(t, user.path, "git", pae),
		"cert 2026":                   certSig(issue("c2026", "alice@example.com", "20260101Z:20270101Z"), "in-toto"),
		"cert 2026, namespace git":    certSig(issue("c2026git", "alice@example.com", "20260101Z:20270101Z"), "git"),
		"cert always":                 certSig(issue("always", "alice@example.com", "always:forever"), "in-toto"),
		"cert for bob":                certSig(issue("bob", "bob@example.com", "20260101Z:20270101Z"), "in-toto"),
		"cert for alice and bob":      certSig(issue("both", "bob@example.com,alice@example.com", "20260101Z:20270101Z"), "in-toto"),
		"cert with force-command":     certSig(issue("forced", "alice@example.com", "20260101Z:20270101Z", "-O", "force-command=/bin/true"), "in-toto"),
		"cert with source-address":    certSig(issue("source", "alice@example.com", "20260101Z:20270101Z", "-O", "source-address=127.0.0.1/32"), "in-toto"),
		"cert with verify-required":   certSig(issue("verify", "alice@example.com", "20260101Z:20270101Z", "-O", "verify-required"), "in-toto"),
		"cert without principals":     certSig(issue("anyone", "", "20260101Z:20270101Z"), "in-toto"),
		"host cert":                   certSig(issue("host", "alice@example.com", "20260101Z:20270101Z", "-h"), "in-toto"),
		"cert valid 2025 to mid-2026": certSig(issue("short", "alice@example.com", "20250101Z:20260301Z"), "in-toto"),
	}
	entries := map[string]string{
		"plain":                         "alice@example.com " + user.line,
		"plain, namespaces in-toto":     `alice@example.com namespaces="in-toto" ` + user.line,
		"plain, namespaces git":         `alice@example.com namespaces="git" ` + user.line,
		"plain, valid-after 2026":       `alice@example.com valid-after="20260101Z" ` + user.line,
		"plain, valid-before 2026-09":   `alice@example.com valid-before="20260901Z" ` + user.line,
		"plain, window 2026":            `alice@example.com valid-after="20260101Z",valid-before="20270101Z" ` + user.line,
		"plain, other principal":        "bob@example.com " + user.line,
		"plain, pattern":                "*@example.com " + user.line,
		"ca":                            "*@example.com cert-authority " + ca.line,
		"ca, exact principal":           "alice@example.com cert-authority " + ca.line,
		"ca, namespaces in-toto":        `*@example.com cert-authority,namespaces="in-toto" ` + ca.line,
		"ca, namespaces git":            `*@example.com cert-authority,namespaces="git" ` + ca.line,
		"ca, valid-before 2026-09":      `*@example.com cert-authority,valid-before="20260901Z" ` + ca.line,
		"ca, valid-after 2026-09":       `*@example.com cert-authority,valid-after="20260901Z" ` + ca.line,
		"other ca":                      "*@example.com cert-authority " + otherCA.line,
		"ca key without cert-authority": "*@example.com " + ca.line,
		"user key as cert-authority":    "*@example.com cert-authority " + user.line,
	}
	times := []time.Time{
		time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC),
	}
	data := filepath.Join(dir, "data")
	if err := os.WriteFile(data, pae, 0o600); err != nil {
		t.Fatal(err)
	}
	keygenAcceptsAs := keygenAcceptsAsWith(t, keygen, data)
	keygenAccepts := func(allowedFile, sigFile string, at time.Time) bool {
		for _, who := range []string{"alice@example.com", "bob@example.com"} {
			if keygenAcceptsAs(allowedFile, sigFile, who, at) {
				return true
			}
		}
		return false
	}
	rows, accepted, refused := 0, 0, 0
	for entryName, line := range entries {
		allowedFile := filepath.Join(dir, "allowed-"+entryName)
		if err := os.WriteFile(allowedFile, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		trust := allowed(t, line)
		for sigName, sig := range sigs {
			sigFile := filepath.Join(dir, "sig-"+sigName)
			if err := os.WriteFile(sigFile, sig, 0o600); err != nil {
				t.Fatal(err)
			}
			env := wrap(t, payload, dsse.Signature{Sig: sig})
			rows++
			for _, at := range times {
				res := mustVerify(t, env, trust, at)
				ours, theirs := res.Status == OK, keygenAccepts(allowedFile, sigFile, at)
				stricter := theirs && !ours && strings.Contains(res.Signatures[0].Reason, "critical option")
				if ours != theirs && !stricter {
					t.Errorf("entry %q, signature %q, at %s: taskproof accepts %v (%s %s), ssh-keygen accepts %v",
						entryName, sigName, at.Format("2006-01-02"), ours, res.Status, res.Signatures[0].Reason, theirs)
				}
				if theirs {
					accepted++
				} else {
					refused++
				}
			}
		}
	}
	if accepted == 0 || refused == 0 {
		t.Fatalf("%d rows: %d accepted, %d refused verdicts; the table must hold both", rows, accepted, refused)
	}
}

// keygenAcceptsAsWith returns a check running the real ssh-keygen -Y verify
// of data for principal who at at.
func keygenAcceptsAsWith(t *testing.T, keygen, data string) func(allowedFile, sigFile, who string, at time.Time) bool {
	return func(allowedFile, sigFile, who string, at time.Time) bool {
		cmd := exec.Command(keygen, "-Y", "verify", "-f", allowedFile, "-I", who, "-n", "in-toto",
			"-s", sigFile, "-O", "verify-time="+at.UTC().Format("20060102150405")+"Z")
		in, err := os.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		cmd.Stdin = in
		err = cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("ssh-keygen -Y verify: %v", err)
		}
		return err == nil
	}
}
