package policy

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestParseErrors: a policy that cannot be trusted to mean what it says does
// not load (a rule can never fail open). Each error matches
// ErrPolicy, names the file, and names the rule or the position.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // substring of the message
		line, col int    // 0: no position expected
		rule      string
	}{
		{"misspelled key", "version = 1\n[regression_only]\ndenied_reason = [\"no_story\"]\n", `unknown key "regression_only.denied_reason"`, 3, 1, ""},
		{"misspelled table", "version = 1\n\n[verdict]\nallowed = [\"verified\"]\n", `unknown key "verdict`, 3, 2, ""},
		{"misspelled rule key", "version = 1\n[[rule]]\nname = \"a\"\nrequires = \"true\"\n", `unknown key "rule.requires"`, 4, 1, ""},
		{"not toml", "version = \n", "", 1, 0, ""},
		{"wrong type", "version = 1\n[regression_only]\nmax_count = \"3\"\n", "regression_only.max_count: want an integer, not a string", 3, 13, ""},
		{"wrong type of version", "version = \"1\"\n", "version: want an integer, not a string", 1, 11, ""},
		{"wrong type of a list", "version = 1\n[regression_only]\nallowed_reasons = \"no_story\"\n", "regression_only.allowed_reasons: want an array of strings, not a string", 3, 19, ""},
		{"wrong type of a flag", "version = 1\n[verified]\nrequire_red = \"yes\"\n", "verified.require_red: want a boolean (true or false), not a string", 3, 15, ""},
		{"wrong type of a table", "version = 1\nsigners = 2\n", "signers: want a table, not an integer", 2, 11, ""},
		{"no version", "[monitor]\nstates = [\"clean\"]\n", "version is missing", 0, 0, ""},
		{"version 2", "version = 2\n", "version 2 is not supported", 0, 0, ""},
		{"cel misspelled field", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.verdikt == 'verified'\"\n", "undefined field 'verdikt'", 0, 0, "r"},
		{"cel misspelled nested field", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.red.knd == 'assertion'\"\n", "undefined field 'knd'", 0, 0, "r"},
		{"cel misspelled field of a nullable member", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.regression.reson == 'no_story'\"\n", "undefined field 'reson' of predicate.regression", 0, 0, "r"},
		{"cel misspelled field in when", "version = 1\n[[rule]]\nname = \"r\"\nwhen = \"has(predicate.decider.bye)\"\nrequire = \"true\"\n", "when: undefined field 'bye'", 0, 0, "r"},
		{"cel unknown variable", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"verdict == 'verified'\"\n", "undeclared reference to 'verdict'", 0, 0, "r"},
		{"cel require returns a string", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.verdict\"\n", "require: has type string, want bool", 0, 0, "r"},
		{"cel require dyn", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.monitor.state\"\n", "want bool", 0, 0, "r"},
		{"cel when returns an int", "version = 1\n[[rule]]\nname = \"r\"\nwhen = \"predicate.revision\"\nrequire = \"true\"\n", "when: has type int, want bool", 0, 0, "r"},
		{"cel empty require", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"\"\n", "require is empty", 0, 0, "r"},
		{"cel blank require", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"  \"\n", "require is empty", 0, 0, "r"},
		{"cel missing require", "version = 1\n[[rule]]\nname = \"r\"\n", "require is empty", 0, 0, "r"},
		{"cel syntax error", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"predicate.verdict ==\"\n", "require:", 0, 0, "r"},
		{"cel bad name", "version = 1\n[[rule]]\nname = \"a.b\"\nrequire = \"true\"\n", "name", 0, 0, "a.b"},
		{"cel no name", "version = 1\n[[rule]]\nrequire = \"true\"\n", "name", 0, 0, ""},
		{"cel duplicate name", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"true\"\n[[rule]]\nname = \"r\"\nrequire = \"true\"\n", "duplicate", 0, 0, "r"},
		{"bad level", "version = 1\n[[rule]]\nname = \"r\"\nrequire = \"true\"\nlevel = \"warning\"\n", `level "warning"`, 0, 0, "r"},
		{"unknown verdict", "version = 1\n[[verdicts]]\nallowed = [\"verifed\"]\n", `unknown value "verifed"`, 0, 0, "verdicts[0]"},
		{"empty verdicts", "version = 1\n[[verdicts]]\nunits = [\"specs/*\"]\n", "allowed is empty", 0, 0, "verdicts[0]"},
		{"bad glob", "version = 1\n[[verdicts]]\nname = \"g\"\nunits = [\"specs/[\"]\nallowed = [\"verified\"]\n", "glob", 0, 0, "verdicts.g"},
		{"unknown reason", "version = 1\n[regression_only]\nallowed_reasons = [\"planning\"]\n", `unknown value "planning"`, 0, 0, RuleRegressionReason},
		{"share above 1", "version = 1\n[regression_only]\nmax_share = 1.5\n", "max_share", 0, 0, RuleRegressionMaxShare},
		{"negative count", "version = 1\n[regression_only]\nmax_count = -1\n", "negative", 0, 0, RuleRegressionMaxCount},
		{"unknown red kind", "version = 1\n[verified]\nrequire_red = true\nred_kinds = [\"absent\"]\n", `unknown value "absent"`, 0, 0, RuleVerifiedRed},
		{"unknown monitor state", "version = 1\n[monitor]\nstates = [\"clear\"]\n", `unknown value "clear"`, 0, 0, RuleMonitorState},
		{"empty monitor states", "version = 1\n[monitor]\n", "states is empty", 0, 0, RuleMonitorState},
		{"mutation without score", "version = 1\n[mutation]\n", "min_score", 0, 0, RuleMutationScore},
		{"mutation score above 1", "version = 1\n[mutation]\nmin_score = 80\n", "min_score", 0, 0, RuleMutationScore},
		{"empty executor kinds", "version = 1\n[executor]\nkinds = []\n", "kinds is empty", 0, 0, RuleExecutorKind},
		{"pinned not hex", "version = 1\n[policy_sha256]\npinned = [\"ABC\"]\n", "64 lowercase hex", 0, 0, RulePolicySHA256},
		{"accept_recomputed alone", "version = 1\n[policy_sha256]\naccept_recomputed = true\n", "goes with a pinned list", 0, 0, RulePolicySHA256},
		{"signers min 0", "version = 1\n[signers]\nmin = 0\n", "at least 1", 0, 0, RuleSignersMin},
		{"unknown signer kind", "version = 1\n[signers]\nkinds = [\"x509\"]\n", `unknown value "x509"`, 0, 0, RuleSignersKinds},
		{"empty decider", "version = 1\n[attested]\ndeciders = [\" \"]\n", "empty name", 0, 0, "attested"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.src), "p.toml")
			if err == nil {
				t.Fatalf("Parse loaded %v, want an error", p.RuleNames())
			}
			if !errors.Is(err, ErrPolicy) {
				t.Errorf("error %v does not match ErrPolicy", err)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error", err)
			}
			if pe.File != "p.toml" || !strings.Contains(err.Error(), "p.toml") {
				t.Errorf("error %q does not name the file", err)
			}
			if !strings.Contains(pe.Msg, tt.want) {
				t.Errorf("message %q does not contain %q", pe.Msg, tt.want)
			}
			// The message speaks of the file, not of the Go types it is
			// decoded into.
			if strings.Contains(pe.Msg, "struct") || strings.Contains(pe.Msg, "policy.") {
				t.Errorf("message %q names Go types", pe.Msg)
			}
			if tt.line != 0 && (pe.Line != tt.line || (tt.col != 0 && pe.Column != tt.col)) {
				t.Errorf("position %d:%d, want %d:%d", pe.Line, pe.Column, tt.line, tt.col)
			}
			if pe.Rule != tt.rule {
				t.Errorf("rule %q, want %q", pe.Rule, tt.rule)
			}
		})
	}
}

// TestLoad: an unreadable file is a policy error naming it.
func TestLoad(t *testing.T) {
	_, err := Load("testdata/does-not-exist.toml")
	if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "does-not-exist.toml") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

// TestDefault: the embedded default loads and holds no rule (today's
// behaviour: the policy_sha256 check of docs/format.md#checks-in-order alone, made by verify).
func TestDefault(t *testing.T) {
	p := Default()
	if names := p.RuleNames(); len(names) != 0 {
		t.Errorf("default policy rules %v, want none", names)
	}
	if p.PinnedPolicySHA256(strings.Repeat("0", 64)) {
		t.Error("default policy pins a policy_sha256")
	}
	if p.HasRangeRules() {
		t.Error("default policy has range rules")
	}
	if _, err := Parse(DefaultText(), "default"); err != nil {
		t.Errorf("DefaultText does not parse: %v", err)
	}
}

// TestExample: the documented example policy (testdata/policy/example.toml)
// loads, with every built-in rule and its CEL rules.
func TestExample(t *testing.T) {
	b, err := os.ReadFile("../testdata/policy/example.toml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(b, "example.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"verdicts.no-skips", "verdicts.core-verified-only", RuleRegressionReason,
		RuleAttestedDecider, RuleAttestedReason, RuleSkippedReason, RuleVerifiedRed, RuleMonitorState,
		RuleMutationScore, RuleSandboxNetwork, RuleExecutorKind, RuleSignersKinds, RuleSignersMin,
		"recent-predicates", "no-agent-on-security", "signed-by-team", RuleRegressionMaxCount, RuleRegressionMaxShare}
	if got := p.RuleNames(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rules\n got %v\nwant %v", got, want)
	}
	if !p.PinnedPolicySHA256("6746c220657b8bc11346de7a9de0d3f100a6effb73cf41056aa0b3f39a1146b1") {
		t.Error("the pinned value is not pinned")
	}
}

// TestRequireRecomputedPolicySHA256: [policy_sha256] require_recomputed is
// read alone (no pinned list needed) and is off by default and in the
// embedded default policy.
func TestRequireRecomputedPolicySHA256(t *testing.T) {
	for text, want := range map[string]bool{
		"version = 1\n": false,
		"version = 1\n[policy_sha256]\nrequire_recomputed = true\n":                                                 true,
		"version = 1\n[policy_sha256]\nrequire_recomputed = false\n":                                                false,
		"version = 1\n[policy_sha256]\nrequire_recomputed = true\npinned = [\"" + strings.Repeat("a", 64) + "\"]\n": true,
	} {
		p, err := Parse([]byte(text), "p.toml")
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := p.RequireRecomputedPolicySHA256(); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
	if Default().RequireRecomputedPolicySHA256() {
		t.Error("the default policy requires the recomputed value")
	}
}
