package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// Names of the built-in rules, as results and reports carry them. A
// [[verdicts]] entry is "verdicts.<name>", or "verdicts[<index>]" without a
// name; a CEL rule is its own name (which has no '.').
const (
	RuleRegressionReason   = "regression_only.reason"
	RuleRegressionMaxCount = "regression_only.max_count"
	RuleRegressionMaxShare = "regression_only.max_share"
	RuleAttestedDecider    = "attested.decider"
	RuleAttestedReason     = "attested.reason"
	RuleSkippedDecider     = "skipped.decider"
	RuleSkippedReason      = "skipped.reason"
	RuleVerifiedRed        = "verified.red"
	RuleMonitorState       = "monitor.state"
	RuleMutationScore      = "mutation.score"
	RuleSandboxNetwork     = "sandbox.network"
	RuleExecutorKind       = "executor.kind"
	RulePolicySHA256       = "policy_sha256.pinned"
	RuleSignersMin         = "signers.min"
	RuleSignersKinds       = "signers.kinds"
)

// Status is one rule's result on one object.
type Status string

// The statuses. Only StatusViolated and StatusEvalError count against an
// object; StatusNotApplicable is a rule whose verdict, `when` or scope does not
// cover the object.
const (
	StatusPass          Status = "pass"
	StatusViolated      Status = "violated"
	StatusNotApplicable Status = "not_applicable"
	StatusEvalError     Status = "eval_error"
)

// Result is one rule's result on one object (or, for range rules, on the
// range): {rule, level, message, object, task} in reports.
type Result struct {
	Rule    string `json:"rule"`
	Level   Level  `json:"level"`
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	// Object is the commit the result is about ("" for a range rule).
	Object string `json:"object,omitempty"`
	// Task is the subject name <feature>/<task id> ("" for a range rule).
	Task string `json:"task,omitempty"`
}

// Counts reports whether the result counts against its object: a violated
// rule or one that failed to evaluate.
func (r Result) Counts() bool { return r.Status == StatusViolated || r.Status == StatusEvalError }

// Failing reports whether the result fails its tick (and the verification): a
// violated rule of level error, or any rule that failed to evaluate (a rule
// can never fail open).
func (r Result) Failing() bool {
	return r.Status == StatusEvalError || (r.Status == StatusViolated && r.Level == LevelError)
}

// Failing reports whether any of rs fails (see Result.Failing).
func Failing(rs []Result) bool {
	for _, r := range rs {
		if r.Failing() {
			return true
		}
	}
	return false
}

// Input is what the per-object rules see of one object (docs/format.md#checks-in-order): the
// predicate (whose revision-aware View is taken when View is nil), the
// Statement, the trusted signers, the commit and the tick.
type Input struct {
	Predicate *predicate.Predicate
	View      *predicate.View
	Statement Statement
	Signers   []Signer
	Commit    Commit
	// Tick is where the task was ticked; nil in objects mode, where the
	// predicate's unit's tasks.md (line 0) stands in for it.
	Tick *Tick
}

// Statement is the Statement's type and predicateType and its one subject.
type Statement struct {
	Type          string
	PredicateType string
	SubjectName   string
	GitCommit     string
}

// Signer is a trusted key credited with the statement's signature (docs/format.md#signatures-dsse-v1):
// Kind is ssh, openpgp, raw or sigstore.
type Signer struct {
	Kind, KeyID, Principal string
	// Key names the signer's public key material: signers with one Key are
	// one key, whatever wrapper (SSH, raw, OpenPGP, Sigstore) carried each
	// signature. "" counts the signer by Kind and KeyID.
	Key string
}

// Commit is the object the statement is about.
type Commit struct {
	ID, Tree string
	// Time is the committer time.
	Time time.Time
}

// Tick is where a task was ticked: the tasks file, the 1-based line, the unit.
type Tick struct {
	Path    string
	Line    int
	Format  string
	Feature string
	Dir     string
}

// RangeItem is one tick of a range, for the range rules: Verdict is "" when
// the tick's predicate could not be read (it still counts in the range).
type RangeItem struct {
	Object, Task, Verdict string
}

func (in *Input) view() predicate.View {
	if in.View != nil {
		return *in.View
	}
	return in.Predicate.Read()
}

// tick returns the tick, or the stand-in of objects mode.
func (in *Input) tick() Tick {
	if in.Tick != nil {
		return *in.Tick
	}
	u := in.Predicate.Unit
	t := Tick{Format: u.Format, Feature: u.Feature, Dir: u.Dir}
	if u.Dir != "" {
		t.Path = specfmt.Unit{Format: specfmt.Format(u.Format), Feature: u.Feature, Dir: u.Dir}.TasksPath()
	}
	return t
}

// PinnedPolicySHA256 reports whether the policy pins value: a predicate whose
// policy_sha256 is pinned is accepted even when it differs from the value
// recomputed from speccoder.toml (the verify package then drops that mismatch).
func (p *Policy) PinnedPolicySHA256(value string) bool {
	if p.file.PolicySHA256 == nil {
		return false
	}
	for _, h := range p.file.PolicySHA256.Pinned {
		if h == value {
			return true
		}
	}
	return false
}

// RequireRecomputedPolicySHA256 reports whether the policy sets
// [policy_sha256] require_recomputed: a policy_sha256 that differs from the
// recomputed value fails even on a statement another tool wrote, instead of
// the warning policy_sha256_unverified
// (docs/format.md#policy_sha256-of-other-writers).
func (p *Policy) RequireRecomputedPolicySHA256() bool {
	return p.file.PolicySHA256 != nil && p.file.PolicySHA256.RequireRecomputed
}

// HasRangeRules reports whether the policy has rules over a whole range.
func (p *Policy) HasRangeRules() bool {
	r := p.file.RegressionOnly
	return r != nil && (r.MaxCount != nil || r.MaxShare != nil)
}

// RuleNames returns every rule of the policy in evaluation order: the
// per-object rules, then the range rules.
func (p *Policy) RuleNames() []string {
	var out []string
	res := p.Evaluate(nil)
	for _, r := range res {
		out = append(out, r.Rule)
	}
	for _, r := range p.EvaluateRange(nil) {
		out = append(out, r.Rule)
	}
	return out
}

// Evaluate runs every per-object rule on in, in policy order: the built-in
// rules the policy sets, then the CEL rules. It returns one Result per rule
// (StatusPass and StatusNotApplicable included). A nil in gives every rule as
// not applicable (used to list them). Bad input never panics: a CEL rule that
// fails at evaluation is StatusEvalError.
func (p *Policy) Evaluate(in *Input) []Result {
	e := evaluation{p: p, in: in}
	if in != nil && in.Predicate != nil {
		e.view = in.view()
		e.verdict = string(in.Predicate.Verdict)
		e.object, e.task = in.Commit.ID, in.Statement.SubjectName
	} else {
		e.in = nil
	}
	f := &p.file
	for i := range p.scopes {
		e.verdictScope(&p.scopes[i])
	}
	if r := f.RegressionOnly; r != nil && (len(r.Allowed) > 0 || len(r.Denied) > 0) {
		e.regressionReason(r)
	}
	if d := f.Attested; d != nil {
		e.decision(d, predicate.Attested, RuleAttestedDecider, RuleAttestedReason)
	}
	if d := f.Skipped; d != nil {
		e.decision(d, predicate.Skipped, RuleSkippedDecider, RuleSkippedReason)
	}
	if v := f.Verified; v != nil && v.RequireRed {
		e.verifiedRed(v)
	}
	if m := f.Monitor; m != nil {
		e.monitor(m)
	}
	if m := f.Mutation; m != nil {
		e.mutation(m)
	}
	if s := f.Sandbox; s != nil && s.RequireNetworkOff {
		e.sandbox(s)
	}
	if x := f.Executor; x != nil {
		e.executor(x)
	}
	if s := f.PolicySHA256; s != nil && len(s.Pinned) > 0 && !s.AcceptRecomputed {
		e.policySHA(s)
	}
	if s := f.Signers; s != nil {
		e.signers(s)
	}
	if len(p.rules) > 0 {
		var act *activation
		if e.in != nil {
			act = newActivation(e.in, e.view)
		}
		for _, r := range p.rules {
			if act == nil {
				e.add(r.name, r.level, StatusNotApplicable, "")
				continue
			}
			st, msg := r.eval(act)
			e.add(r.name, r.level, st, msg)
		}
	}
	return e.out
}

// EvaluateRange runs the range rules (regression_only max_count and
// max_share) over the ticks of a range. The share is the regression_only
// ticks over all items (an empty range has share 0). A nil items lists the
// rules as not applicable.
func (p *Policy) EvaluateRange(items []RangeItem) []Result {
	r := p.file.RegressionOnly
	if r == nil || (r.MaxCount == nil && r.MaxShare == nil) {
		return nil
	}
	n := 0
	for _, it := range items {
		if it.Verdict == string(predicate.RegressionOnly) {
			n++
		}
	}
	var out []Result
	if r.MaxCount != nil {
		res := Result{Rule: RuleRegressionMaxCount, Level: r.Level, Status: StatusNotApplicable}
		if items != nil {
			res.Status, res.Message = StatusPass, fmt.Sprintf("%d regression_only ticks, at most %d allowed", n, *r.MaxCount)
			if n > *r.MaxCount {
				res.Status = StatusViolated
			}
		}
		out = append(out, res)
	}
	if r.MaxShare != nil {
		res := Result{Rule: RuleRegressionMaxShare, Level: r.Level, Status: StatusNotApplicable}
		if items != nil {
			share := 0.0
			if len(items) > 0 {
				share = float64(n) / float64(len(items))
			}
			res.Status, res.Message = StatusPass, fmt.Sprintf("%d of %d ticks regression_only (%.1f%%), at most %.1f%% allowed", n, len(items), 100*share, 100**r.MaxShare)
			if share > *r.MaxShare {
				res.Status = StatusViolated
			}
		}
		out = append(out, res)
	}
	return out
}

// evaluation collects one object's results.
type evaluation struct {
	p            *Policy
	in           *Input
	view         predicate.View
	verdict      string
	object, task string
	out          []Result
}

func (e *evaluation) add(rule string, level Level, st Status, msg string) {
	e.out = append(e.out, Result{Rule: rule, Level: level, Status: st, Message: msg, Object: e.object, Task: e.task})
}

// check adds a rule's result: not applicable when in is nil or applies is false,
// else pass when violation is "", else violated with it as the message.
func (e *evaluation) check(rule string, level Level, applies bool, violation func() string) {
	if e.in == nil || !applies {
		e.add(rule, level, StatusNotApplicable, "")
		return
	}
	if msg := violation(); msg != "" {
		e.add(rule, level, StatusViolated, msg)
		return
	}
	e.add(rule, level, StatusPass, "")
}

func (e *evaluation) verdictScope(s *verdictScope) {
	applies := false
	if e.in != nil {
		t := e.in.tick()
		applies = matchAny(s.Units, t.Dir) && matchAny(s.Paths, t.Path)
	}
	e.check(s.Name, s.Level, applies, func() string {
		if s.allowed[e.verdict] {
			return ""
		}
		return fmt.Sprintf("verdict %s is not allowed here (allowed: %s)", e.verdict, strings.Join(s.Allowed, ", "))
	})
}

// matchAny reports whether s matches one of globs (path.Match); no globs match
// everything.
func matchAny(globs []string, s string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}

func (e *evaluation) regressionReason(r *regressionConfig) {
	e.check(RuleRegressionReason, r.Level, e.verdict == string(predicate.RegressionOnly), func() string {
		reason := "(none)"
		if e.view.Regression != nil {
			reason = string(e.view.Regression.Reason)
		}
		if len(r.Allowed) > 0 && !contains(r.Allowed, reason) {
			return fmt.Sprintf("regression_only reason %s is not allowed (allowed: %s)", reason, strings.Join(r.Allowed, ", "))
		}
		if contains(r.Denied, reason) {
			return fmt.Sprintf("regression_only reason %s is denied", reason)
		}
		return ""
	})
}

func (e *evaluation) decision(d *decisionConfig, v predicate.Verdict, deciderRule, reasonRule string) {
	applies := e.verdict == string(v)
	dec, ok := predicate.Decider{}, false
	if e.in != nil {
		dec, ok = e.in.Predicate.Decider.Get()
	}
	if len(d.Deciders) > 0 {
		e.check(deciderRule, d.Level, applies, func() string {
			switch {
			case !ok:
				return fmt.Sprintf("%s decision names no decider", v)
			case !contains(d.Deciders, dec.By):
				return fmt.Sprintf("decider %q may not decide %s tasks", dec.By, v)
			case !e.signedBy(dec.By):
				return fmt.Sprintf("decider %q did not sign the decision (signed by %s): a decider is who signs, not only who is named", dec.By, e.signerList())
			}
			return ""
		})
	}
	if d.RequireReason {
		e.check(reasonRule, d.Level, applies, func() string {
			if !ok || strings.TrimSpace(dec.Reason) == "" {
				return fmt.Sprintf("%s decision gives no reason", v)
			}
			return ""
		})
	}
}

// signedBy reports whether a trusted signer of the statement is name: its
// keyid; for SSH one of the comma-joined principals it is credited to, taken as
// written (so "*@example.com" is not alice@example.com); for OpenPGP the
// address of its primary user id ("Name <addr>", one pair of angle brackets
// ending it, or a user id that is one address); for Sigstore its
// certificate identity (docs/format.md#deciders).
func (e *evaluation) signedBy(name string) bool {
	if e.in == nil || name == "" {
		return false
	}
	for _, s := range e.in.Signers {
		if s.KeyID != "" && s.KeyID == name {
			return true
		}
		switch s.Kind {
		case "ssh":
			// An SSH signer's principals are comma-joined (they hold no comma).
			if slices.Contains(strings.Split(s.Principal, ","), name) {
				return true
			}
		case "openpgp":
			// The one address the primary user id names (pgpMailbox):
			// "Alice <alice@example.com>" or a bare "alice@example.com"; a
			// user id naming several, such as "Mallory <m@evil>
			// <alice@example.com>", names no one.
			if addr, ok := pgpMailbox(s.Principal); ok && addr == name {
				return true
			}
		default:
			if s.Principal == name {
				return true
			}
		}
	}
	return false
}

// signerList names the statement's trusted signers for a message.
func (e *evaluation) signerList() string {
	var names []string
	if e.in != nil {
		for _, s := range e.in.Signers {
			switch {
			case s.Kind == "openpgp" && s.Principal != "":
				// Name what a decider is matched against: the user id's address.
				if addr, ok := pgpMailbox(s.Principal); ok && addr == strings.TrimSpace(s.Principal) {
					names = append(names, fmt.Sprintf("%q", addr))
				} else if ok {
					names = append(names, fmt.Sprintf("%q (openpgp user id %q)", addr, s.Principal))
				} else {
					names = append(names, fmt.Sprintf("openpgp user id %q, which names no single address", s.Principal))
				}
			case s.Principal != "":
				names = append(names, fmt.Sprintf("%q", s.Principal))
			default:
				names = append(names, s.Kind+" "+s.KeyID)
			}
		}
	}
	if len(names) == 0 {
		return "no trusted signer"
	}
	return strings.Join(names, ", ")
}

func (e *evaluation) verifiedRed(v *verifiedConfig) {
	applies := e.verdict == string(predicate.Verified) && !(v.ExemptRevision1 && e.view.Revision < 2)
	e.check(RuleVerifiedRed, v.Level, applies, func() string {
		switch {
		case !e.view.RedExpected:
			return fmt.Sprintf("revision %d predicate records no red run (red is written from revision 2)", e.view.Revision)
		case e.view.Red == nil:
			return "verified tick without a red run"
		case !contains(v.RedKinds, string(e.view.Red.Kind)):
			return fmt.Sprintf("red kind %s is not allowed (allowed: %s)", e.view.Red.Kind, strings.Join(v.RedKinds, ", "))
		}
		return ""
	})
}

// tested reports whether the verdict carries test evidence (monitor, mutation,
// sandbox and executor are a tick's, not a decision's).
func (e *evaluation) tested() bool {
	return e.verdict == string(predicate.Verified) || e.verdict == string(predicate.RegressionOnly)
}

// member returns key of the opaque object o ("" and false when o is absent,
// null or not an object, or key is absent).
func member(o predicate.Opt[any], key string) (any, bool) {
	v, ok := o.Get()
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	x, ok := m[key]
	return x, ok
}

func (e *evaluation) monitor(m *monitorConfig) {
	e.check(RuleMonitorState, m.Level, e.tested(), func() string {
		return notAllowed(e.in.Predicate.Monitor, "state", "monitor state", m.States)
	})
}

func (e *evaluation) mutation(m *mutationConfig) {
	present := false
	if e.in != nil {
		_, present = e.in.Predicate.Mutation.Get()
	}
	e.check(RuleMutationScore, m.Level, e.tested() && present, func() string {
		c, okc := member(e.in.Predicate.Mutation, "caught")
		x, okm := member(e.in.Predicate.Mutation, "missed")
		caught, ok1 := number(c)
		missed, ok2 := number(x)
		switch {
		case !okc || !okm || !ok1 || !ok2 || caught < 0 || missed < 0:
			return "mutation has no numeric caught and missed"
		case caught+missed == 0:
			return "mutation testing made no mutant"
		}
		if score := caught / (caught + missed); score < *m.MinScore {
			return fmt.Sprintf("mutation score %.3f (%v caught, %v missed) is below %v", score, caught, missed, *m.MinScore)
		}
		return ""
	})
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

func (e *evaluation) sandbox(s *sandboxConfig) {
	e.check(RuleSandboxNetwork, s.Level, e.tested(), func() string {
		v, ok := member(e.in.Predicate.Sandbox, "network")
		if !ok {
			return "no sandbox network recorded"
		}
		switch n := v.(type) {
		case bool:
			if !n {
				return ""
			}
		case string:
			switch strings.ToLower(n) {
			case "off", "none", "disabled", "deny":
				return ""
			}
		}
		return fmt.Sprintf("sandbox network is %s, not off", jsonText(v))
	})
}

func (e *evaluation) executor(x *executorConfig) {
	e.check(RuleExecutorKind, x.Level, e.tested(), func() string {
		return notAllowed(e.in.Predicate.Executor, "kind", "executor kind", x.Kinds)
	})
}

// notAllowed is the violation of a rule that allows only the strings allowed
// as member key of the evidence o (what names it in the message): "" when the
// value is allowed.
func notAllowed(o predicate.Opt[any], key, what string, allowed []string) string {
	v, _ := member(o, key)
	s, ok := v.(string)
	switch {
	case !ok:
		return "no " + what + " recorded"
	case !contains(allowed, s):
		return fmt.Sprintf("%s %s is not allowed (allowed: %s)", what, s, strings.Join(allowed, ", "))
	}
	return ""
}

func (e *evaluation) policySHA(s *policySHAConfig) {
	e.check(RulePolicySHA256, s.Level, true, func() string {
		if contains(s.Pinned, e.in.Predicate.PolicySHA256) {
			return ""
		}
		return fmt.Sprintf("policy_sha256 %s is not pinned", e.in.Predicate.PolicySHA256)
	})
}

func (e *evaluation) signers(s *signersConfig) {
	if len(s.Kinds) > 0 {
		e.check(RuleSignersKinds, s.Level, true, func() string {
			for _, sg := range e.in.Signers {
				if !contains(s.Kinds, sg.Kind) {
					return fmt.Sprintf("signer %s is a %s key (allowed kinds: %s)", sg.KeyID, sg.Kind, strings.Join(s.Kinds, ", "))
				}
			}
			return ""
		})
	}
	if s.Min != nil {
		e.check(RuleSignersMin, s.Level, true, func() string {
			seen := map[string]bool{}
			var counted []Signer
			for _, sg := range e.in.Signers {
				if len(s.Kinds) > 0 && !contains(s.Kinds, sg.Kind) {
					continue
				}
				if len(s.KeyIDs) > 0 && !contains(s.KeyIDs, sg.KeyID) {
					continue
				}
				counted = append(counted, sg)
				if sg.Key != "" {
					seen[sg.Key] = true
				} else {
					seen[sg.Kind+"\x00"+sg.KeyID] = true
				}
			}
			if s.Count == countPrincipals {
				people, unnamed := distinctPeople(counted)
				if len(people) < *s.Min {
					return principalsMessage(people, unnamed, *s.Min)
				}
				return ""
			}
			if len(seen) < *s.Min {
				return fmt.Sprintf("%d distinct trusted key(s) signed, at least %d required", len(seen), *s.Min)
			}
			return ""
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Digest is the lowercase hex SHA-256 of the policy file's bytes.
func (p *Policy) Digest() string { return p.digest }
