package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/taskproof/taskproof/predicate"
)

// predicateJSON builds a predicate of the given revision (0: the member is
// absent, read as 1) and verdict, then applies mods (a nil value deletes the
// member).
func predicateJSON(t testing.TB, revision int, verdict string, mods map[string]any) *predicate.Predicate {
	t.Helper()
	m := map[string]any{
		"verdict":       verdict,
		"unit":          map[string]any{"format": "speckit", "feature": "001-greeting", "dir": "specs/001-greeting"},
		"task":          map[string]any{"id": "T002", "line_hash": strings.Repeat("a", 64), "title": "Write the acceptance test"},
		"tree":          strings.Repeat("b", 40),
		"spec":          map[string]any{"section": "US1", "section_hash": strings.Repeat("c", 64)},
		"policy_sha256": strings.Repeat("d", 64),
		"time":          "2026-05-01T09:30:00Z",
	}
	if revision > 0 {
		m["revision"] = revision
	}
	switch verdict {
	case "verified", "regression_only":
		m["monitor"] = map[string]any{"state": "clean", "findings": []any{}}
		m["sandbox"] = map[string]any{"mode": "container", "backend": "podman", "network": false}
		m["executor"] = map[string]any{"kind": "agent", "agent": "codex"}
		m["mutation"] = map[string]any{"caught": 8, "missed": 2}
		if revision >= 2 && verdict == "verified" {
			m["red"] = map[string]any{"kind": "assertion", "excerpt": "FAIL", "excerpt_sha256": strings.Repeat("e", 64), "output_sha256": strings.Repeat("f", 64), "withheld": false}
		}
		if revision >= 3 && verdict == "regression_only" {
			m["regression"] = map[string]any{"reason": "planning_work"}
		}
	case "attested", "skipped":
		m["decider"] = map[string]any{"by": "alice@example.com", "reason": "covered by T003"}
	}
	for k, v := range mods {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p, err := predicate.Decode(b)
	if err != nil {
		t.Fatalf("predicate %s: %v", b, err)
	}
	return p
}

func input(p *predicate.Predicate, signers ...Signer) *Input {
	return &Input{
		Predicate: p,
		Statement: Statement{Type: "https://in-toto.io/Statement/v1", PredicateType: predicate.PredicateType,
			SubjectName: p.Unit.Feature + "/" + p.Task.ID, GitCommit: strings.Repeat("1", 40)},
		Signers: signers,
		Commit:  Commit{ID: strings.Repeat("1", 40), Tree: p.Tree, Time: time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)},
		Tick:    &Tick{Path: "specs/001-greeting/tasks.md", Line: 7, Format: "speckit", Feature: "001-greeting", Dir: "specs/001-greeting"},
	}
}

var (
	ssh1  = Signer{Kind: "ssh", KeyID: "SHA256:one", Principal: "dev@example.com"}
	alice = Signer{Kind: "ssh", KeyID: "SHA256:alice", Principal: "alice@example.com"}
)

func mustParse(t testing.TB, src string) *Policy {
	t.Helper()
	p, err := Parse([]byte("version = 1\n"+src), "t.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// only returns the result of rule in rs, failing the test when there is not
// exactly one.
func only(t testing.TB, rs []Result, rule string) Result {
	t.Helper()
	var found []Result
	for _, r := range rs {
		if r.Rule == rule {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d results for rule %s in %+v", len(found), rule, rs)
	}
	return found[0]
}

type evalCase struct {
	name     string
	policy   string
	rule     string
	in       *Input
	status   Status
	contains string // in the message, for violations
}

func runEval(t *testing.T, tests []evalCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, tt.policy)
			r := only(t, p.Evaluate(tt.in), tt.rule)
			if r.Status != tt.status {
				t.Fatalf("%s: status %s (%s), want %s", tt.rule, r.Status, r.Message, tt.status)
			}
			if !strings.Contains(r.Message, tt.contains) {
				t.Errorf("message %q does not contain %q", r.Message, tt.contains)
			}
			if r.Status != StatusNotApplicable && (r.Object != tt.in.Commit.ID || r.Task != tt.in.Statement.SubjectName) {
				t.Errorf("result names %s %s", r.Object, r.Task)
			}
			wantFail := tt.status == StatusEvalError || (tt.status == StatusViolated && r.Level == LevelError)
			if r.Failing() != wantFail {
				t.Errorf("Failing() = %v", r.Failing())
			}
		})
	}
}

// TestBuiltinVerdicts: allowed verdicts, globally and per unit/path glob.
func TestBuiltinVerdicts(t *testing.T) {
	const noSkips = "[[verdicts]]\nname = \"no-skips\"\nallowed = [\"verified\", \"regression_only\", \"attested\"]\n"
	const scoped = "[[verdicts]]\nname = \"core\"\nunits = [\"specs/001-*\"]\npaths = [\"specs/*/tasks.md\"]\nallowed = [\"verified\"]\nlevel = \"warn\"\n"
	other := input(predicateJSON(t, 3, "regression_only", nil))
	other.Tick = &Tick{Path: "specs/002-x/tasks.md", Line: 3, Dir: "specs/002-x"}
	objectsMode := input(predicateJSON(t, 3, "regression_only", nil))
	objectsMode.Tick = nil // the predicate's unit stands in
	runEval(t, []evalCase{
		{"skipped forbidden", noSkips, "verdicts.no-skips", input(predicateJSON(t, 3, "skipped", nil)), StatusViolated, "verdict skipped is not allowed"},
		{"attested allowed", noSkips, "verdicts.no-skips", input(predicateJSON(t, 3, "attested", nil)), StatusPass, ""},
		{"rev1 verified allowed", noSkips, "verdicts.no-skips", input(predicateJSON(t, 0, "verified", nil)), StatusPass, ""},
		{"scoped unit matches", scoped, "verdicts.core", input(predicateJSON(t, 3, "regression_only", nil)), StatusViolated, "regression_only is not allowed"},
		{"scoped unit matches in objects mode", scoped, "verdicts.core", objectsMode, StatusViolated, "regression_only"},
		{"scoped unit does not match", scoped, "verdicts.core", other, StatusNotApplicable, ""},
		{"scoped verified", scoped, "verdicts.core", input(predicateJSON(t, 2, "verified", nil)), StatusPass, ""},
	})
}

// TestBuiltinRegressionReason: allowed and denied reasons, revision-aware (a
// revision 1 or 2 regression_only tick without a reason reads as unrecorded).
func TestBuiltinRegressionReason(t *testing.T) {
	const deny = "[regression_only]\ndenied_reasons = [\"unrecorded\", \"no_story\"]\n"
	const allow = "[regression_only]\nallowed_reasons = [\"planning_work\", \"already_passing\"]\n"
	noStory := map[string]any{"regression": map[string]any{"reason": "no_story"}}
	runEval(t, []evalCase{
		{"rev1 unrecorded denied", deny, RuleRegressionReason, input(predicateJSON(t, 0, "regression_only", nil)), StatusViolated, "reason unrecorded is denied"},
		{"rev2 unrecorded denied", deny, RuleRegressionReason, input(predicateJSON(t, 2, "regression_only", nil)), StatusViolated, "reason unrecorded is denied"},
		{"rev3 no_story denied", deny, RuleRegressionReason, input(predicateJSON(t, 3, "regression_only", noStory)), StatusViolated, "reason no_story is denied"},
		{"rev3 planning_work passes deny", deny, RuleRegressionReason, input(predicateJSON(t, 3, "regression_only", nil)), StatusPass, ""},
		{"rev3 planning_work allowed", allow, RuleRegressionReason, input(predicateJSON(t, 3, "regression_only", nil)), StatusPass, ""},
		{"rev1 unrecorded not allowed", allow, RuleRegressionReason, input(predicateJSON(t, 1, "regression_only", nil)), StatusViolated, "reason unrecorded is not allowed"},
		{"rev3 no reason (malformed) not allowed", allow, RuleRegressionReason, input(predicateJSON(t, 3, "regression_only", map[string]any{"regression": nil})), StatusViolated, "(none)"},
		{"verified not concerned", deny, RuleRegressionReason, input(predicateJSON(t, 3, "verified", nil)), StatusNotApplicable, ""},
	})
}

// TestBuiltinDecisions: deciders by exact name; a reason present and not blank.
func TestBuiltinDecisions(t *testing.T) {
	const att = "[attested]\ndeciders = [\"alice@example.com\"]\nrequire_reason = true\n"
	const skp = "[skipped]\ndeciders = [\"bob@example.com\"]\nrequire_reason = true\nlevel = \"warn\"\n"
	blank := map[string]any{"decider": map[string]any{"by": "alice@example.com", "reason": "  "}}
	caseVariant := map[string]any{"decider": map[string]any{"by": "Alice@example.com", "reason": "x"}}
	runEval(t, []evalCase{
		{"attested by alice", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil), alice), StatusPass, ""},
		{"alice named, another signs", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil), ssh1), StatusViolated, `decider "alice@example.com" did not sign the decision (signed by "dev@example.com")`},
		{"alice named, nobody trusted signs", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil)), StatusViolated, "no trusted signer"},
		{"alice among the principals", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil), Signer{Kind: "ssh", KeyID: "SHA256:two", Principal: "a@example.com,alice@example.com"}), StatusPass, ""},
		{"a pattern is not alice", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil), Signer{Kind: "ssh", KeyID: "SHA256:two", Principal: "*@example.com"}), StatusViolated, "did not sign"},
		{"alice's OpenPGP user id", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil), Signer{Kind: "openpgp", KeyID: "ABCD", Principal: "Alice Example <alice@example.com>"}), StatusPass, ""},
		{"a user id with two addresses names no one", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil), Signer{Kind: "openpgp", KeyID: "ABCD", Principal: "Mallory <mallory@evil> <alice@example.com>"}), StatusViolated, "did not sign"},
		{"alice as a display name is not her address", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", nil), Signer{Kind: "openpgp", KeyID: "ABCD", Principal: "alice@example.com <mallory@example.com>"}), StatusViolated, "did not sign"},
		{"a raw key by keyid", "[attested]\ndeciders = [\"SHA256:raw\"]\n", RuleAttestedDecider, input(predicateJSON(t, 3, "attested", map[string]any{"decider": map[string]any{"by": "SHA256:raw", "reason": "x"}}), Signer{Kind: "raw", KeyID: "SHA256:raw", Principal: "keys/ci.pub"}), StatusPass, ""},
		{"attested by a case variant", att, RuleAttestedDecider, input(predicateJSON(t, 3, "attested", caseVariant)), StatusViolated, `decider "Alice@example.com" may not decide attested`},
		{"attested reason", att, RuleAttestedReason, input(predicateJSON(t, 3, "attested", nil)), StatusPass, ""},
		{"attested blank reason", att, RuleAttestedReason, input(predicateJSON(t, 3, "attested", blank)), StatusViolated, "gives no reason"},
		{"attested rule on skipped", att, RuleAttestedDecider, input(predicateJSON(t, 3, "skipped", nil)), StatusNotApplicable, ""},
		{"skipped by alice", skp, RuleSkippedDecider, input(predicateJSON(t, 3, "skipped", nil)), StatusViolated, "may not decide skipped"},
		{"skipped without decider", skp, RuleSkippedReason, input(predicateJSON(t, 0, "skipped", map[string]any{"decider": nil})), StatusViolated, "gives no reason"},
	})
}

// TestBuiltinVerifiedRed: verified ticks show a red run of an allowed kind;
// red is only expected from revision 2.
func TestBuiltinVerifiedRed(t *testing.T) {
	const req = "[verified]\nrequire_red = true\n"
	const reqAssertion = "[verified]\nrequire_red = true\nred_kinds = [\"assertion\"]\n"
	const exempt = "[verified]\nrequire_red = true\nexempt_revision_1 = true\n"
	missing := map[string]any{"red": map[string]any{"kind": "missing_symbol", "excerpt": nil, "excerpt_sha256": nil, "output_sha256": strings.Repeat("f", 64), "withheld": true}}
	rev1Red := map[string]any{"red": map[string]any{"kind": "assertion", "excerpt": "x", "excerpt_sha256": "y", "output_sha256": "z", "withheld": false}}
	runEval(t, []evalCase{
		{"rev2 assertion", req, RuleVerifiedRed, input(predicateJSON(t, 2, "verified", nil)), StatusPass, ""},
		{"rev3 missing_symbol", req, RuleVerifiedRed, input(predicateJSON(t, 3, "verified", missing)), StatusPass, ""},
		{"rev3 missing_symbol not allowed", reqAssertion, RuleVerifiedRed, input(predicateJSON(t, 3, "verified", missing)), StatusViolated, "red kind missing_symbol is not allowed"},
		{"rev3 without red", req, RuleVerifiedRed, input(predicateJSON(t, 3, "verified", map[string]any{"red": nil})), StatusViolated, "without a red run"},
		{"rev1 has no red", req, RuleVerifiedRed, input(predicateJSON(t, 0, "verified", nil)), StatusViolated, "revision 1 predicate records no red run"},
		{"rev1 red is not read", req, RuleVerifiedRed, input(predicateJSON(t, 1, "verified", rev1Red)), StatusViolated, "revision 1"},
		{"rev1 exempted", exempt, RuleVerifiedRed, input(predicateJSON(t, 0, "verified", nil)), StatusNotApplicable, ""},
		{"rev2 not exempted", exempt, RuleVerifiedRed, input(predicateJSON(t, 2, "verified", map[string]any{"red": nil})), StatusViolated, "without a red run"},
		{"regression_only not concerned", req, RuleVerifiedRed, input(predicateJSON(t, 3, "regression_only", nil)), StatusNotApplicable, ""},
	})
}

// TestBuiltinEvidence: monitor, mutation, sandbox and executor of ticks.
func TestBuiltinEvidence(t *testing.T) {
	const mon = "[monitor]\nstates = [\"clean\", \"unreviewed\"]\n"
	const mut = "[mutation]\nmin_score = 0.75\n"
	const sbx = "[sandbox]\nrequire_network_off = true\n"
	const exe = "[executor]\nkinds = [\"human\"]\n"
	mutation := func(caught, missed any) map[string]any {
		return map[string]any{"mutation": map[string]any{"caught": caught, "missed": missed}}
	}
	runEval(t, []evalCase{
		{"monitor clean", mon, RuleMonitorState, input(predicateJSON(t, 3, "verified", nil)), StatusPass, ""},
		{"monitor unreviewed", mon, RuleMonitorState, input(predicateJSON(t, 1, "regression_only", map[string]any{"monitor": map[string]any{"state": "unreviewed"}})), StatusPass, ""},
		{"monitor suspected", mon, RuleMonitorState, input(predicateJSON(t, 2, "verified", map[string]any{"monitor": map[string]any{"state": "suspected"}})), StatusViolated, "monitor state suspected"},
		{"monitor absent", mon, RuleMonitorState, input(predicateJSON(t, 3, "verified", map[string]any{"monitor": nil})), StatusViolated, "no monitor state"},
		{"monitor on a decision", mon, RuleMonitorState, input(predicateJSON(t, 3, "attested", nil)), StatusNotApplicable, ""},
		{"mutation 8/10", mut, RuleMutationScore, input(predicateJSON(t, 3, "verified", nil)), StatusPass, ""},
		{"mutation 3/4 exactly", mut, RuleMutationScore, input(predicateJSON(t, 3, "verified", mutation(3, 1))), StatusPass, ""},
		{"mutation 2/4", mut, RuleMutationScore, input(predicateJSON(t, 2, "verified", mutation(2, 2))), StatusViolated, "mutation score 0.500"},
		{"mutation no mutants", mut, RuleMutationScore, input(predicateJSON(t, 3, "verified", mutation(0, 0))), StatusViolated, "no mutant"},
		{"mutation not numbers", mut, RuleMutationScore, input(predicateJSON(t, 3, "verified", mutation("8", 2))), StatusViolated, "no numeric"},
		{"mutation null", mut, RuleMutationScore, input(predicateJSON(t, 3, "verified", map[string]any{"mutation": nil})), StatusNotApplicable, ""},
		{"sandbox network false", sbx, RuleSandboxNetwork, input(predicateJSON(t, 3, "verified", nil)), StatusPass, ""},
		{"sandbox network off", sbx, RuleSandboxNetwork, input(predicateJSON(t, 3, "verified", map[string]any{"sandbox": map[string]any{"network": "off"}})), StatusPass, ""},
		{"sandbox network on", sbx, RuleSandboxNetwork, input(predicateJSON(t, 1, "regression_only", map[string]any{"sandbox": map[string]any{"network": true}})), StatusViolated, "sandbox network is true"},
		{"sandbox absent", sbx, RuleSandboxNetwork, input(predicateJSON(t, 3, "verified", map[string]any{"sandbox": nil})), StatusViolated, "no sandbox network"},
		{"executor agent", exe, RuleExecutorKind, input(predicateJSON(t, 3, "verified", nil)), StatusViolated, "executor kind agent is not allowed"},
		{"executor human", exe, RuleExecutorKind, input(predicateJSON(t, 3, "verified", map[string]any{"executor": map[string]any{"kind": "human"}})), StatusPass, ""},
		{"executor absent", exe, RuleExecutorKind, input(predicateJSON(t, 3, "verified", map[string]any{"executor": nil})), StatusViolated, "no executor kind"},
	})
}

// TestBuiltinPolicySHA256AndSigners: a strict pinned list; m-of-n distinct
// trusted keys (a key counts once) and allowed kinds.
func TestBuiltinPolicySHA256AndSigners(t *testing.T) {
	pinned := "[policy_sha256]\npinned = [\"" + strings.Repeat("d", 64) + "\"]\n"
	other := "[policy_sha256]\npinned = [\"" + strings.Repeat("0", 64) + "\"]\n"
	lenient := other + "accept_recomputed = true\n"
	const two = "[signers]\nmin = 2\n"
	const sshOnly = "[signers]\nkinds = [\"ssh\"]\nmin = 1\n"
	const named = "[signers]\nmin = 1\nkeyids = [\"SHA256:two\"]\n"
	ssh2 := Signer{Kind: "ssh", KeyID: "SHA256:two"}
	pgp := Signer{Kind: "openpgp", KeyID: "ABCDEF"}
	p := predicateJSON(t, 3, "verified", nil)
	runEval(t, []evalCase{
		{"pinned", pinned, RulePolicySHA256, input(p), StatusPass, ""},
		{"not pinned", other, RulePolicySHA256, input(p), StatusViolated, "is not pinned"},
		{"two distinct keys", two, RuleSignersMin, input(p, ssh1, ssh2), StatusPass, ""},
		{"one key twice", two, RuleSignersMin, input(p, ssh1, ssh1), StatusViolated, "1 distinct trusted key(s) signed, at least 2"},
		{"unsigned", two, RuleSignersMin, input(p), StatusViolated, "0 distinct"},
		{"ssh kind", sshOnly, RuleSignersKinds, input(p, ssh1), StatusPass, ""},
		{"openpgp kind", sshOnly, RuleSignersKinds, input(p, ssh1, pgp), StatusViolated, "is a openpgp key"},
		{"openpgp does not count", sshOnly, RuleSignersMin, input(p, pgp), StatusViolated, "0 distinct"},
		{"key not among n", named, RuleSignersMin, input(p, ssh1), StatusViolated, "0 distinct"},
		{"key among n", named, RuleSignersMin, input(p, ssh1, ssh2), StatusPass, ""},
		{"one key as ssh and raw", two, RuleSignersMin, input(p, Signer{Kind: "ssh", KeyID: "SHA256:k", Key: "spki:k"}, Signer{Kind: "raw", KeyID: "k", Key: "spki:k"}), StatusViolated, "1 distinct trusted key(s) signed, at least 2"},
		{"two keys as ssh and raw", two, RuleSignersMin, input(p, Signer{Kind: "ssh", KeyID: "SHA256:k", Key: "spki:k"}, Signer{Kind: "raw", KeyID: "j", Key: "spki:j"}), StatusPass, ""},
	})
	if r := mustParse(t, lenient).Evaluate(input(p)); len(r) != 0 {
		t.Errorf("accept_recomputed: results %+v, want none (verify checks the recomputed value)", r)
	}
	if !mustParse(t, lenient).PinnedPolicySHA256(strings.Repeat("0", 64)) || mustParse(t, lenient).PinnedPolicySHA256(strings.Repeat("d", 64)) {
		t.Error("PinnedPolicySHA256")
	}
}

// TestCEL: custom rules over revision 1, 2 and 3 predicates, with the
// revision-aware defaults; a rule erroring at evaluation fails the tick.
func TestCEL(t *testing.T) {
	rule := func(when, require string, level ...string) string {
		s := "[[rule]]\nname = \"r\"\nmessage = \"no\"\n"
		if when != "" {
			s += fmt.Sprintf("when = %q\n", when)
		}
		s += fmt.Sprintf("require = %q\n", require)
		if len(level) > 0 {
			s += fmt.Sprintf("level = %q\n", level[0])
		}
		return s
	}
	v1 := input(predicateJSON(t, 0, "regression_only", nil))
	v2 := input(predicateJSON(t, 2, "verified", nil))
	v3 := input(predicateJSON(t, 3, "regression_only", map[string]any{"regression": map[string]any{"reason": "not_red", "red_class": "build_error"}}))
	v3skip := input(predicateJSON(t, 3, "skipped", nil))
	unsigned := input(predicateJSON(t, 3, "verified", nil))
	unsigned.Signers = nil
	v2.Signers = []Signer{ssh1}
	runEval(t, []evalCase{
		{"rev1 reads revision 1", rule("", "predicate.revision == 1"), "r", v1, StatusPass, ""},
		{"rev1 regression unrecorded", rule("predicate.verdict == 'regression_only'", "predicate.regression.reason != 'unrecorded'"), "r", v1, StatusViolated, "no"},
		{"rev1 red is null", rule("", "predicate.red == null && !has(predicate.red)"), "r", v1, StatusPass, ""},
		{"rev2 red kind", rule("", "predicate.red.kind == 'assertion' && !predicate.red.withheld"), "r", v2, StatusPass, ""},
		{"rev2 regression null on verified", rule("", "predicate.regression == null"), "r", v2, StatusPass, ""},
		{"rev3 not_red class", rule("", "predicate.regression.red_class == 'build_error'"), "r", v3, StatusPass, ""},
		{"rev3 when false", rule("predicate.verdict == 'verified'", "false"), "r", v3, StatusNotApplicable, ""},
		{"dynamic monitor", rule("", "predicate.monitor.state == 'clean' && predicate.sandbox.network == false"), "r", v2, StatusPass, ""},
		{"dynamic mutation numbers", rule("", "double(predicate.mutation.caught) / double(predicate.mutation.caught + predicate.mutation.missed) >= 0.8"), "r", v2, StatusPass, ""},
		{"cross-type comparison", rule("", "predicate.mutation.caught > 7.5"), "r", v2, StatusPass, ""},
		{"statement and subject", rule("", "statement.predicateType == 'https://speccoder.dev/task-verification/v0' && subject.name == '001-greeting/T002' && subject.gitCommit == commit.id"), "r", v2, StatusPass, ""},
		{"signers", rule("", "size(signers) == 1 && signers[0].kind == 'ssh' && signers[0].principal == 'dev@example.com'"), "r", v2, StatusPass, ""},
		{"no signers", rule("", "size(signers) >= 1"), "r", unsigned, StatusViolated, "no"},
		{"commit time", rule("", "commit.time > timestamp('2026-01-01T00:00:00Z') && predicate.time == commit.time"), "r", v2, StatusPass, ""},
		{"tick", rule("", "tick.path == 'specs/001-greeting/tasks.md' && tick.line == 7 && tick.unit.format == 'speckit'"), "r", v2, StatusPass, ""},
		{"decider", rule("predicate.verdict == 'skipped'", "predicate.decider.by.endsWith('@example.com')"), "r", v3skip, StatusPass, ""},
		{"decider null on ticks", rule("", "predicate.decider == null"), "r", v3, StatusPass, ""},
		{"missing map key errors", rule("", "predicate.monitor.nope == 'x'"), "r", v2, StatusEvalError, "require:"},
		{"null member errors", rule("", "predicate.red.kind == 'assertion'"), "r", v1, StatusEvalError, `require: no such key: kind (the statement has no predicate.red.kind: guard what a statement may lack with has(), in when = "has(predicate.red) && has(predicate.red.kind)"`},
		{"null member fails closed", rule("", "predicate.red.kind != 'build_error'"), "r", v1, StatusEvalError, "require:"},
		{"warn rule erroring still fails", rule("", "predicate.monitor.nope == 'x'", "warn"), "r", v2, StatusEvalError, ""},
		{"when erroring", rule("predicate.mutation.nope == 1", "true"), "r", v2, StatusEvalError, `when: no such key: nope (the statement has no predicate.mutation.nope: guard what a statement may lack with has(), in when = "has(predicate.mutation) && has(predicate.mutation.nope)" or as require = "!(has(predicate.mutation) && has(predicate.mutation.nope)) || …"`},
		{"guarded rule holds", rule("has(predicate.red) && has(predicate.red.kind)", "predicate.red.kind == 'assertion'"), "r", v1, StatusNotApplicable, ""},
		{"warn violation", rule("", "false", "warn"), "r", v2, StatusViolated, "no"},
	})
}

// TestRange: regression_only max count and max share over a range.
func TestRange(t *testing.T) {
	p := mustParse(t, "[regression_only]\nmax_count = 2\nmax_share = 0.5\nlevel = \"warn\"\n")
	items := func(verdicts ...string) []RangeItem {
		out := []RangeItem{}
		for i, v := range verdicts {
			out = append(out, RangeItem{Object: fmt.Sprint(i), Task: "f/T", Verdict: v})
		}
		return out
	}
	tests := []struct {
		name         string
		items        []RangeItem
		count, share Status
	}{
		{"empty", items(), StatusPass, StatusPass},
		{"half", items("regression_only", "verified"), StatusPass, StatusPass},
		{"two of three", items("regression_only", "regression_only", "verified"), StatusPass, StatusViolated},
		{"three of six", items("regression_only", "regression_only", "regression_only", "verified", "attested", ""), StatusViolated, StatusPass},
		{"unreadable ticks count in the range", items("regression_only", "", ""), StatusPass, StatusPass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := p.EvaluateRange(tt.items)
			if c := only(t, rs, RuleRegressionMaxCount); c.Status != tt.count || c.Level != LevelWarn {
				t.Errorf("max_count: %+v, want %s", c, tt.count)
			}
			if s := only(t, rs, RuleRegressionMaxShare); s.Status != tt.share {
				t.Errorf("max_share: %+v, want %s", s, tt.share)
			}
		})
	}
	if rs := mustParse(t, "[regression_only]\ndenied_reasons = [\"no_story\"]\n").EvaluateRange(items("regression_only")); rs != nil {
		t.Errorf("no range rules: %+v", rs)
	}
}

// TestEvaluateNil: no predicate → every rule not applicable (nothing panics).
func TestEvaluateNil(t *testing.T) {
	b := mustParse(t, "[signers]\nmin = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.red.kind == 'x'\"\n")
	for _, in := range []*Input{nil, {}} {
		for _, r := range b.Evaluate(in) {
			if r.Status != StatusNotApplicable {
				t.Errorf("%+v", r)
			}
		}
	}
}
