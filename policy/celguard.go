package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
)

// A rule that reads a member a statement does not have (predicate.red of a
// statement without a red run, a key of predicate.monitor another writer
// left out) cannot be evaluated, and fails the tick: the advice on that
// error names the member and the has() guards that make the rule say what
// it means for such statements.

// selections are an expression's member selections written as dotted paths
// from a variable (predicate.red.kind), by the member selected (kind).
type selections map[string][]string

// selectionsOf collects a's member selections whose operand is a chain of
// selections from a variable.
func selectionsOf(a *cel.Ast) selections {
	out := selections{}
	celast.PreOrderVisit(a.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.SelectKind || e.AsSelect().IsTestOnly() {
			return
		}
		if p, ok := dottedPath(e); ok {
			field := e.AsSelect().FieldName()
			if !slices.Contains(out[field], p) {
				out[field] = append(out[field], p)
			}
		}
	}))
	return out
}

// dottedPath is e written as a dotted path (a.b.c) when it is a variable or
// a chain of member selections from one.
func dottedPath(e celast.Expr) (string, bool) {
	switch e.Kind() {
	case celast.IdentKind:
		return e.AsIdent(), true
	case celast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return "", false
		}
		p, ok := dottedPath(s.Operand())
		return p + "." + s.FieldName(), ok
	}
	return "", false
}

// noSuchMember matches cel-go's evaluation errors for a member that is not
// there: a missing map key, a field of null.
var noSuchMember = regexp.MustCompile(`no such (?:key|attribute|field)[^:]*: ?'?([A-Za-z_][A-Za-z0-9_]*)`)

// advice is what to write instead, for err of an expression with these
// selections: the guards `has(…)` for the members err names, in order from
// the variable; "" for other errors.
func (s selections) advice(err error) string {
	m := noSuchMember.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	var guards, paths []string
	for _, p := range s[m[1]] {
		paths = append(paths, p)
		parts := strings.Split(p, ".")
		for i := 2; i <= len(parts); i++ {
			if g := "has(" + strings.Join(parts[:i], ".") + ")"; !slices.Contains(guards, g) {
				guards = append(guards, g)
			}
		}
	}
	if len(paths) == 0 {
		return " (a member the statement does not have: guard members a statement may lack with has(), e.g. when = \"has(predicate.red)\")"
	}
	return fmt.Sprintf(" (the statement has no %s: guard what a statement may lack with has(), in when = %q or as require = \"!(%s) || …\"; a rule that cannot be evaluated fails the tick)",
		strings.Join(paths, " or "), strings.Join(guards, " && "), strings.Join(guards, " && "))
}
