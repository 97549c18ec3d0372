package verify

import (
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/trust"
)

// Policy results in reports (docs/format.md#checks-in-order last step "policy rules").
const (
	// ReasonPolicy is the sub-reason of a tick that passed every check of SPEC
	// §7 and §8 but violates a policy rule of level error (or one that failed
	// to evaluate). Its status is StatusRejected.
	ReasonPolicy = "policy"
	// StatusRejected is the status of such a tick: its evidence holds, the
	// verifier's policy refuses it. It is failing.
	StatusRejected = "rejected"
	// RulePolicyPrefix starts the CI rule id of a policy failure:
	// "policy/<rule name>".
	RulePolicyPrefix = "policy/"
)

// PolicyOrDefault returns the verifier's policy, or the embedded default.
func (v *Verifier) PolicyOrDefault() *policy.Policy {
	if v.Policy != nil {
		return v.Policy
	}
	return defaultPolicy
}

var defaultPolicy = policy.Default()

// pinPolicySHA256 applies the policy's pinned policy_sha256 list to results
// (docs/format.md#checks-in-order step policy_sha256): a predicate whose policy_sha256 is pinned is
// acceptable even when it differs from the value recomputed from the first
// parent's speccoder.toml, so that mismatch reason is dropped and the outcome
// recomputed from the remaining reasons by the precedence of docs/format.md#outcomes-and-reasons.
func (v *Verifier) pinPolicySHA256(results []ObjectResult) {
	p := v.PolicyOrDefault()
	for i := range results {
		r := &results[i]
		if r.Predicate == nil || !p.PinnedPolicySHA256(r.Predicate.PolicySHA256) {
			continue
		}
		kept := r.Reasons[:0:0]
		dropped := false
		for _, x := range r.Reasons {
			if x.Code == CodePolicySHA256 {
				dropped = true
				continue
			}
			kept = append(kept, x)
		}
		warnings := r.Warnings[:0:0]
		for _, w := range r.Warnings {
			if w.Code != CodePolicySHA256Unverified {
				warnings = append(warnings, w)
			}
		}
		r.Warnings = warnings
		if !dropped {
			continue
		}
		r.Reasons = kept
		r.Outcome = OK
		for _, x := range kept {
			r.Outcome = worse(r.Outcome, x.Outcome)
		}
	}
}

// policyInput builds the policy's view of one object; tick is nil in objects
// mode. It returns nil when the object's predicate could not be read (the
// object fails its checks already; no rule can judge it).
func (v *Verifier) policyInput(o *ObjectResult, tick *TickResult) *policy.Input {
	if o == nil || o.Predicate == nil || o.Statement == nil {
		return nil
	}
	in := &policy.Input{Predicate: o.Predicate, View: o.View}
	st := o.Statement
	in.Statement = policy.Statement{Type: st.Type, PredicateType: st.PredicateType}
	if len(st.Subjects) > 0 {
		in.Statement.SubjectName = st.Subjects[0].Name
		in.Statement.GitCommit = st.Subjects[0].Digest["gitCommit"]
	}
	keys := trust.SignerKeys(o.Signers)
	for i, s := range o.Signers {
		in.Signers = append(in.Signers, policy.Signer{Kind: string(s.Kind), KeyID: s.KeyID, Principal: s.Principal, Key: keys[i]})
	}
	in.Commit.ID = string(o.Object)
	if c, err := v.Repo.Commit(o.Object); err == nil {
		in.Commit.Tree, in.Commit.Time = string(c.Tree), c.Committer.When.UTC()
	}
	if tick != nil {
		in.Tick = &policy.Tick{Path: tick.Path, Line: tick.Line, Format: string(tick.Unit.Format), Feature: tick.Unit.Feature, Dir: tick.Unit.Dir}
	}
	return in
}

// violations keeps the results that count against an object (violated or
// failed to evaluate), warn level included; nil when none.
func violations(rs []policy.Result) []policy.Result {
	var out []policy.Result
	for _, r := range rs {
		if r.Counts() {
			out = append(out, r)
		}
	}
	return out
}

// ApplyPolicy evaluates the policy over a report before its conclusion is
// drawn: the per-object rules on every tick with a readable predicate (branch
// mode) or every object (objects mode), then the range rules over the report's
// ticks (objects mode: its objects). Results that count are set on the tick or
// object (Policy); a failing one (level error, or an evaluation error) makes
// a passing tick StatusRejected with ReasonPolicy. A range rule's results are
// set on the report (Policy) and, when failing, on every regression_only tick
// it counted, which then fails too.
func (v *Verifier) ApplyPolicy(rep *Report) {
	p := v.PolicyOrDefault()
	var items []policy.RangeItem
	switch rep.Mode {
	case "branch":
		items = make([]policy.RangeItem, 0, rep.TickCount())
		rep.EachTick(func(t *TickResult) {
			if t.Status == StatusEdited {
				return
			}
			items = append(items, policy.RangeItem{Object: string(t.Commit), Task: t.Task, Verdict: t.Verdict})
			v.EvaluateTick(t)
		})
		// rep.Objects holds copies of the ticks' objects: give them the results.
		// Keyed by task line too: a commit may tick two lines of one task ID.
		// The spooled ticks are keyed already (BranchSpooled: firstPolicy).
		first := make(map[objectTask][]policy.Result, len(rep.Ticks))
		for j := range rep.Ticks {
			t := &rep.Ticks[j]
			k := t.objectKey()
			if _, ok := rep.firstPolicy[k]; ok {
				continue
			}
			if _, ok := first[k]; !ok {
				first[k] = t.Policy
			}
		}
		for i := range rep.Objects {
			o := &rep.Objects[i]
			k := objectTask{o.Object, o.Task, o.LineHash}
			if p, ok := rep.firstPolicy[k]; ok {
				o.Policy = p
			} else if p, ok := first[k]; ok {
				o.Policy = p
			}
		}
	default:
		for i := range rep.Objects {
			o := &rep.Objects[i]
			items = append(items, policy.RangeItem{Object: string(o.Object), Task: o.Task, Verdict: o.Verdict})
			if in := v.policyInput(o, nil); in != nil {
				o.Policy = violations(p.Evaluate(in))
			}
		}
	}
	rep.Policy = violations(p.EvaluateRange(items))
	for _, r := range rep.Policy {
		if !r.Failing() {
			continue
		}
		rep.EachTick(func(t *TickResult) {
			if t.Verdict == "regression_only" && t.Status != StatusEdited {
				t.Policy = append(t.Policy, policy.Result{Rule: r.Rule, Level: r.Level, Status: r.Status, Message: r.Message, Object: string(t.Evidence), Task: t.Task})
				rejectTick(t)
			}
		})
		for i := range rep.Objects {
			o := &rep.Objects[i]
			if o.Verdict == "regression_only" && rep.Mode == "objects" {
				o.Policy = append(o.Policy, policy.Result{Rule: r.Rule, Level: r.Level, Status: r.Status, Message: r.Message, Object: string(o.Object), Task: o.Task})
			}
		}
	}
}

// objectKey is the key of t's object (objectTask): its evidence, task and
// its object's line hash ("" without an object).
func (t *TickResult) objectKey() objectTask {
	k := objectTask{t.Evidence, t.Task, ""}
	if t.Object != nil {
		k.lineHash = t.Object.LineHash
	}
	return k
}

// EvaluateTick sets the per-object rules' results that count on a tick with
// a readable predicate (and on its object), rejecting it when one fails
// (rejectTick). A tick whose object's predicate is nil (unreadable, or
// evaluated already and dropped) is left as it is.
func (v *Verifier) EvaluateTick(t *TickResult) {
	in := v.policyInput(t.Object, t)
	if in == nil {
		return
	}
	t.Policy = violations(v.PolicyOrDefault().Evaluate(in))
	if t.Object != nil {
		t.Object.Policy = t.Policy
	}
	rejectTick(t)
}

// rejectTick fails a tick whose policy results fail; a tick failing already
// keeps its status and reason (the policy results are listed beside them).
func rejectTick(t *TickResult) {
	if t.Failing || !policy.Failing(t.Policy) {
		return
	}
	t.Status, t.Reason, t.Failing = StatusRejected, ReasonPolicy, true
	t.Message = "policy: " + policyRuleList(t.Policy)
}

// policyRuleList names the failing rules, comma-separated.
func policyRuleList(rs []policy.Result) string {
	var names []string
	for _, r := range rs {
		if r.Failing() {
			names = append(names, r.Rule)
		}
	}
	return strings.Join(names, ", ")
}

// Explanation is every policy rule's result on one object (`taskproof policy
// explain`): Object is the object's verification result (docs/format.md#checks-in-order), Rules one
// result per per-object rule, passing and not applicable ones included. Range
// rules are not evaluated on one object.
type Explanation struct {
	Object ObjectResult    `json:"object"`
	Rules  []policy.Result `json:"rules"`
}

// Explain verifies commit (see Verifier.Object) and evaluates every
// per-object rule of the verifier's policy on each task it attests. An object
// whose predicate cannot be read gets no rule results. Trust or a policy read
// from commit is refused ([FromVerifiedError]); other errors are Object's.
func (v *Verifier) Explain(commit gitref.Hash) ([]Explanation, error) {
	if err := v.Ready(Verified{Objects: []gitref.Hash{commit}}); err != nil {
		return nil, err
	}
	rs, err := v.Object(commit)
	if err != nil {
		return nil, err
	}
	out := make([]Explanation, 0, len(rs))
	for i := range rs {
		e := Explanation{Object: rs[i], Rules: []policy.Result{}}
		if in := v.policyInput(&rs[i], nil); in != nil {
			e.Rules = v.PolicyOrDefault().Evaluate(in)
			e.Object.Policy = violations(e.Rules)
		}
		out = append(out, e)
	}
	return out, nil
}

// hintPolicyEvalError keys fixHints' hint for a tick or object that only rules
// which could not be evaluated fail (a hint, not a reason code).
const hintPolicyEvalError = "policy_eval_error"

// policyHintKey is the fixHints key for a tick or object the policy results rs
// fail: the advice on has() guards when every failing rule failed to
// evaluate, else ReasonPolicy's.
func policyHintKey(rs []policy.Result) string {
	failing := 0
	for _, r := range rs {
		if r.Failing() {
			if r.Status != policy.StatusEvalError {
				return ReasonPolicy
			}
			failing++
		}
	}
	if failing == 0 {
		return ReasonPolicy
	}
	return hintPolicyEvalError
}
