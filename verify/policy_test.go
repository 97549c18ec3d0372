package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/signer"
	"github.com/taskproof/taskproof/tick"
)

func mustPolicy(t testing.TB, src string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte("version = 1\n"+src), "test-policy.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) branchWith(p *policy.Policy, base, head gitref.Hash) *Report {
	f.t.Helper()
	v := f.verifier()
	v.Policy = p
	rep, err := Gate.Branch(v, base, head, GateOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return rep
}

func ruleNames(rs []policy.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Rule)
	}
	return out
}

// TestPolicyBranch: a policy denying a regression reason makes exactly that
// tick fail (rejected, reason policy) with the rule in every report format; a
// warn rule is reported without failing; the default policy changes nothing.
func TestPolicyBranch(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.Verified, f.signer)
	c2 := f.tick("T003")
	f.attest(c2, predicate.RegressionOnly, f.signer) // planning_work

	checkGate(t, f.branchWith(nil, f.base, c2), Success, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusEvidenced, "", ""},
	})
	p := mustPolicy(t, `
[regression_only]
denied_reasons = ["planning_work"]

[[rule]]
name = "want-red"
when = "predicate.verdict == 'verified'"
require = "has(predicate.red)"
message = "verified without a red run"
level = "warn"
`)
	rep := f.branchWith(p, f.base, c2)
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusRejected, ReasonPolicy, ""},
	})
	if got := ruleNames(rep.Ticks[0].Policy); strings.Join(got, ",") != "want-red" || rep.Ticks[0].Failing {
		t.Errorf("T002 policy %v failing %v, want the warn rule only, passing", got, rep.Ticks[0].Failing)
	}
	if got := ruleNames(rep.Ticks[1].Policy); strings.Join(got, ",") != policy.RuleRegressionReason {
		t.Errorf("T003 policy %v", got)
	}
	if r := rep.Ticks[1].Policy[0]; r.Level != policy.LevelError || r.Object != string(c2) || r.Task != fxFeature+"/T003" || !strings.Contains(r.Message, "planning_work") {
		t.Errorf("T003 result %+v", r)
	}

	var js, text, sarif, gh, junit bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Ticks []struct {
			Status string
			Policy []struct{ Rule, Level, Status, Message, Object, Task string }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Ticks) != 2 || doc.Ticks[1].Status != StatusRejected || len(doc.Ticks[1].Policy) != 1 ||
		doc.Ticks[1].Policy[0].Rule != policy.RuleRegressionReason || doc.Ticks[1].Policy[0].Level != "error" {
		t.Errorf("JSON ticks: %+v", doc.Ticks)
	}
	if err := writeReport(&text, "text", rep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rejected (policy)", "policy error regression_only.reason: regression_only reason planning_work is denied", "policy warn want-red: verified without a red run"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := writeReport(&sarif, "sarif", rep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID  string
				Message struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if rs := log.Runs[0].Results; len(rs) != 1 || rs[0].RuleID != "policy/regression_only.reason" || !strings.Contains(rs[0].Message.Text, "planning_work is denied") {
		t.Errorf("SARIF results: %+v", rs)
	}
	if err := writeReport(&gh, "github", rep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gh.String(), "regression_only.reason") {
		t.Errorf("github output lacks the rule:\n%s", gh.String())
	}
	if err := writeReport(&junit, "junit", rep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), "policy/regression_only.reason") {
		t.Errorf("junit output lacks the rule:\n%s", junit.String())
	}
}

// TestPolicyObjects: objects mode fails an object whose policy fails; the CI
// formats name the policy rule, not not_verified.
func TestPolicyObjects(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.Verified, f.signer)
	v := f.verifier()
	v.Policy = mustPolicy(t, "[signers]\nmin = 2\n")
	rep, err := v.Objects([]gitref.Hash{c1}, GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conclusion != Failure || rep.Objects[0].Outcome != OK || strings.Join(ruleNames(rep.Objects[0].Policy), ",") != policy.RuleSignersMin {
		t.Fatalf("conclusion %s, object %+v", rep.Conclusion, rep.Objects[0])
	}
	var sarif bytes.Buffer
	if err := writeReport(&sarif, "sarif", rep, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	if rule := `"ruleId": "policy/` + policy.RuleSignersMin + `"`; !strings.Contains(sarif.String(), rule) || !strings.Contains(sarif.String(), `"level": "error"`) {
		t.Errorf("SARIF has no failing %s:\n%s", rule, sarif.String())
	}
	v.Policy = mustPolicy(t, "[signers]\nmin = 1\nkinds = [\"ssh\"]\n")
	if rep, err = v.Objects([]gitref.Hash{c1}, GateOptions{}); err != nil || rep.Conclusion != Success {
		t.Errorf("one ssh signer, min 1: %v %v", rep.Conclusion, err)
	}
}

// TestPolicyPinned: a pinned policy_sha256 removes the mismatch (docs/format.md#verification-rules
// precedence recomputed); without accept_recomputed a value not pinned fails.
func TestPolicyPinned(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.Verified, f.signer)
	c2 := f.tick("T003")
	f.attest(c2, predicate.Verified, f.signer)
	other := strings.Repeat("0", 64)
	f.resign(c2, func(st map[string]any) { pred(st)["policy_sha256"] = other }, f.signer)

	rep := f.branchWith(nil, f.base, c2)
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusUnverifiable, string(Mismatch), ""},
	})
	lenient := mustPolicy(t, "[policy_sha256]\npinned = [\""+other+"\"]\naccept_recomputed = true\n")
	checkGate(t, f.branchWith(lenient, f.base, c2), Success, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusEvidenced, "", ""},
	})
	strict := mustPolicy(t, "[policy_sha256]\npinned = [\""+other+"\"]\n")
	rep = f.branchWith(strict, f.base, c2)
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusRejected, ReasonPolicy, ""},
		{c2, "T003", StatusEvidenced, "", ""},
	})
	if got := ruleNames(rep.Ticks[0].Policy); strings.Join(got, ",") != policy.RulePolicySHA256 {
		t.Errorf("T002 policy %v", got)
	}
	// A pinned value does not hide other mismatches.
	f.resign(c2, func(st map[string]any) { pred(st)["tree"] = strings.Repeat("1", 40) }, f.signer)
	rep = f.branchWith(lenient, f.base, c2)
	if tk := rep.Ticks[1]; tk.Outcome != Mismatch || strings.Join(codes(tk.Reasons), ",") != CodeTree {
		t.Errorf("pinned + wrong tree: %s %v", tk.Outcome, codes(tk.Reasons))
	}
}

// TestPolicyRange: a range rule failing fails every regression_only tick it
// counted and is listed on the report.
func TestPolicyRange(t *testing.T) {
	f := newFixture(t)
	c1 := f.tick("T002")
	f.attest(c1, predicate.Verified, f.signer)
	c2 := f.tick("T003")
	f.attest(c2, predicate.RegressionOnly, f.signer)
	rep := f.branchWith(mustPolicy(t, "[regression_only]\nmax_share = 0.4\n"), f.base, c2)
	checkGate(t, rep, Failure, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusRejected, ReasonPolicy, ""},
	})
	if len(rep.Policy) != 1 || rep.Policy[0].Rule != policy.RuleRegressionMaxShare || rep.Policy[0].Status != policy.StatusViolated {
		t.Errorf("report policy %+v", rep.Policy)
	}
	checkGate(t, f.branchWith(mustPolicy(t, "[regression_only]\nmax_share = 0.5\nmax_count = 1\n"), f.base, c2), Success, []tickRow{
		{c1, "T002", StatusEvidenced, "", ""},
		{c2, "T003", StatusEvidenced, "", ""},
	})
}

// TestLoadPolicy: --policy and --policy-rev (read from git at REV, never from
// the work tree, recording the commit), and their errors.
func TestLoadPolicy(t *testing.T) {
	f := newFixture(t)
	src := "version = 1\n[monitor]\nstates = [\"clean\"]\n"
	c := f.commit("policy", map[string]string{".taskproof/policy.toml": src})
	repo, _ := f.open()
	p, err := policy.LoadSource(repo, policy.Source{Rev: string(c) + ":.taskproof/policy.toml"})
	if err != nil || strings.Join(p.RuleNames(), ",") != policy.RuleMonitorState || p.Commit() != string(c) {
		t.Fatalf("LoadPolicy rev: %v %v", p, err)
	}
	file := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err = policy.LoadSource(repo, policy.Source{File: file}); err != nil || p.Name() != file || p.Commit() != "" {
		t.Fatalf("LoadPolicy file: %v", err)
	}
	if p, err = policy.LoadSource(repo, policy.Source{}); err != nil || len(p.RuleNames()) != 0 || p.Commit() != "" {
		t.Fatalf("LoadPolicy default: %v", err)
	}
	for _, bad := range []policy.Source{
		{File: file, Rev: "HEAD:x"},
		{Rev: "HEAD"},
		{Rev: string(f.base) + ":.taskproof/policy.toml"}, // not there at base
		{File: filepath.Join(t.TempDir(), "none.toml")},
	} {
		if _, err := policy.LoadSource(repo, bad); !errors.Is(err, policy.ErrPolicy) {
			t.Errorf("policy.LoadSource(%+v): %v, want ErrPolicy", bad, err)
		}
	}
	if _, err := policy.LoadSource(repo, policy.Source{Rev: "no-such-rev:p.toml"}); !errors.Is(err, gitref.ErrUnknownRevision) {
		t.Errorf("unknown rev: %v", err)
	}
}

// TestPolicyCorpus: on a real project (speckit-youbencha), ticks attested with
// a mix of verdicts and regression reasons; a policy that forbids one reason
// makes exactly the ticks with that reason fail, with the rule in JSON and
// SARIF; every other tick keeps its status.
func TestPolicyCorpus(t *testing.T) {
	dir := testenv.CloneBundle(t, "speckit-youbencha")
	f := &fixture{t: t, dir: dir}
	f.key = newSSHKey(t)
	f.signer = f.sshSigner(f.key)
	f.signers = filepath.Join(t.TempDir(), "allowed_signers")
	f.setAllowed(`ci@example.invalid namespaces="in-toto" ` + f.key.line + "\n")
	head := f.head()
	repo, notes := f.open()
	ticks, err := tick.Range(repo, "", head, tick.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// One attest.Tick per task, verdicts and reasons taking turns; at most 30
	// tasks per commit (docs/format.md#limits: 64 note lines, two per regression_only tick).
	reasons := []string{"planning_work", "no_story", "already_passing"}
	perCommit := map[gitref.Hash]int{}
	attested := 0
	for i, tk := range ticks {
		if tk.Kind != tick.KindTick || perCommit[tk.Commit] >= 30 {
			continue
		}
		req := attest.TickRequest{Commit: tk.Commit, Tasks: []string{tk.TaskID}, Signers: []signer.Signer{f.signer}, Time: fxTime, Verdict: predicate.RegressionOnly}
		if i%4 == 3 {
			req.Verdict = predicate.Verified
		} else {
			req.Regression = map[string]any{"reason": reasons[i%4]}
		}
		if _, err := attest.Tick(context.Background(), repo, notes, req); err != nil {
			t.Logf("%s %s not attested: %v", tk.Commit, tk.TaskID, err)
			continue
		}
		perCommit[tk.Commit]++
		attested++
	}
	if attested < 8 {
		t.Fatalf("only %d ticks attested", attested)
	}

	before := f.branchWith(nil, "", head)
	after := f.branchWith(mustPolicy(t, "[regression_only]\ndenied_reasons = [\"no_story\"]\n"), "", head)
	if len(before.Ticks) != len(after.Ticks) {
		t.Fatalf("%d ticks, then %d", len(before.Ticks), len(after.Ticks))
	}
	rejected := 0
	for i, b := range before.Ticks {
		a := after.Ticks[i]
		noStory := b.Object != nil && b.Object.View != nil && b.Object.View.Regression != nil && b.Object.View.Regression.Reason == "no_story"
		switch {
		case noStory && b.Status == StatusEvidenced:
			rejected++
			if a.Status != StatusRejected || a.Reason != ReasonPolicy || strings.Join(ruleNames(a.Policy), ",") != policy.RuleRegressionReason {
				t.Errorf("%s %s: %s/%s %v, want rejected by %s", a.Commit, a.Task, a.Status, a.Reason, ruleNames(a.Policy), policy.RuleRegressionReason)
			}
		case noStory:
			if a.Status != b.Status || !a.Failing {
				t.Errorf("%s %s: failing before as %s, now %s", a.Commit, a.Task, b.Status, a.Status)
			}
		default:
			if a.Status != b.Status || a.Reason != b.Reason || a.Failing != b.Failing || len(a.Policy) != 0 {
				t.Errorf("%s %s: %s/%s → %s/%s %v", a.Commit, a.Task, b.Status, b.Reason, a.Status, a.Reason, ruleNames(a.Policy))
			}
		}
	}
	if rejected == 0 {
		t.Fatal("no evidenced no_story tick to reject")
	}
	t.Logf("%d ticks, %d rejected by the policy", len(after.Ticks), rejected)
	if after.Conclusion != Failure {
		t.Errorf("conclusion %s", after.Conclusion)
	}
	var js, sarif bytes.Buffer
	if err := WriteJSON(&js, after); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(js.String(), `"rule": "regression_only.reason"`); n < rejected {
		t.Errorf("JSON names the rule %d times, want at least %d", n, rejected)
	}
	if err := writeReport(&sarif, "sarif", after, GateOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(sarif.String(), `"ruleId": "policy/regression_only.reason"`); n != rejected {
		t.Errorf("SARIF has %d results of the policy rule, want %d", n, rejected)
	}
}
