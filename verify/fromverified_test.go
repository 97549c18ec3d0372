package verify

import (
	"errors"
	"testing"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate"
)

// TestTrustNotFromVerified: without the CLI, a Verifier whose trust LoadTrust
// read from git refuses to verify the commit it was read from (Objects, Branch)
// and, for a range, any commit of the range; the base is outside the range and
// allowed; TrustFromVerifiedUnsafe opts out. CheckNotFromVerified refuses a
// policy read from the range alike.
func TestTrustNotFromVerified(t *testing.T) {
	f := newFixture(t)
	allowed := `dev@example.invalid namespaces="in-toto" ` + f.key.line + "\n"
	c1 := f.commit("trust", map[string]string{".github/allowed_signers": allowed})
	c2 := f.tick("T001")
	f.attest(c2, predicate.Verified, f.signer)
	repo, notes := f.open()
	verifier := func(rev gitref.Hash) *Verifier {
		t.Helper()
		trust, _, err := LoadTrust(repo, TrustSources{AllowedSignersRev: string(rev) + ":.github/allowed_signers", NoGitConfig: true})
		if err != nil {
			t.Fatal(err)
		}
		return &Verifier{Repo: repo, Notes: notes, Trust: trust, At: now}
	}
	refused := func(what string, err error, inRange bool) {
		t.Helper()
		var fe *FromVerifiedError
		if !errors.As(err, &fe) || !errors.Is(err, ErrTrust) || fe.Source.Kind != SourceAllowedSigners || (fe.Range != "") != inRange {
			t.Errorf("%s: %v, want a FromVerifiedError (in range %v) matching ErrTrust", what, err, inRange)
		}
	}
	_, err := verifier(c2).Objects([]gitref.Hash{c2}, GateOptions{})
	refused("Objects(c2) trusting c2", err, false)
	_, err = verifier(c2).Branch(f.base, c2, GateOptions{})
	refused("Branch(base, c2) trusting c2", err, false)
	_, err = verifier(c1).Branch(f.base, c2, GateOptions{})
	refused("Branch(base, c2) trusting c1", err, true)
	_, err = verifier(c1).Branch("", c2, GateOptions{})
	refused("Branch(all of c2's history) trusting c1", err, true)

	if rep, err := verifier(c1).Objects([]gitref.Hash{c2}, GateOptions{}); err != nil || rep.Conclusion != Success {
		t.Errorf("Objects(c2) trusting c1: %v, %v; want success", rep, err)
	}
	if rep, err := verifier(c1).Branch(c1, c2, GateOptions{}); err != nil || rep.Conclusion != Success {
		t.Errorf("Branch(c1, c2) trusting the base c1: %v, %v; want success", rep, err)
	}
	v := verifier(c2)
	v.TrustFromVerifiedUnsafe = true
	if rep, err := v.Branch(f.base, c2, GateOptions{}); err != nil || rep.Conclusion != Success {
		t.Errorf("Branch(base, c2) trusting c2 with TrustFromVerifiedUnsafe: %v, %v; want success", rep, err)
	}

	pol, ok, err := ResolveSourceRev(repo, SourcePolicy, string(c1)+":.taskproof/policy.toml")
	if err != nil || !ok || pol.Commit != c1 {
		t.Fatalf("ResolveSourceRev: %+v %v %v", pol, ok, err)
	}
	err = CheckNotFromVerified(repo, []SourceRev{pol}, Verified{Range: true, Base: f.base, Head: c2})
	var fe *FromVerifiedError
	if !errors.As(err, &fe) || fe.Source != pol || fe.Range != string(f.base)+".."+string(c2) {
		t.Errorf("policy from the range: %v, want a FromVerifiedError", err)
	}
	if err := CheckNotFromVerified(repo, []SourceRev{pol}, Verified{Range: true, Base: c1, Head: c2}); err != nil {
		t.Errorf("policy from the base: %v", err)
	}
	if _, ok, err := ResolveSourceRev(repo, SourcePolicy, ""); ok || err != nil {
		t.Errorf("ResolveSourceRev(\"\") = %v, %v; want nothing", ok, err)
	}
	if _, _, err := ResolveSourceRev(repo, SourcePolicy, "no-such-rev:p.toml"); !errors.Is(err, gitref.ErrUnknownRevision) {
		t.Errorf("ResolveSourceRev(unknown rev) = %v", err)
	}
}
