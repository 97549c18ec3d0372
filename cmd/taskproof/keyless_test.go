package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
)

// attestKeyless attests rev's ticks in-process with a Sigstore signer of env
// issuing certificates for identity (sigstore-go's real signing path, the
// project's test CA and log) and returns the trusted root file's path.
func (r *cliRepo) attestKeyless(t *testing.T, env *sigstoretest.Env, rev, identity, issuer string) string {
	t.Helper()
	attestKeylessIn(t, r.dir, env, rev, identity, issuer)
	return env.WriteTrustedRoot(t, t.TempDir())
}

// attestKeylessIn attests rev's ticks in the repository at dir, keylessly
// with env's CA and log, as identity with issuer.
func attestKeylessIn(t *testing.T, dir string, env *sigstoretest.Env, rev, identity, issuer string) {
	t.Helper()
	repo, err := gitref.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	notes, err := repo.Notes("")
	if err != nil {
		t.Fatal(err)
	}
	sg := env.Signer(t, &sigstoretest.Fulcio{Identity: identity, Issuer: issuer})
	if _, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: gitref.Hash(rev), Verdict: predicate.RegressionOnly,
		Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{sg}}); err != nil {
		t.Fatal(err)
	}
}

// A certificate identity is chosen by whoever got the certificate: an e-mail
// address holding terminal escapes is written escaped by every command that
// prints it (attest show, verify's text and GitHub formats, stderr), and kept
// exact in JSON. The log index of the entry that verified, 0 here, is
// reported by verify --branch (whose report is spooled) in text and JSON.
func TestKeylessIdentityEscapedAndLogIndexZero(t *testing.T) {
	r := newCLIRepo(t)
	const issuer = "https://accounts.example"
	identity := "dev\x1b[2K\r@example.invalid"
	root := r.attestKeyless(t, sigstoretest.New(t), r.c1, identity, issuer)

	stdout, stderr, code := r.taskproof(t, nil, "attest", "show", r.c1)
	if code != 0 {
		t.Fatalf("attest show: exit %d\n%s", code, stderr)
	}
	if strings.ContainsAny(stdout, "\x1b\r") || !strings.Contains(stdout, `certificate identity dev\x1b[2K\r@example.invalid, issuer `+issuer) {
		t.Errorf("attest show writes the identity unescaped or not at all:\n%q", stdout)
	}

	trust := []string{"--trusted-root", root, "--certificate-identity-regexp", `dev.*@example\.invalid`, "--certificate-oidc-issuer", issuer}
	for _, format := range []string{"text", "github"} {
		stdout, stderr, code = r.taskproof(t, nil, append([]string{"verify", "--branch", "--base", r.c0, r.c1, "--format", format}, trust...)...)
		if code != 0 {
			t.Fatalf("verify --format %s: exit %d\n%s\n%s", format, code, stdout, stderr)
		}
		if strings.ContainsAny(stdout+stderr, "\x1b\r") {
			t.Errorf("verify --format %s writes a raw control character:\n%q\n%q", format, stdout, stderr)
		}
		if format == "text" && !strings.Contains(stdout, `dev\x1b[2K\r@example.invalid(sigstore issuer=`+issuer+` tlog=0)`) {
			t.Errorf("text report does not name the escaped identity with tlog=0:\n%s", stdout)
		}
	}
	// The trust line names the pattern as given and as applied.
	if want := "identity regular expression `dev.*@example\\.invalid` (applied as `^(?:dev.*@example\\.invalid)$`)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr does not name the pattern as given and applied (%s):\n%s", want, stderr)
	}

	stdout, stderr, code = r.taskproof(t, nil, append([]string{"verify", "--branch", "--base", r.c0, r.c1, "--format", "json"}, trust...)...)
	if code != 0 {
		t.Fatalf("verify --format json: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Ticks []struct {
			Signers []struct {
				Identity  string `json:"identity"`
				TlogIndex *int64 `json:"tlog_index"`
			} `json:"signers"`
		} `json:"ticks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Ticks) != 2 {
		t.Fatalf("%d ticks, want 2:\n%s", len(rep.Ticks), stdout)
	}
	for _, tk := range rep.Ticks {
		if len(tk.Signers) != 1 || tk.Signers[0].Identity != identity || tk.Signers[0].TlogIndex == nil || *tk.Signers[0].TlogIndex != 0 {
			t.Errorf("signers %+v, want the exact identity with tlog_index 0", tk.Signers)
		}
	}

	// A malformed pattern is refused before anything is judged (exit 3),
	// the attack's half-anchored alternation included.
	for _, bad := range []string{`x)|(.*`, `dev.*)|(.*@example\.invalid`} {
		_, stderr, code = r.taskproof(t, nil, "verify", "--branch", "--base", r.c0, r.c1, "--trusted-root", root,
			"--certificate-identity-regexp", bad, "--certificate-oidc-issuer", issuer)
		if code != 3 || !strings.Contains(stderr, "does not parse on its own") {
			t.Errorf("pattern %q: exit %d, stderr %s; want exit 3 refusing it", bad, code, stderr)
		}
	}
}
