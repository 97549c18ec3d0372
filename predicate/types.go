package predicate

import "strings"

// PredicateType is the predicate type URI of a task-verification Statement
// (docs/format.md#statements).
const PredicateType = "https://speccoder.dev/task-verification/v0"

// predicateFamily is the prefix of every task-verification predicate type.
const predicateFamily = "https://speccoder.dev/task-verification/"

// OtherRevision reports whether predicateType is a task-verification
// predicate type other than v0 ("…/task-verification/v1"): a v0 reader
// reads such a statement as malformed, "the predicate is not v0", never as a
// newer revision or as another tool's statement (docs/format.md#checks-in-order).
func OtherRevision(predicateType string) bool {
	return predicateType != PredicateType && strings.HasPrefix(predicateType, predicateFamily)
}

// Revision is the revision of the predicate this package writes (docs/format.md#hash-recipes).
const Revision uint32 = 3

// Opt is a member of a JSON object that may be absent, null or set (null and absent
// stay distinct). Set reports whether the member is present at all; Null
// whether it is present as null; V is the value when Set and not Null (the zero
// value otherwise).
type Opt[T any] struct {
	Set  bool
	Null bool
	V    T
}

// Some returns a present, non-null member holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Set: true, V: v} }

// Null returns a member present as JSON null.
func Null[T any]() Opt[T] { return Opt[T]{Set: true, Null: true} }

// Get returns the value and true when the member is present and not null.
func (o Opt[T]) Get() (T, bool) { return o.V, o.Set && !o.Null }

// Verdict is the predicate's verdict (docs/format.md#verdicts).
type Verdict string

// The verdicts.
const (
	Verified       Verdict = "verified"
	RegressionOnly Verdict = "regression_only"
	Attested       Verdict = "attested"
	Skipped        Verdict = "skipped"
)

// Known reports whether v is one of the four verdicts, spelled exactly
// (docs/format.md#verdicts). The published schema types verdict as any
// string, so a decoded predicate can hold another; verifiers refuse it.
func (v Verdict) Known() bool {
	switch v {
	case Verified, RegressionOnly, Attested, Skipped:
		return true
	}
	return false
}

// Predicate is the task-verification predicate, revision 3
// (docs/format.md#hash-recipes; the schema in predicate/schema). Every struct
// of the package keeps members it does not know in Extra (JSON value trees as
// the strict decoder returns them), so that decoding and encoding a valid predicate
// gives back the same canonical bytes. The opaque evidence members (Trace …
// Dependencies) hold value trees too.
type Predicate struct {
	// Revision is the additive revision within v0; absent reads as 1 (see [Predicate.Read]).
	Revision Opt[uint32]
	Verdict  Verdict
	Unit     Unit
	Task     TaskRef
	// Tree is the hex id of the tick commit's root tree.
	Tree string
	// Spec is the cited requirement and its text's hash; null when the task cites none.
	Spec Opt[SpecRef]

	Trace        Opt[any]
	Integrity    Opt[any]
	Monitor      Opt[any]
	Mutation     Opt[any]
	Sandbox      Opt[any]
	Executor     Opt[any]
	Model        Opt[any]
	Run          Opt[any]
	Decisions    Opt[any]
	Strength     Opt[any]
	Instructions Opt[any]

	// Decider is who decided an attested or skipped task.
	Decider Opt[Decider]
	// PolicySHA256 is the lowercase hex [PolicySHA256] of the parent's speccoder.toml.
	PolicySHA256 string
	// Time is when it was recorded: RFC 3339, UTC, seconds, "Z".
	Time string
	// Red is the red run's output excerpt (revision ≥ 2).
	Red Opt[Red]

	Bug        Opt[any]
	Acceptance Opt[any]
	// Regression is why a regression_only tick is one (revision 3).
	Regression Opt[RegressionReason]
	// Collection is the changed test files and whether the run collected them (revision 3).
	Collection Opt[Collection]

	Context      Opt[any]
	Dependencies Opt[any]

	Extra map[string]any
}

// Unit is the predicate's unit member as written
// (docs/format.md#units-and-task-lines): format "speckit", "openspec" or
// "kiro"; feature = dir's last path element; dir repository-relative, '/'
// separated, no trailing slash. It is the wire form of specfmt.Unit, the
// spec unit: a statement read may carry any strings and members taskproof
// does not know (Extra, kept for the canonical JSON), which the checks judge;
// specfmt.Unit is a unit resolved from a path.
type Unit struct {
	Format  string
	Feature string
	Dir     string
	Extra   map[string]any
}

// TaskRef is the task (docs/format.md#hash-recipes): its ID ("T012", "1.3"),
// the [LineHash] of its line read as open, and its title.
type TaskRef struct {
	ID       string
	LineHash string
	Title    string
	Extra    map[string]any
}

// SpecRef is the requirement the task cites (docs/format.md#hash-recipes
// "spec"): Section is its name ("US1", a requirement name, "1,3") or null;
// SectionHash the [SectionHash] of its text.
type SpecRef struct {
	Section     Opt[string]
	SectionHash string
	Extra       map[string]any
}

// Decider is who decided an attested or skipped task, and why.
type Decider struct {
	By     string
	Reason string
	Extra  map[string]any
}

// RedKind is how the acceptance tests first failed (revision 2).
type RedKind string

// The red kinds.
const (
	RedAssertion     RedKind = "assertion"
	RedMissingSymbol RedKind = "missing_symbol"
)

// Red is the red run's output, bounded and checked clean
// (docs/format.md#hash-recipes "red", revision ≥ 2; see [NewRed]). Excerpt and
// ExcerptSHA256 are null when Withheld.
type Red struct {
	Kind          RedKind
	Excerpt       Opt[string]
	ExcerptSHA256 Opt[string]
	OutputSHA256  string
	Withheld      bool
	Extra         map[string]any
}

// Reason is why a tick is regression-only (the "reason" of a [RegressionReason]).
type Reason string

// The ten regression reasons of revision 3. ReasonUnrecorded is read-side only: it
// is what a regression_only tick without a recorded reason reads as.
const (
	ReasonNoStory           Reason = "no_story"
	ReasonNoScenarios       Reason = "no_scenarios" // with Story
	ReasonAcceptanceOff     Reason = "acceptance_off"
	ReasonAuthorWroteNone   Reason = "author_wrote_none"
	ReasonAuthorFailed      Reason = "author_failed" // with Detail
	ReasonAlreadyPassing    Reason = "already_passing"
	ReasonNotRed            Reason = "not_red" // with RedClass
	ReasonTestsNotCollected Reason = "tests_not_collected"
	ReasonPlanningWork      Reason = "planning_work"
	ReasonUnrecorded        Reason = "unrecorded"
)

// RegressionReason is why a tick is regression-only (schema $defs/RegressionReason).
// Story goes with no_scenarios, Detail with author_failed, ImplementedBy (optional,
// null when undetermined) with already_passing, RedClass with not_red.
type RegressionReason struct {
	Reason        Reason
	Story         Opt[string]
	Detail        Opt[string]
	ImplementedBy Opt[ImplementedBy]
	RedClass      Opt[RedClass]
	Extra         map[string]any
}

// ImplementedBy is which tick made already-passing acceptance tests pass: a tick
// on the feature branch (Task and Commit, short) or, with BeforeFeature true, none
// before the feature's first tick.
type ImplementedBy struct {
	Task          Opt[string]
	Commit        Opt[string]
	BeforeFeature Opt[bool]
	Extra         map[string]any
}

// RedClass is what a red run of acceptance tests showed; only assertion and absent
// are red.
type RedClass string

// The red classes.
const (
	ClassAssertion       RedClass = "assertion"
	ClassAbsent          RedClass = "absent"
	ClassBuildError      RedClass = "build_error"
	ClassCollectionError RedClass = "collection_error"
	ClassTimeout         RedClass = "timeout"
	ClassNoTests         RedClass = "no_tests"
	ClassFlaky           RedClass = "flaky"
	ClassUnclassified    RedClass = "unclassified"
	ClassPassed          RedClass = "passed"
)

// Collection is the attempt's changed test files and whether the run collected them
// (revision 3); Listing is the listings run, in order.
type Collection struct {
	Files   []FileCollection
	Listing Opt[[]ListingRun]
	Extra   map[string]any
}

// FileCollection is one judged test file: its workspace-relative Path, its State,
// what decided it, how many of its tests ran (Tests) and the first 20 of their ids.
type FileCollection struct {
	Path      string
	State     FileState
	DecidedBy Opt[DecidedBy]
	Tests     uint64
	TestIDs   []string
	Rule      Opt[CollectionRule]
	Why       Opt[string]
	Fixes     Opt[[]string]
	Extra     map[string]any
}

// FileState is whether the run collected a test from a file.
type FileState string

// The file states.
const (
	StateCollected    FileState = "collected"
	StateNotCollected FileState = "not_collected"
	StateUnknown      FileState = "unknown"
)

// DecidedBy is what decided a file's state.
type DecidedBy string

// The deciders of a file's state.
const (
	DecidedByStatic  DecidedBy = "static"
	DecidedByJUnit   DecidedBy = "junit"
	DecidedByListing DecidedBy = "listing"
)

// CollectionRule is a runner's collection rule: a sentence and where it came from.
type CollectionRule struct {
	Toolchain Toolchain
	Text      string
	Source    string
	Extra     map[string]any
}

// Toolchain is a test toolchain speccoder knows how to ask.
type Toolchain string

// The toolchains.
const (
	ToolchainRust       Toolchain = "rust"
	ToolchainPython     Toolchain = "python"
	ToolchainJavaScript Toolchain = "javascript"
	ToolchainGo         Toolchain = "go"
)

// ListingRun is a listing speccoder ran: the command, its duration in milliseconds
// and how it ended.
type ListingRun struct {
	Argv       []string
	DurationMS uint64
	Status     CheckStatus
	Extra      map[string]any
}

// CheckStatus is the outcome of one check.
type CheckStatus string

// The check statuses.
const (
	CheckPassed   CheckStatus = "passed"
	CheckFailed   CheckStatus = "failed"
	CheckTimedOut CheckStatus = "timed_out"
	CheckSkipped  CheckStatus = "skipped"
	CheckError    CheckStatus = "error"
)
