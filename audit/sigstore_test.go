package audit_test

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/audit"
	"github.com/taskproof/taskproof/internal/sigstoretest"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/trust"
)

// A tick attested keylessly (its note lines are Sigstore bundles) is audited
// like a DSSE-attested one: a row with its verdict and reason, no problem, not
// "without evidence"; with Sigstore trust its signature is checked.
func TestRunSigstoreBundle(t *testing.T) {
	f := newFixture(t, 2)
	env := sigstoretest.New(t)
	const identity, issuer = "https://github.com/acme/greet/.github/workflows/release.yml@refs/heads/main", "https://token.actions.githubusercontent.com"
	signer := env.Signer(t, &sigstoretest.Fulcio{Identity: identity, Issuer: issuer})
	f.tick(t, 1, predicate.Verified, "", "", signer)
	f.tick(t, 2, predicate.RegressionOnly, "no_story", "", signer)
	for _, c := range f.ticks {
		note, err := f.notes.Note(c)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range noteline.Split(note) {
			if !noteline.IsBundle(line) {
				t.Fatalf("note of %s, line %d is no Sigstore bundle: the test proves nothing", c, i+1)
			}
		}
	}
	st, err := trust.NewSigstoreTrust(trust.SigstoreOptions{TrustedRoot: env.Root, Identity: identity, Issuer: issuer, TlogThreshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trust.NewTrust(trust.WithSigstore(st))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		tr     *trust.Trust
		status string
	}{{"without trust", nil, audit.SigNotChecked}, {"with sigstore trust", tr, "ok"}} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := audit.Run(f.repo, f.notes, audit.Options{All: true, Head: f.ticks[1], Trust: tc.tr})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) != 0 {
				t.Errorf("problems: %+v", rep.Problems)
			}
			if len(rep.WithoutEvidence) != 0 {
				t.Errorf("without evidence: %+v", rep.WithoutEvidence)
			}
			if len(rep.Ticks) != 2 {
				t.Fatalf("%d rows, want 2: %+v", len(rep.Ticks), rep.Ticks)
			}
			for i, want := range []struct{ task, verdict, reason string }{
				{"T001", "verified", ""}, {"T002", "regression_only", "no_story"}} {
				r := rowOf(t, rep, want.task)
				if r.Verdict != want.verdict || r.Commit != f.ticks[i] || len(r.Problems) != 0 {
					t.Errorf("%s: verdict %q at %s, problems %v; want %q at %s", want.task, r.Verdict, r.Commit, r.Problems, want.verdict, f.ticks[i])
				}
				if got := ""; r.Regression != nil {
					got = r.Regression.Reason
					if got != want.reason {
						t.Errorf("%s: regression reason %q, want %q", want.task, got, want.reason)
					}
				} else if want.reason != "" {
					t.Errorf("%s: no regression reason, want %q", want.task, want.reason)
				}
				if r.Signature.Status != tc.status || r.Signature.Count != 1 {
					t.Errorf("%s: signature %+v, want status %q of 1 signature", want.task, r.Signature, tc.status)
				}
				if tc.tr != nil && (len(r.Signature.Signers) != 1 || !strings.Contains(r.Signature.Signers[0].Principal, identity)) {
					t.Errorf("%s: signers %+v, want %s", want.task, r.Signature.Signers, identity)
				}
			}
		})
	}
}
