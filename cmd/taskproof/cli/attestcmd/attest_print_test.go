package attestcmd

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/signer"
)

// attest tick's result line names the signer by its key id, for a Sigstore
// signer the certificate identity: written escaped, as every identity is.
func TestAttestResultLineEscapesIdentity(t *testing.T) {
	var out, errb strings.Builder
	w := []attest.Written{{Commit: gitref.Hash(strings.Repeat("a", 40)), Subject: "001-x/T001", Verdict: "regression_only", Signed: true,
		Signers: []attest.WrittenSigner{{Kind: signer.KindSigstore, KeyID: "dev\x1b[2K\r@example.invalid"}}}}
	if err := printWritten(&out, &errb, "text", w, false); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\r") || !strings.Contains(out.String(), `signed by sigstore dev\x1b[2K\r@example.invalid`) {
		t.Errorf("result line %q", out.String())
	}
}
