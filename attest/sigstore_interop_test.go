package attest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/noteline"
)

// npmVerifier installs testdata/interop's pinned npm packages
// (@sigstore/verify and its peers) into a temporary directory and returns a
// function running verify-bundle.mjs there. It skips the test, saying why,
// when node or npm is missing or the npm registry cannot be reached: node is
// not one of the programs CI must provide.
func npmVerifier(t *testing.T) func(bundle, trustedRoot, identity, issuer string) (string, error) {
	t.Helper()
	if testing.Short() {
		t.Skip("npm cross-check: skipped in -short mode (installs @sigstore/verify from the npm registry)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("npm cross-check: node not found on PATH: %v", err)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm cross-check: npm not found on PATH: %v", err)
	}
	src := filepath.Join(testenv.RepoRoot(t), "testdata", "interop")
	dir := t.TempDir()
	for _, f := range []string{"package.json", "verify-bundle.mjs"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund",
		"--no-package-lock", "--ignore-scripts", "--loglevel=error")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("npm cross-check: cannot install testdata/interop's packages (npm registry unreachable?): %v\n%s", err, out)
	}
	return func(bundle, trustedRoot, identity, issuer string) (string, error) {
		cmd := exec.Command(node, filepath.Join(dir, "verify-bundle.mjs"), bundle, trustedRoot, identity, issuer)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return strings.TrimSpace(out.String()), err
	}
}

// rewriteBundle returns line with mut applied to its decoded JSON.
func rewriteBundle(t *testing.T, line []byte, mut func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	mut(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The cross-implementation check: the bundles taskproof writes as note
// lines verify with the npm reference verifier @sigstore/verify against the
// same trusted root, identity and issuer; tampered bundles, another identity
// or issuer and another CA's trusted root fail there too (so the check can
// fail).
func TestSigstoreInteropNPM(t *testing.T) {
	run := npmVerifier(t)
	r := newTickRepo(t)
	env := sigstoretest.New(t)
	tickSigstore(t, r, env)
	lines := noteline.Split([]byte(note(t, r.dir, r.c1)))
	if len(lines) != 4 {
		t.Fatalf("note has %d lines, want 4", len(lines))
	}
	dir := t.TempDir()
	rootPath := env.WriteTrustedRoot(t, dir)
	otherRoot := sigstoretest.New(t).WriteTrustedRoot(t, t.TempDir())

	envelope := func(m map[string]any) map[string]any { return m["dsseEnvelope"].(map[string]any) }
	tamperedPayload := rewriteBundle(t, lines[0], func(m map[string]any) {
		e := envelope(m)
		p, err := base64.StdEncoding.DecodeString(e["payload"].(string))
		if err != nil {
			t.Fatal(err)
		}
		p = bytes.Replace(p, []byte(`"T001"`), []byte(`"T009"`), 1)
		e["payload"] = base64.StdEncoding.EncodeToString(p)
	})
	if bytes.Equal(tamperedPayload, rewriteBundle(t, lines[0], func(map[string]any) {})) {
		t.Fatal("tampering left the payload unchanged")
	}
	tamperedSig := rewriteBundle(t, lines[0], func(m map[string]any) {
		sig := envelope(m)["signatures"].([]any)[0].(map[string]any)
		s, _ := base64.StdEncoding.DecodeString(sig["sig"].(string))
		s[len(s)/2] ^= 0x01
		sig["sig"] = base64.StdEncoding.EncodeToString(s)
	})
	noTlog := rewriteBundle(t, lines[0], func(m map[string]any) {
		m["verificationMaterial"].(map[string]any)["tlogEntries"] = []any{}
	})

	for _, tc := range []struct {
		name             string
		line             []byte
		root             string
		identity, issuer string
		want             string // "OK" or the failure text the npm verifier prints
	}{
		{"task-verification line", lines[0], rootPath, sgIdentity, sgIssuer, "OK " + sgIdentity + " " + sgIssuer},
		{"VSA line", lines[1], rootPath, sgIdentity, sgIssuer, "OK " + sgIdentity + " " + sgIssuer},
		{"second task", lines[2], rootPath, sgIdentity, sgIssuer, "OK " + sgIdentity + " " + sgIssuer},
		{"tampered payload", tamperedPayload, rootPath, sgIdentity, sgIssuer, "FAIL"},
		{"tampered signature", tamperedSig, rootPath, sgIdentity, sgIssuer, "FAIL"},
		{"no tlog entry", noTlog, rootPath, sgIdentity, sgIssuer, "FAIL"},
		{"another CA's trusted root", lines[0], otherRoot, sgIdentity, sgIssuer, "FAIL"},
		{"identity prefix only", lines[0], rootPath, strings.TrimSuffix(sgIdentity, "@refs/heads/main"), sgIssuer, "FAIL UNTRUSTED_SIGNER_ERROR"},
		{"wrong issuer", lines[0], rootPath, sgIdentity, "https://accounts.google.com", "FAIL UNTRUSTED_SIGNER_ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(p, tc.line, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := run(p, tc.root, tc.identity, tc.issuer)
			if !strings.HasPrefix(out, tc.want) || (err == nil) != strings.HasPrefix(tc.want, "OK") {
				t.Errorf("@sigstore/verify: %q (err %v), want output starting %q", out, err, tc.want)
			}
		})
	}
}
