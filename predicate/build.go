package predicate

import (
	"errors"
	"fmt"
	"time"

	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// ErrBuild is the kind of every error [Build] returns for bad input.
var ErrBuild = errors.New("cannot build predicate")

// BuildError is a [Build] failure: Field names the offending input
// ("evidence.monitor", "tree", "verdict"), Reason says why. It matches [ErrBuild].
type BuildError struct {
	Field  string
	Reason string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("cannot build predicate: %s: %s", e.Field, e.Reason)
}

// Is reports whether target is [ErrBuild].
func (e *BuildError) Is(target error) bool { return target == ErrBuild }

// RedRun is a red run's captured output and how it failed, for the predicate's red
// member (see [NewRed]).
type RedRun struct {
	Kind   RedKind
	Output []byte
	// OutputSHA256, when set, is red.output_sha256 of an output read as a
	// stream, of which Output holds only the end: its last MaxExcerpt bytes
	// (or all of it), which is all the excerpt is cut from.
	OutputSHA256 string
}

// Input is what [Build] makes a predicate from (docs/format.md#hash-recipes).
type Input struct {
	// Unit is the task's spec unit.
	Unit specfmt.Unit
	// Task is the task as parsed from the tick commit's tasks file; its OpenLine
	// gives task.line_hash.
	Task specfmt.Task
	// Section is the spec section the task cites; nil writes "spec": null.
	Section *specfmt.SectionText
	// Tree is the hex id (40 or 64 lowercase hex digits) of the tick commit's tree.
	Tree string
	// Policy is the text of speccoder.toml at the tick commit's first parent; nil:
	// there is no such file.
	Policy []byte
	// Red is the red run; nil writes no red member.
	Red *RedRun
	// Evidence is the evidence file's JSON object (nil: none). Its members are
	// copied as given: the opaque ones (trace, integrity, monitor, mutation, sandbox,
	// executor, model, run, decisions, strength, instructions, bug, acceptance,
	// context, dependencies), regression and collection (checked against the
	// schema's types), and unknown ones (kept). Members Build computes (revision,
	// verdict, unit, task, tree, spec, decider, policy_sha256, time, red) are an error.
	Evidence []byte
	// Verdict is verified, regression_only, attested or skipped.
	Verdict Verdict
	// Decider is who decided an attested or skipped task (required for those, an
	// error for the others).
	Decider *Decider
	// Time is when it was recorded; written in UTC, truncated to seconds.
	Time time.Time
}

// computed are the predicate members Build derives itself; evidence may not set them.
var computed = map[string]bool{
	"revision": true, "verdict": true, "unit": true, "task": true, "tree": true, "spec": true,
	"decider": true, "policy_sha256": true, "time": true, "red": true,
}

// objectEvidence are the opaque members whose schema description is an object
// ("{ state, findings }") or one record (run: "the agentplane run, or null");
// Build requires an object or null for them.
var objectEvidence = map[string]bool{
	"integrity": true, "monitor": true, "mutation": true, "sandbox": true, "executor": true,
	"model": true, "strength": true, "acceptance": true, "run": true,
}

// arrayEvidence are the opaque members whose schema description is a list of
// rows or records (trace: "test rows", decisions: "people's decisions",
// instructions: "instruction files"); Build requires an array or null, and
// for those marked true each element an object.
var arrayEvidence = map[string]bool{"trace": true, "decisions": true, "instructions": false}

// Build makes a revision 3 predicate (docs/format.md#hash-recipes) that
// validates against the schema. Errors are a [*BuildError] naming the input
// field (errors.Is [ErrBuild]), or the evidence's strict-decoding error
// ([ErrMalformed]), or the [ErrPolicy] error of the parent's speccoder.toml.
func Build(in Input) (*Predicate, error) {
	p := &Predicate{Revision: Some(Revision), Verdict: in.Verdict}
	switch in.Verdict {
	case Verified, RegressionOnly:
		if in.Decider != nil {
			return nil, &BuildError{"decider", fmt.Sprintf("a %s tick has no decider", in.Verdict)}
		}
	case Attested, Skipped:
		if in.Decider == nil || in.Decider.By == "" || in.Decider.Reason == "" {
			return nil, &BuildError{"decider", fmt.Sprintf("a %s decision needs a decider with by and reason", in.Verdict)}
		}
		p.Decider = Some(*in.Decider)
	default:
		return nil, &BuildError{"verdict", fmt.Sprintf("%q is not verified, regression_only, attested or skipped", in.Verdict)}
	}

	if !in.Unit.Format.Known() {
		return nil, &BuildError{"unit.format", fmt.Sprintf("unknown format %q", in.Unit.Format)}
	}
	if in.Unit.Feature == "" || in.Unit.Dir == "" {
		return nil, &BuildError{"unit", "feature and dir must not be empty"}
	}
	p.Unit = Unit{Format: string(in.Unit.Format), Feature: in.Unit.Feature, Dir: in.Unit.Dir}

	t := in.Task
	if t.ID == "" {
		return nil, &BuildError{"task.id", "empty"}
	}
	if t.BoxCol < 0 || t.BoxCol >= len(t.Line) || t.Line[t.BoxCol] != t.Box {
		return nil, &BuildError{"task.line", fmt.Sprintf("box column %d does not hold the box %q", t.BoxCol, t.Box)}
	}
	p.Task = TaskRef{ID: t.ID, LineHash: LineHash(t.OpenLine()), Title: t.Title}

	if !isHexID(in.Tree) {
		return nil, &BuildError{"tree", fmt.Sprintf("%q is not 40 or 64 lowercase hex digits", in.Tree)}
	}
	p.Tree = in.Tree

	if in.Section != nil {
		p.Spec = Some(SpecRef{Section: Some(in.Section.Name), SectionHash: SectionHash(in.Section.Text)})
	} else {
		p.Spec = Null[SpecRef]()
	}

	policy, err := PolicySHA256(in.Policy)
	if err != nil {
		return nil, err
	}
	p.PolicySHA256 = policy

	if in.Time.IsZero() {
		return nil, &BuildError{"time", "zero time"}
	}
	p.Time = in.Time.UTC().Format("2006-01-02T15:04:05Z")

	if in.Red != nil {
		switch in.Red.Kind {
		case RedAssertion, RedMissingSymbol:
		default:
			return nil, &BuildError{"red.kind", fmt.Sprintf("%q is not assertion or missing_symbol", in.Red.Kind)}
		}
		red := NewRed(in.Red.Kind, in.Red.Output)
		if in.Red.OutputSHA256 != "" {
			red.OutputSHA256 = in.Red.OutputSHA256
		}
		p.Red = Some(red)
	}

	if err := p.setEvidence(in.Evidence); err != nil {
		return nil, err
	}
	switch g, ok := p.Regression.Get(); {
	case in.Verdict == RegressionOnly && !ok:
		return nil, &BuildError{"evidence.regression", "a regression_only tick needs a regression reason"}
	case in.Verdict != RegressionOnly && p.Regression.Set:
		return nil, &BuildError{"evidence.regression", fmt.Sprintf("only a regression_only tick has one, this is %s", in.Verdict)}
	case ok && g.Reason == ReasonUnrecorded:
		return nil, &BuildError{"evidence.regression.reason", "unrecorded is read-side only"}
	}

	v, err := p.Value()
	if err != nil {
		return nil, err
	}
	if err := Validate(v); err != nil {
		return nil, &BuildError{"evidence", err.Error()}
	}
	return p, nil
}

func (p *Predicate) setEvidence(evidence []byte) error {
	if evidence == nil {
		return nil
	}
	tree, err := strictjson.Decode(evidence, predicateKeys)
	if err != nil {
		return err
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return &BuildError{"evidence", "want a JSON object, got " + jsonKind(tree)}
	}
	for k, v := range obj {
		if computed[k] {
			return &BuildError{"evidence." + k, "computed by taskproof, not taken from evidence"}
		}
		if objectEvidence[k] {
			if _, isObj := v.(map[string]any); !isObj && v != nil {
				return &BuildError{"evidence." + k, "want an object or null, got " + jsonKind(v)}
			}
		}
		if rows, known := arrayEvidence[k]; known {
			if err := checkArrayEvidence(k, v, rows); err != nil {
				return err
			}
		}
	}
	r := &reader{path: "evidence", m: obj, used: map[string]bool{}}
	for k := range computed {
		r.used[k] = true
	}
	p.Trace = optional(r, "trace", asAny)
	p.Integrity = optional(r, "integrity", asAny)
	p.Monitor = optional(r, "monitor", asAny)
	p.Mutation = optional(r, "mutation", asAny)
	p.Sandbox = optional(r, "sandbox", asAny)
	p.Executor = optional(r, "executor", asAny)
	p.Model = optional(r, "model", asAny)
	p.Run = optional(r, "run", asAny)
	p.Decisions = optional(r, "decisions", asAny)
	p.Strength = optional(r, "strength", asAny)
	p.Instructions = optional(r, "instructions", asAny)
	p.Bug = optional(r, "bug", asAny)
	p.Acceptance = optional(r, "acceptance", asAny)
	p.Regression = optional(r, "regression", regressionFrom)
	p.Collection = optional(r, "collection", collectionFrom)
	p.Context = optional(r, "context", asAny)
	p.Dependencies = optional(r, "dependencies", asAny)
	p.Extra = r.extra()
	if r.err != nil {
		var de *DecodeError
		if errors.As(r.err, &de) {
			return &BuildError{de.Path, de.Reason}
		}
		return r.err
	}
	return nil
}

// checkArrayEvidence checks evidence member k of arrayEvidence: an array or
// null, each element an object when rows.
func checkArrayEvidence(k string, v any, rows bool) error {
	if v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		want := "an array or null"
		if rows {
			want = "an array of objects or null"
		}
		return &BuildError{"evidence." + k, "want " + want + ", got " + jsonKind(v)}
	}
	if !rows {
		return nil
	}
	for i, e := range a {
		if _, isObj := e.(map[string]any); !isObj {
			return &BuildError{fmt.Sprintf("evidence.%s[%d]", k, i), "want an object, got " + jsonKind(e)}
		}
	}
	return nil
}

func isHexID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}
