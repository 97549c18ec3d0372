// Package taskproof holds the Go types behind the CEL variables of policy
// rules. It is named so that CEL reports the types as
// taskproof.Predicate, taskproof.Signer, …: CEL's native type provider names a
// Go struct by its package's name and its own. Fields are exposed under their
// `cel` tags; there is no other field, so a misspelled member is a type-check
// error when the policy loads.
package taskproof

import "time"

// Predicate is the revision-aware view of a task-verification predicate
// (docs/format.md#hash-recipes): revision absent reads as 1; regression of a
// regression_only tick below revision 3 reads as {"reason":"unrecorded"}; red
// is null below revision 2. The evidence members taskproof does not interpret
// are dynamic values (JSON numbers are int when integral, else double).
type Predicate struct {
	Revision     int64     `cel:"revision"`
	Verdict      string    `cel:"verdict"`
	Unit         Unit      `cel:"unit"`
	Task         Task      `cel:"task"`
	Tree         string    `cel:"tree"`
	PolicySHA256 string    `cel:"policy_sha256"`
	Time         time.Time `cel:"time"`
	NewerFields  []string  `cel:"newer_fields"`

	// The members that may be null hold a *Spec, *Red, *Regression or
	// *Decider, or nil (CEL null). They are dynamic because CEL's native types
	// read a nil struct pointer as an object of zero values, which would let
	// `predicate.red.kind != 'x'` hold for an absent red; the policy package
	// checks their member names when a rule loads (NullableMembers).
	Spec       any `cel:"spec"`
	Red        any `cel:"red"`
	Regression any `cel:"regression"`
	Decider    any `cel:"decider"`

	Trace        any `cel:"trace"`
	Integrity    any `cel:"integrity"`
	Monitor      any `cel:"monitor"`
	Mutation     any `cel:"mutation"`
	Sandbox      any `cel:"sandbox"`
	Executor     any `cel:"executor"`
	Model        any `cel:"model"`
	Run          any `cel:"run"`
	Decisions    any `cel:"decisions"`
	Strength     any `cel:"strength"`
	Instructions any `cel:"instructions"`
	Bug          any `cel:"bug"`
	Acceptance   any `cel:"acceptance"`
	Collection   any `cel:"collection"`
	Context      any `cel:"context"`
	Dependencies any `cel:"dependencies"`
}

// NullableMembers maps each nullable member of Predicate to the Go type it
// holds when set.
var NullableMembers = map[string]any{
	"spec":       Spec{},
	"red":        Red{},
	"regression": Regression{},
	"decider":    Decider{},
}

// Unit is the CEL variable shape of the predicate's unit member
// (docs/format.md#units-and-task-lines): the policy language's view, with
// the cel field names rules read (unit.format, unit.feature, unit.dir), kept
// apart from predicate.Unit so that the language does not change with the
// Go types.
type Unit struct {
	Format  string `cel:"format"`
	Feature string `cel:"feature"`
	Dir     string `cel:"dir"`
}

// Task is the predicate's task.
type Task struct {
	ID       string `cel:"id"`
	LineHash string `cel:"line_hash"`
	Title    string `cel:"title"`
}

// Spec is the cited requirement; section is "" when the predicate wrote null.
type Spec struct {
	Section     string `cel:"section"`
	SectionHash string `cel:"section_hash"`
}

// Red is the red run (revision ≥ 2); excerpt and excerpt_sha256 are "" when
// withheld.
type Red struct {
	Kind          string `cel:"kind"`
	Excerpt       string `cel:"excerpt"`
	ExcerptSHA256 string `cel:"excerpt_sha256"`
	OutputSHA256  string `cel:"output_sha256"`
	Withheld      bool   `cel:"withheld"`
}

// Regression is why a regression_only tick is one; the members that go with
// other reasons are "" (implemented_by: null).
type Regression struct {
	Reason        string `cel:"reason"`
	Story         string `cel:"story"`
	Detail        string `cel:"detail"`
	RedClass      string `cel:"red_class"`
	ImplementedBy any    `cel:"implemented_by"`
}

// Decider is who decided an attested or skipped task, and why.
type Decider struct {
	By     string `cel:"by"`
	Reason string `cel:"reason"`
}

// Statement is the in-toto Statement's envelope fields.
type Statement struct {
	Type          string `cel:"type"`
	PredicateType string `cel:"predicateType"`
}

// Subject is the Statement's one subject.
type Subject struct {
	Name      string `cel:"name"`
	GitCommit string `cel:"gitCommit"`
}

// Signer is a distinct trusted key credited with the statement's signature.
type Signer struct {
	Kind      string `cel:"kind"`
	KeyID     string `cel:"keyid"`
	Principal string `cel:"principal"`
}

// Commit is the object: a tick commit, decision commit or skip record.
type Commit struct {
	ID   string    `cel:"id"`
	Tree string    `cel:"tree"`
	Time time.Time `cel:"time"`
}

// Tick is where the task was ticked (branch mode), or the predicate's unit's
// tasks file with line 0 (objects mode).
type Tick struct {
	Path string `cel:"path"`
	Line int64  `cel:"line"`
	Unit Unit   `cel:"unit"`
}
