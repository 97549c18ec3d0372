package verify

import (
	"errors"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/trust"
)

// TestTrustNotFromVerified: without the CLI, a Verifier whose trust LoadTrust
// read from git, or whose policy policy.LoadSource read from git, refuses to verify
// the commit it was read from (Objects, Branch, Explain) and, for a range, any
// commit of the range; the base is outside the range and allowed; an empty
// range refuses nothing; FromVerifiedUnsafe opts out.
func TestTrustNotFromVerified(t *testing.T) {
	f := newFixture(t)
	allowed := `dev@example.invalid namespaces="in-toto" ` + f.key.line + "\n"
	c1 := f.commit("trust", map[string]string{".github/allowed_signers": allowed, ".taskproof/policy.toml": "version = 1\n"})
	c2 := f.tick("T001")
	f.attest(c2, predicate.Verified, f.signer)
	repo, notes := f.open()
	fileTrust := f.trust
	verifier := func(trustRev, policyRev gitref.Hash, opts ...VerifierOption) *Verifier {
		t.Helper()
		tr := fileTrust
		if trustRev != "" {
			var err error
			if tr, _, err = trust.LoadTrust(repo, trust.Sources{AllowedSignersRev: string(trustRev) + ":.github/allowed_signers", NoGitConfig: true}); err != nil {
				t.Fatal(err)
			}
		}
		if policyRev != "" {
			pol, err := policy.LoadSource(repo, policy.Source{Rev: string(policyRev) + ":.taskproof/policy.toml"})
			if err != nil || pol.Commit() != string(policyRev) {
				t.Fatalf("LoadPolicy: %v, commit %q", err, pol.Commit())
			}
			opts = append(opts, WithPolicy(pol))
		}
		v, err := NewVerifier(repo, notes, tr, append(opts, WithTime(now))...)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	refused := func(what string, err error, kind string, inRange bool) {
		t.Helper()
		var fe *FromVerifiedError
		if !errors.As(err, &fe) || !errors.Is(err, trust.ErrTrust) || fe.Source.Kind != kind || (fe.Range != "") != inRange {
			t.Errorf("%s: %v, want a FromVerifiedError of %s (in range %v) matching trust.ErrTrust", what, err, kind, inRange)
		}
	}
	passes := func(what string, rep *Report, err error) {
		t.Helper()
		if err != nil || rep.Conclusion != Success {
			t.Errorf("%s: %v, %v; want success", what, rep, err)
		}
	}
	for _, tc := range []struct {
		kind string
		revs func(gitref.Hash) (trustRev, policyRev gitref.Hash)
	}{
		{trust.SourceAllowedSigners, func(c gitref.Hash) (gitref.Hash, gitref.Hash) { return c, "" }},
		{trust.SourcePolicy, func(c gitref.Hash) (gitref.Hash, gitref.Hash) { return "", c }},
	} {
		from := func(c gitref.Hash, opts ...VerifierOption) *Verifier {
			tr, po := tc.revs(c)
			return verifier(tr, po, opts...)
		}
		_, err := from(c2).Objects([]gitref.Hash{c2}, GateOptions{})
		refused(tc.kind+": Objects(c2) reading c2", err, tc.kind, false)
		_, err = from(c2).Explain(c2)
		refused(tc.kind+": Explain(c2) reading c2", err, tc.kind, false)
		_, err = Gate.Branch(from(c2), f.base, c2, GateOptions{})
		refused(tc.kind+": Branch(base, c2) reading c2", err, tc.kind, false)
		_, err = Gate.Branch(from(c1), f.base, c2, GateOptions{})
		refused(tc.kind+": Branch(base, c2) reading c1", err, tc.kind, true)
		_, err = Gate.Branch(from(c1), "", c2, GateOptions{})
		refused(tc.kind+": Branch(all of c2's history) reading c1", err, tc.kind, true)

		rep, err := from(c1).Objects([]gitref.Hash{c2}, GateOptions{})
		passes(tc.kind+": Objects(c2) reading c1", rep, err)
		rep, err = Gate.Branch(from(c1), c1, c2, GateOptions{})
		passes(tc.kind+": Branch(c1, c2) reading the base c1", rep, err)
		rep, err = Gate.Branch(from(c2, WithFromVerifiedUnsafe()), f.base, c2, GateOptions{})
		passes(tc.kind+": Branch(base, c2) reading c2 with WithFromVerifiedUnsafe", rep, err)
		// An empty range verifies nothing: neutral, whatever the input's commit.
		rep, err = Gate.Branch(from(c2), c2, c2, GateOptions{})
		if err != nil || rep.Conclusion != Neutral {
			t.Errorf("%s: Branch(c2, c2) reading c2: %v, %v; want neutral", tc.kind, rep, err)
		}
		rep, err = Gate.Branch(from(c2), c2, c1, GateOptions{})
		if err != nil || rep.Conclusion != Neutral {
			t.Errorf("%s: Branch(c2, c1) reading c2: %v, %v; want neutral", tc.kind, rep, err)
		}
	}
	// Trust and policy from the range: the trust is named first.
	_, err := Gate.Branch(verifier(c1, c1), f.base, c2, GateOptions{})
	refused("both from the range", err, trust.SourceAllowedSigners, true)
	// A policy changed after construction is judged at the call.
	v := verifier("", "")
	v.Policy, _ = policy.LoadSource(repo, policy.Source{Rev: string(c2) + ":.taskproof/policy.toml"})
	_, err = v.Objects([]gitref.Hash{c2}, GateOptions{})
	refused("policy set after NewVerifier", err, trust.SourcePolicy, false)
}

// TestNewVerifierRefuses: a verifier without a repository, notes store or
// trust is refused with a *VerifierError naming the part, by NewVerifier and,
// for a Verifier written as a literal, by each method instead of a nil
// dereference.
func TestNewVerifierRefuses(t *testing.T) {
	f := newFixture(t)
	c := f.tick("T001")
	repo, notes := f.open()
	for _, tc := range []struct {
		name    string
		repo    *gitref.Repo
		notes   *gitref.NotesStore
		trust   *trust.Trust
		missing string
	}{
		{"no repository", nil, notes, f.trust, MissingRepo},
		{"no notes store", repo, nil, f.trust, MissingNotes},
		{"no trust", repo, notes, nil, MissingTrust},
		{"nothing", nil, nil, nil, MissingRepo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(what string, err error) {
				t.Helper()
				var ve *VerifierError
				if !errors.As(err, &ve) || ve.Missing != tc.missing {
					t.Errorf("%s: %v, want a VerifierError missing %s", what, err, tc.missing)
				}
				if errors.Is(err, trust.ErrNoTrust) != (tc.missing == MissingTrust) {
					t.Errorf("%s: %v matches ErrNoTrust: %v", what, err, errors.Is(err, trust.ErrNoTrust))
				}
			}
			v, err := NewVerifier(tc.repo, tc.notes, tc.trust, WithPolicy(policy.Default()))
			if v != nil {
				t.Errorf("NewVerifier returned a verifier with %v", err)
			}
			check("NewVerifier", err)
			lit := &Verifier{Repo: tc.repo, Notes: tc.notes, Trust: tc.trust}
			_, err = lit.Object(c)
			check("Object", err)
			_, err = lit.Objects([]gitref.Hash{c}, GateOptions{})
			check("Objects", err)
			_, err = Gate.Branch(lit, f.base, c, GateOptions{})
			check("Branch", err)
			_, err = lit.Explain(c)
			check("Explain", err)
		})
	}
	if _, err := NewVerifier(repo, notes, f.trust); err != nil {
		t.Errorf("NewVerifier with every part: %v", err)
	}
}
