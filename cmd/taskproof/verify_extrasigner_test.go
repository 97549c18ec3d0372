package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestVerifyExtraUntrustedSignerHint: an envelope signed by a trusted key and
// by one the verifier does not trust fails untrusted_signer (every signature
// must verify), and the fix says an untrusted key signed too, besides the
// trusted signer, and to re-attest with trusted keys only — not that no
// trusted key signed.
func TestVerifyExtraUntrustedSignerHint(t *testing.T) {
	kg := testenv.LookPath(t, "ssh-keygen")
	w := newWorld(t)
	a := w.seed()
	x := w.tick(a, "T001")
	other := filepath.Join(w.dir, "other")
	if out, err := exec.Command(kg, "-q", "-t", "ed25519", "-N", "", "-C", "other", "-f", other).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	w.run(a, 0, "attest", "tick", "--commit", x, "--verdict", "regression_only", "--regression-reason", "planning_work",
		"--signer", "ssh", "--key", w.key, "--key", other)
	out, _ := w.run(a, 1, "verify", x, "--allowed-signers", w.signers)
	if !strings.Contains(out, "untrusted_signer") || !strings.Contains(out, "a key the verifier does not trust signed the statement too, besides dev@example.invalid") ||
		strings.Contains(out, "no key the verifier trusts signed") {
		t.Errorf("verify of an envelope with an extra untrusted signature:\n%s", out)
	}
}
