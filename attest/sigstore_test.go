package attest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

const (
	sgIdentity = "https://github.com/acme/calc/.github/workflows/release.yml@refs/heads/main"
	sgIssuer   = "https://token.actions.githubusercontent.com"
)

// tickSigstore attests T001 and T002 of r.c1 with a Sigstore signer.
func tickSigstore(t *testing.T, r *tickRepo, env *sigstoretest.Env) []attest.Written {
	t.Helper()
	w, err := tickSigstoreForce(t, r, env, false)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// sigstoreTicks counts the ticks of tickSigstoreForce.
var sigstoreTicks int

// tickSigstoreForce is tickSigstore's attest.Tick with Force set as given.
func tickSigstoreForce(t *testing.T, r *tickRepo, env *sigstoretest.Env, force bool) ([]attest.Written, error) {
	t.Helper()
	repo, notes := r.open(t)
	s := env.Signer(t, &sigstoretest.Fulcio{Identity: sgIdentity, Issuer: sgIssuer})
	// Each tick an hour earlier: another statement than the one before (the
	// same statement again, or one a run after it issues, would be held
	// already, not replaced: docs/format.md#the-same-statement).
	sigstoreTicks++
	return attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Verdict: predicate.RegressionOnly,
		Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{s}, Force: force, Time: time.Now().Add(-time.Duration(sigstoreTicks) * time.Hour)})
}

// Sign, store as a note, read back: every line is a one-line bundle owned for
// its subject, shown with its identity, and re-ticking replaces (not adds) it.
func TestSigstoreTickWritesBundles(t *testing.T) {
	r := newTickRepo(t)
	env := sigstoretest.New(t)
	w := tickSigstore(t, r, env)
	if len(w) != 2 || !w[0].Signed || len(w[0].Signers) != 1 || w[0].Signers[0].Kind != signer.KindSigstore || w[0].Signers[0].KeyID != sgIdentity {
		t.Fatalf("written %+v, want two tasks signed by sigstore %s", w, sgIdentity)
	}
	first := note(t, r.dir, r.c1)
	lines := noteline.Split([]byte(first))
	if len(lines) != 4 { // two tasks × (task-verification + VSA)
		t.Fatalf("note has %d lines, want 4:\n%s", len(lines), first)
	}
	for i, l := range lines {
		b, err := noteline.DecodeBundle(l)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if b.MediaType != noteline.BundleMediaTypeV03 || b.Identity != sgIdentity || b.Issuer != sgIssuer || b.TlogIndex != 0 {
			t.Errorf("line %d: bundle %s identity %q issuer %q tlog %d", i+1, b.MediaType, b.Identity, b.Issuer, b.TlogIndex)
		}
		if err := b.Envelope.CheckPayloadType(); err != nil {
			t.Errorf("line %d: %v", i+1, err)
		}
		name, typ, ok := attest.LineSubject(l)
		if !ok || !strings.HasPrefix(name, "001-calc/T00") || !statement.Owned(typ) {
			t.Errorf("line %d: LineSubject = %q %q %v, want an owned line", i+1, name, typ, ok)
		}
	}
	shown := attest.ShowNote([]byte(first))
	if shown[0].Bundle == nil || shown[0].Bundle.Identity != sgIdentity || shown[0].Bundle.Issuer != sgIssuer ||
		shown[0].Bundle.TlogIndex == nil || *shown[0].Bundle.TlogIndex != 0 || shown[0].Signatures[0].Kind != signer.KindSigstore {
		t.Errorf("ShowNote line 1 = %+v", shown[0])
	}
	// Re-ticking without Force refuses, naming the bundles it would replace
	// (a signed statement is never dropped unnamed); with Force it replaces
	// the task's owned bundle lines.
	var ae *attest.AttestedError
	if _, err := tickSigstoreForce(t, r, env, false); !errors.As(err, &ae) || len(ae.Existing) != 2 {
		t.Fatalf("re-tick without Force: err %v, want an AttestedError naming the 2 ticks' bundles", err)
	}
	if same := note(t, r.dir, r.c1); same != first {
		t.Fatalf("refused re-tick changed the note")
	}
	if _, err := tickSigstoreForce(t, r, env, true); err != nil {
		t.Fatal(err)
	}
	if second := note(t, r.dir, r.c1); len(noteline.Split([]byte(second))) != 4 || second == first {
		t.Errorf("re-tick: note has %d lines (want 4, replaced)", len(noteline.Split([]byte(second))))
	}
	// A decision over a task's bundles is refused the same way
	// (docs/format.md#attesting-safely).
	second := note(t, r.dir, r.c1)
	repoD, notesD := r.open(t)
	_, err := attest.Decide(context.Background(), repoD, notesD, attest.DecideRequest{Commit: r.c1, Task: "T001",
		Verdict: predicate.Attested, By: "bob", Reason: "meh"})
	if !errors.As(err, &ae) || len(ae.Existing) != 1 || ae.Existing[0].Subject != "001-calc/T001" {
		t.Fatalf("decide over bundles: err %v, want an AttestedError naming 001-calc/T001", err)
	}
	if note(t, r.dir, r.c1) != second {
		t.Fatalf("refused decision changed the note")
	}
	repoD.Close()
	// And taskproof verify accepts them with the trusted root from a file.
	repo, notes := r.open(t)
	tr, _, err := trust.LoadTrust(repo, trust.Sources{NoGitConfig: true, TrustedRoot: env.WriteTrustedRoot(t, t.TempDir()),
		CertIdentity: sgIdentity, CertOIDCIssuer: sgIssuer})
	if err != nil {
		t.Fatal(err)
	}
	v := &verify.Verifier{Repo: repo, Notes: notes, Trust: tr}
	rs, err := v.Object(r.c1)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rs {
		if res.Outcome != verify.OK || len(res.Signers) != 1 || res.Signers[0].Identity != sgIdentity {
			t.Errorf("%s: outcome %s signers %+v reasons %+v", res.Task, res.Outcome, res.Signers, res.Reasons)
		}
	}
}

func TestSigstoreSignerRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    signer.SigstoreOptions
		want string
	}{
		{"no fulcio", signer.SigstoreOptions{RekorURL: "https://rekor.test", IDToken: "x"}, "no Fulcio URL"},
		{"no token", signer.SigstoreOptions{FulcioURL: "https://fulcio.test", RekorURL: "https://rekor.test"}, "no OIDC identity token"},
		{"no rekor", signer.SigstoreOptions{FulcioURL: "https://fulcio.test", IDToken: "x"}, "no Rekor URL"},
	} {
		_, err := signer.NewSigstore(tc.o)
		if !errors.Is(err, signer.ErrSigstore) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrSigstore with %q", tc.name, err, tc.want)
		}
	}
	env := sigstoretest.New(t)
	s := env.Signer(t, &sigstoretest.Fulcio{Identity: sgIdentity, Issuer: sgIssuer})
	if _, err := s.Sign([]byte("pae")); !errors.Is(err, signer.ErrSigstore) {
		t.Errorf("Sign: err %v, want ErrSigstore", err)
	}
	// A bundle carries one signature: the sigstore signer is not combined.
	r := newTickRepo(t)
	key, _ := sshKey(t, "")
	repo, notes := r.open(t)
	_, err := attest.Tick(context.Background(), repo, notes, attest.TickRequest{Commit: r.c1, Verdict: predicate.RegressionOnly,
		Regression: map[string]any{"reason": "planning_work"}, Signers: []signer.Signer{s, sshSigner(t, key)}})
	if !errors.Is(err, attest.ErrRequest) || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("sigstore + ssh: err %v, want ErrRequest (cannot be combined)", err)
	}
}
