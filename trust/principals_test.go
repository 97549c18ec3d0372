package trust

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/signer"
)

// TestPrincipalPatternsAgainstSSHKeygen holds taskproof's reading of allowed
// signers principal patterns to the real ssh-keygen's
// (docs/format.md#principal-patterns): for every pattern list of the table and
// every candidate principal X, `ssh-keygen -Y verify -I X` accepts the
// signature exactly when the entry Accepts X; the principals taskproof credits
// a signature to are the names `ssh-keygen -Y find-principals` lists that are
// not negated and that `-Y verify -I` accepts; and a signature verified
// through the trust is trusted exactly when there is such a name.
func TestPrincipalPatternsAgainstSSHKeygen(t *testing.T) {
	keygen := testenv.LookPath(t, "ssh-keygen")
	k := newSSHKey(t)
	dir := t.TempDir()
	msg := filepath.Join(dir, "msg")
	if err := os.WriteFile(msg, []byte("payload"), 0o600); err != nil {
		t.Fatal(err)
	}
	testenv.Run(t, nil, nil, keygen, "-Y", "sign", "-n", keys.SSHNamespace, "-f", k.path, msg)
	sg, err := signer.NewSSH(k.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := signer.Sign(t.Context(), []byte(`{"_type":"x"}`), sg)
	if err != nil {
		t.Fatal(err)
	}

	patterns := []string{
		"*", "a*", "!b,*", "!*", "a?c", "alice", "Alice", "alice,bob", "bob,alice",
		"!alice,a*", "a*,!alice", "!a*,a?c", "!abc,a?c", "!a?c,abc", "*@example.com",
		"!*@evil.com,*@example.com", "?", "??*", "!!b,*", "a**c", "*a*", "!*,alice", "alice,!*",
		"ALICE", "al*ce", "!bob",
	}
	candidates := []string{
		"alice", "Alice", "ALICE", "bob", "abc", "adc", "ac", "abbc", "a", "b", "c",
		"*", "a*", "!b", "!*", "a?c", "alice@example.com", "mallory@evil.com", "alce", "alice,bob",
	}
	accepts := func(as, x string) bool {
		cmd := exec.Command(keygen, "-Y", "verify", "-f", as, "-I", x, "-n", keys.SSHNamespace, "-s", msg+".sig")
		in, err := os.Open(msg)
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
	for _, pat := range patterns {
		t.Run(pat, func(t *testing.T) {
			as := filepath.Join(t.TempDir(), "allowed_signers")
			line := pat + ` namespaces="in-toto" ` + k.line + "\n"
			if err := os.WriteFile(as, []byte(line), 0o600); err != nil {
				t.Fatal(err)
			}
			parsed, err := LoadAllowedSigners(as)
			if err != nil {
				t.Fatal(err)
			}
			e := &parsed.Entries[0]
			xs := append(append([]string{}, candidates...), strings.Split(pat, ",")...)
			for _, x := range xs {
				if got, want := e.Accepts(x), accepts(as, x); got != want {
					t.Errorf("principal %q: taskproof accepts %v, ssh-keygen -Y verify -I accepts %v", x, got, want)
				}
			}
			out, err := exec.Command(keygen, "-Y", "find-principals", "-f", as, "-n", keys.SSHNamespace, "-s", msg+".sig").Output()
			if err != nil {
				t.Fatalf("ssh-keygen -Y find-principals: %v", err)
			}
			var want []string
			for _, name := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if name != "" && !strings.HasPrefix(name, "!") && accepts(as, name) {
					want = append(want, name)
				}
			}
			got := e.CreditedPrincipals()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("credited principals %q, want %q (find-principals listed %q)", got, want, strings.Fields(string(out)))
			}
			trust, err := NewTrust(WithAllowedSigners(parsed))
			if err != nil {
				t.Fatal(err)
			}
			res, err := VerifySignatures(env, trust, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case len(want) == 0 && res.Status != UntrustedSigner:
				t.Errorf("no principal is accepted, yet the signature is %s", res.Status)
			case len(want) > 0 && (res.Status != OK || res.Signers[0].Principal != strings.Join(want, ",")):
				t.Errorf("signature %s, signers %+v; want ok, principal %q", res.Status, res.Signers, strings.Join(want, ","))
			}
		})
	}
}
