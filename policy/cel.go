package policy

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/ext"

	"github.com/taskproof/taskproof/policy/internal/taskproof"
	"github.com/taskproof/taskproof/predicate"
)

// celCostLimit bounds one rule's evaluation (CEL's runtime cost units): a rule
// over the largest predicate (1 MiB) stays well within it, and a rule that
// loops over everything many times is stopped, an eval error.
const celCostLimit = 10_000_000

// newEnv declares the CEL variables of policy rules (docs/policy.md), each
// with a concrete type so that an unknown member is a type-check error.
func newEnv() (*cel.Env, error) {
	return cel.NewEnv(
		ext.NativeTypes(
			ext.ParseStructTags(true),
			reflect.TypeFor[*taskproof.Predicate](),
			reflect.TypeFor[*taskproof.Statement](),
			reflect.TypeFor[*taskproof.Subject](),
			reflect.TypeFor[*taskproof.Signer](),
			reflect.TypeFor[*taskproof.Commit](),
			reflect.TypeFor[*taskproof.Tick](),
			// The types of the nullable members, held as dynamic values.
			reflect.TypeFor[*taskproof.Spec](),
			reflect.TypeFor[*taskproof.Red](),
			reflect.TypeFor[*taskproof.Regression](),
			reflect.TypeFor[*taskproof.Decider](),
		),
		cel.Variable("predicate", cel.ObjectType("taskproof.Predicate")),
		cel.Variable("statement", cel.ObjectType("taskproof.Statement")),
		cel.Variable("subject", cel.ObjectType("taskproof.Subject")),
		cel.Variable("signers", cel.ListType(cel.ObjectType("taskproof.Signer"))),
		cel.Variable("commit", cel.ObjectType("taskproof.Commit")),
		cel.Variable("tick", cel.ObjectType("taskproof.Tick")),
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(),
		ext.Lists(),
		ext.Sets(),
	)
}

// celRule is one compiled [[rule]].
type celRule struct {
	name, message string
	level         Level
	when, require cel.Program
	// whenPaths and requirePaths are the member selections of each
	// expression by the member selected (selections), for the advice on an
	// evaluation error.
	whenPaths, requirePaths selections
}

func compileRule(env *cel.Env, rc celConfig) (*celRule, error) {
	r := &celRule{name: rc.Name, message: rc.Message, level: rc.Level}
	if strings.TrimSpace(rc.Require) == "" {
		return nil, fmt.Errorf("require is empty: a rule must state what it requires")
	}
	var err error
	if r.require, r.requirePaths, err = compileBool(env, "require", rc.Require); err != nil {
		return nil, err
	}
	if strings.TrimSpace(rc.When) != "" {
		if r.when, r.whenPaths, err = compileBool(env, "when", rc.When); err != nil {
			return nil, err
		}
	} else if rc.When != "" {
		return nil, fmt.Errorf("when is blank: remove it or give a condition")
	}
	return r, nil
}

func compileBool(env *cel.Env, key, expr string) (cel.Program, selections, error) {
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, nil, fmt.Errorf("%s: %s", key, strings.ReplaceAll(iss.Err().Error(), "\n", " | "))
	}
	if err := checkNullableSelects(ast); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", key, err)
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, nil, fmt.Errorf("%s: has type %s, want bool", key, ast.OutputType())
	}
	prg, err := env.Program(ast, cel.CostLimit(celCostLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", key, err)
	}
	return prg, selectionsOf(ast), nil
}

// nullableFields are the CEL member names of each nullable member of
// predicate (taskproof.NullableMembers).
var nullableFields = func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for name, v := range taskproof.NullableMembers {
		t := reflect.TypeOf(v)
		fields := map[string]bool{}
		for i := 0; i < t.NumField(); i++ {
			if tag := t.Field(i).Tag.Get("cel"); tag != "" {
				fields[tag] = true
			}
		}
		out[name] = fields
	}
	return out
}()

// checkNullableSelects type-checks member selections on predicate's nullable
// members (spec, red, regression, decider), which CEL sees as dynamic:
// `predicate.red.knd` is an error here, as `predicate.verdikt` is CEL's.
func checkNullableSelects(a *cel.Ast) error {
	var bad error
	celast.PreOrderVisit(a.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if bad != nil || e.Kind() != celast.SelectKind {
			return
		}
		outer := e.AsSelect()
		op := outer.Operand()
		if op.Kind() != celast.SelectKind {
			return
		}
		inner := op.AsSelect()
		if inner.Operand().Kind() != celast.IdentKind || inner.Operand().AsIdent() != "predicate" {
			return
		}
		fields, ok := nullableFields[inner.FieldName()]
		if ok && !fields[outer.FieldName()] {
			bad = fmt.Errorf("undefined field '%s' of predicate.%s", outer.FieldName(), inner.FieldName())
		}
	}))
	return bad
}

// eval runs the rule: not applicable when `when` is false, pass or violated by
// `require`; any evaluation error (a missing map key, a null member, a
// division by zero, the cost limit) is StatusEvalError.
func (r *celRule) eval(act *activation) (Status, string) {
	if r.when != nil {
		ok, err := evalBool(r.when, act)
		if err != nil {
			return StatusEvalError, "when: " + err.Error() + r.whenPaths.advice(err)
		}
		if !ok {
			return StatusNotApplicable, ""
		}
	}
	ok, err := evalBool(r.require, act)
	if err != nil {
		return StatusEvalError, "require: " + err.Error() + r.requirePaths.advice(err)
	}
	if ok {
		return StatusPass, ""
	}
	msg := r.message
	if msg == "" {
		msg = "rule " + r.name + " does not hold"
	}
	return StatusViolated, msg
}

func evalBool(prg cel.Program, act *activation) (bool, error) {
	out, _, err := prg.Eval(act.vars)
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	if !ok || out.Type() != types.BoolType {
		return false, fmt.Errorf("result is %s, not bool", out.Type())
	}
	return b, nil
}

// activation is the CEL variables of one object.
type activation struct {
	vars map[string]any
}

func newActivation(in *Input, view predicate.View) *activation {
	p := in.Predicate
	pv := &taskproof.Predicate{
		Revision:     int64(view.Revision),
		Verdict:      string(p.Verdict),
		Unit:         taskproof.Unit{Format: p.Unit.Format, Feature: p.Unit.Feature, Dir: p.Unit.Dir},
		Task:         taskproof.Task{ID: p.Task.ID, LineHash: p.Task.LineHash, Title: p.Task.Title},
		Tree:         p.Tree,
		PolicySHA256: p.PolicySHA256,
		NewerFields:  view.NewerFields,
		Trace:        dyn(p.Trace),
		Integrity:    dyn(p.Integrity),
		Monitor:      dyn(p.Monitor),
		Mutation:     dyn(p.Mutation),
		Sandbox:      dyn(p.Sandbox),
		Executor:     dyn(p.Executor),
		Model:        dyn(p.Model),
		Run:          dyn(p.Run),
		Decisions:    dyn(p.Decisions),
		Strength:     dyn(p.Strength),
		Instructions: dyn(p.Instructions),
		Bug:          dyn(p.Bug),
		Acceptance:   dyn(p.Acceptance),
		Context:      dyn(p.Context),
		Dependencies: dyn(p.Dependencies),
	}
	if pv.NewerFields == nil {
		pv.NewerFields = []string{}
	}
	if t, err := time.Parse(time.RFC3339, p.Time); err == nil {
		pv.Time = t
	}
	// Nullable members: set only when present (a typed nil pointer in an
	// interface would not be CEL null).
	if s, ok := p.Spec.Get(); ok {
		sec, _ := s.Section.Get()
		pv.Spec = &taskproof.Spec{Section: sec, SectionHash: s.SectionHash}
	}
	if r := view.Red; r != nil {
		ex, _ := r.Excerpt.Get()
		exh, _ := r.ExcerptSHA256.Get()
		pv.Red = &taskproof.Red{Kind: string(r.Kind), Excerpt: ex, ExcerptSHA256: exh, OutputSHA256: r.OutputSHA256, Withheld: r.Withheld}
	}
	if g := view.Regression; g != nil {
		story, _ := g.Story.Get()
		detail, _ := g.Detail.Get()
		class, _ := g.RedClass.Get()
		rv := &taskproof.Regression{Reason: string(g.Reason), Story: story, Detail: detail, RedClass: string(class)}
		if ib, ok := g.ImplementedBy.Get(); ok {
			m := map[string]any{}
			if v, ok := ib.Task.Get(); ok {
				m["task"] = v
			}
			if v, ok := ib.Commit.Get(); ok {
				m["commit"] = v
			}
			if v, ok := ib.BeforeFeature.Get(); ok {
				m["before_feature"] = v
			}
			rv.ImplementedBy = m
		}
		pv.Regression = rv
	}
	if d, ok := p.Decider.Get(); ok {
		pv.Decider = &taskproof.Decider{By: d.By, Reason: d.Reason}
	}
	if _, ok := p.Collection.Get(); ok {
		// The typed collection back to its JSON tree (rare: revision 3 ticks
		// with test files only).
		if v, err := p.Value(); err == nil {
			pv.Collection = convert(v["collection"])
		}
	}
	signers := make([]*taskproof.Signer, len(in.Signers))
	for i, s := range in.Signers {
		signers[i] = &taskproof.Signer{Kind: s.Kind, KeyID: s.KeyID, Principal: s.Principal}
	}
	t := in.tick()
	return &activation{vars: map[string]any{
		"predicate": pv,
		"statement": &taskproof.Statement{Type: in.Statement.Type, PredicateType: in.Statement.PredicateType},
		"subject":   &taskproof.Subject{Name: in.Statement.SubjectName, GitCommit: in.Statement.GitCommit},
		"signers":   signers,
		"commit":    &taskproof.Commit{ID: in.Commit.ID, Tree: in.Commit.Tree, Time: in.Commit.Time},
		"tick":      &taskproof.Tick{Path: t.Path, Line: int64(t.Line), Unit: taskproof.Unit{Format: t.Format, Feature: t.Feature, Dir: t.Dir}},
	}}
}

// dyn is an opaque member as a CEL dynamic value: absent and null are both
// null (has() is false for both).
func dyn(o predicate.Opt[any]) any {
	v, ok := o.Get()
	if !ok {
		return nil
	}
	return convert(v)
}

// convert turns a JSON value tree (json.Number numbers) into CEL-friendly Go
// values: integral numbers int64, others float64.
func convert(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = convert(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = convert(e)
		}
		return l
	}
	return v
}
