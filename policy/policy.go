package policy

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/taskproof/taskproof/internal/inputfile"
	"github.com/taskproof/taskproof/predicate"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// ErrPolicy is matched by every error loading a policy: unreadable, not TOML, an
// unknown key, a value out of range, a CEL rule that does not compile or
// type-check. It is a config error (exit code 3, docs/format.md#exit-codes).
var ErrPolicy = errors.New("invalid policy")

// Error is a policy load error. Line and Column are 1-based positions in File
// (0 when the error has no single position, e.g. a duplicate rule name); Rule
// names the rule at fault ("" when none).
type Error struct {
	File   string
	Line   int
	Column int
	Rule   string
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("policy ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	if e.Rule != "" {
		fmt.Fprintf(&b, ": rule %q", e.Rule)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Is reports whether target is ErrPolicy.
func (e *Error) Is(target error) bool { return target == ErrPolicy }

// Version is the policy file format version this package reads (`version = 1`).
const Version = 1

// Level is how a violated rule counts: LevelError fails the tick (and the
// verification, exit 1), LevelWarn is reported only.
type Level string

// The levels.
const (
	LevelError Level = "error"
	LevelWarn  Level = "warn"
)

//go:embed default.toml
var defaultPolicy []byte

// DefaultText returns the embedded default policy's text (`taskproof policy
// default`): no built-in rule but the policy_sha256 check of docs/format.md#checks-in-order (the
// predicate's value equals the one recomputed from the first parent's
// speccoder.toml), and no CEL rule.
func DefaultText() []byte { return bytes.Clone(defaultPolicy) }

// Default returns the embedded default policy, parsed.
func Default() *Policy {
	p, err := Parse(defaultPolicy, "(default)")
	if err != nil {
		panic("policy: the embedded default policy does not load: " + err.Error())
	}
	return p
}

// Policy is a loaded, type-checked policy. It is safe for concurrent use.
type Policy struct {
	name string
	// commit is the commit the policy was read from (ParseFromCommit); ""
	// for a file or the default.
	commit string
	file   file
	rules  []*celRule
	// scopes are file.Verdicts with names resolved.
	scopes []verdictScope
	// sha256 of the policy file's bytes, for reports.
	digest string
	// layouts are Layouts().
	layouts *specfmt.Layouts
}

// Layouts are the unit layouts and ignored tasks-file paths the policy adds to
// the built-in layouts (docs/format.md#unit-layouts-in-the-policy); nil when
// it adds none. The caller must not modify them.
func (p *Policy) Layouts() *specfmt.Layouts { return p.layouts }

// AllowsBornTicked reports whether the policy allows ticked tasks without
// evidence in the tasks file at path ([born_ticked] allow).
func (p *Policy) AllowsBornTicked(path string) bool {
	if p == nil || p.file.BornTicked == nil {
		return false
	}
	for _, g := range p.file.BornTicked.Allow {
		if specfmt.MatchPath(g, path) {
			return true
		}
	}
	return false
}

// loadLayouts checks the [[units]], [unit_paths] and [born_ticked] tables and
// builds Layouts.
func (p *Policy) loadLayouts() error {
	f := p.file
	if len(f.Units) == 0 && f.UnitPaths == nil {
		p.layouts = nil
	} else {
		l := &specfmt.Layouts{}
		for i, u := range f.Units {
			lay := specfmt.Layout{Format: specfmt.Format(u.Format), Tasks: u.Tasks}
			if err := lay.Validate(); err != nil {
				return fmt.Errorf("units[%d]: %v (format is one of %s; tasks a pattern like \"openspec/initiatives/**/tasks.md\", or for bmad stories \"stories/*.md\")", i, err, formatList())
			}
			l.Extra = append(l.Extra, lay)
		}
		if f.UnitPaths != nil {
			l.Ignore = f.UnitPaths.Ignore
		}
		p.layouts = l
	}
	var globs []string
	if f.UnitPaths != nil {
		globs = append(globs, f.UnitPaths.Ignore...)
	}
	if f.BornTicked != nil {
		globs = append(globs, f.BornTicked.Allow...)
	}
	for _, g := range globs {
		if g == "" || strings.HasPrefix(g, "/") || strings.Contains(g, `\`) {
			return fmt.Errorf("path pattern %q: want a repository-relative pattern (elements: names, *, **)", g)
		}
	}
	return nil
}

// Name is the name the policy was loaded under (its file name, or REV:PATH).
func (p *Policy) Name() string { return p.name }

// Commit is the hex id of the commit the policy was read from
// ([ParseFromCommit]); "" for a policy read from a file, or the default. A
// verifier refuses a policy read from a commit it verifies
// (docs/format.md#choices-where-the-brief-leaves-room, "Trust and policy come
// from outside what is verified").
func (p *Policy) Commit() string { return p.commit }

// ParseFromCommit parses a policy file read from git (see Parse): rev is how
// it was named ("REV:PATH", its Name and the name in errors), commit the hex id
// REV resolved to, which the policy records ([Policy.Commit]).
func ParseFromCommit(data []byte, rev, commit string) (*Policy, error) {
	p, err := Parse(data, rev)
	if err != nil {
		return nil, err
	}
	p.commit = commit
	return p, nil
}

// file is the TOML document (docs/policy.md).
type file struct {
	Version        *int              `toml:"version"`
	Verdicts       []verdictConfig   `toml:"verdicts"`
	RegressionOnly *regressionConfig `toml:"regression_only"`
	Attested       *decisionConfig   `toml:"attested"`
	Skipped        *decisionConfig   `toml:"skipped"`
	Verified       *verifiedConfig   `toml:"verified"`
	Monitor        *monitorConfig    `toml:"monitor"`
	Mutation       *mutationConfig   `toml:"mutation"`
	Sandbox        *sandboxConfig    `toml:"sandbox"`
	Executor       *executorConfig   `toml:"executor"`
	PolicySHA256   *policySHAConfig  `toml:"policy_sha256"`
	Signers        *signersConfig    `toml:"signers"`
	Rules          []celConfig       `toml:"rule"`
	// Units are unit layouts added to the built-in ones, UnitPaths the tasks
	// files that are not units, BornTicked where born-ticked tasks are
	// allowed (docs/format.md#unit-layouts-in-the-policy).
	Units      []unitConfig      `toml:"units"`
	UnitPaths  *unitPathsConfig  `toml:"unit_paths"`
	BornTicked *bornTickedConfig `toml:"born_ticked"`
}

type unitConfig struct {
	Format string `toml:"format"`
	Tasks  string `toml:"tasks"`
}

type unitPathsConfig struct {
	Ignore []string `toml:"ignore"`
}

type bornTickedConfig struct {
	Allow []string `toml:"allow"`
}

type verdictConfig struct {
	Name    string   `toml:"name"`
	Units   []string `toml:"units"`
	Paths   []string `toml:"paths"`
	Allowed []string `toml:"allowed"`
	Level   Level    `toml:"level"`
}

type regressionConfig struct {
	Allowed  []string `toml:"allowed_reasons"`
	Denied   []string `toml:"denied_reasons"`
	MaxCount *int     `toml:"max_count"`
	MaxShare *float64 `toml:"max_share"`
	Level    Level    `toml:"level"`
}

type decisionConfig struct {
	Deciders      []string `toml:"deciders"`
	RequireReason bool     `toml:"require_reason"`
	Level         Level    `toml:"level"`
}

type verifiedConfig struct {
	RequireRed      bool     `toml:"require_red"`
	RedKinds        []string `toml:"red_kinds"`
	ExemptRevision1 bool     `toml:"exempt_revision_1"`
	Level           Level    `toml:"level"`
}

type monitorConfig struct {
	States []string `toml:"states"`
	Level  Level    `toml:"level"`
}

type mutationConfig struct {
	MinScore *float64 `toml:"min_score"`
	Level    Level    `toml:"level"`
}

type sandboxConfig struct {
	RequireNetworkOff bool  `toml:"require_network_off"`
	Level             Level `toml:"level"`
}

type executorConfig struct {
	Kinds []string `toml:"kinds"`
	Level Level    `toml:"level"`
}

type policySHAConfig struct {
	Pinned           []string `toml:"pinned"`
	AcceptRecomputed bool     `toml:"accept_recomputed"`
	// RequireRecomputed fails another writer's policy_sha256 that differs from
	// the recomputed value (docs/format.md#policy_sha256-of-other-writers).
	RequireRecomputed bool  `toml:"require_recomputed"`
	Level             Level `toml:"level"`
}

type signersConfig struct {
	Min *int `toml:"min"`
	// Count is what min counts: "keys" (the default: distinct key material)
	// or "principals" (distinct people: docs/format.md#signers-counted-by-principal).
	Count  string   `toml:"count"`
	Kinds  []string `toml:"kinds"`
	KeyIDs []string `toml:"keyids"`
	Level  Level    `toml:"level"`
}

type celConfig struct {
	Name    string `toml:"name"`
	When    string `toml:"when"`
	Require string `toml:"require"`
	Message string `toml:"message"`
	Level   Level  `toml:"level"`
}

type verdictScope struct {
	verdictConfig
	allowed map[string]bool
}

// MaxPolicyFile is the most bytes of a policy file read (a real policy is a
// few KiB; more is refused as unreadable).
const MaxPolicyFile = 1 << 20

// Load reads and parses the policy file at name (see Parse), up to
// MaxPolicyFile bytes. Errors match ErrPolicy.
func Load(name string) (*Policy, error) {
	b, err := inputfile.Read(name, MaxPolicyFile)
	if err != nil {
		msg := err.Error()
		if u := errors.Unwrap(err); u != nil {
			msg = u.Error()
		}
		return nil, &Error{File: name, Msg: "cannot read: " + msg}
	}
	return Parse(b, name)
}

var (
	ruleNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	sha256RE   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	verdicts   = set(string(predicate.Verified), string(predicate.RegressionOnly), string(predicate.Attested), string(predicate.Skipped))
	reasons    = set("no_story", "no_scenarios", "acceptance_off", "author_wrote_none", "author_failed",
		"already_passing", "not_red", "tests_not_collected", "planning_work", "unrecorded")
	redKinds      = set(string(predicate.RedAssertion), string(predicate.RedMissingSymbol))
	monitorStates = set("clean", "suspected", "unreviewed", "off")
	signerKinds   = set("ssh", "openpgp", "raw", "sigstore")
)

// What [signers] min counts.
const (
	countKeys       = "keys"
	countPrincipals = "principals"
)

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// Parse parses and type-checks a policy (docs/policy.md): TOML, strict (a key
// the format does not know is an error with its line and column), `version =
// 1` required, every list value checked against its vocabulary (verdicts,
// regression reasons, red kinds, monitor states, signer kinds), every glob
// checked, every CEL rule compiled against the declared variables with
// `require` and `when` of type bool. name names the file in errors. Every error
// is an *Error matching ErrPolicy.
func Parse(data []byte, name string) (*Policy, error) {
	var f file
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, tomlError(name, err)
	}
	p := &Policy{name: name, file: f, digest: sha256Hex(data)}
	if err := p.check(); err != nil {
		err.File = name
		return nil, err
	}
	return p, nil
}

// bad is the error of a check of Parse about rule ("" for the file as a
// whole); Parse names the file.
func bad(rule, format string, args ...any) *Error {
	return &Error{Rule: rule, Msg: fmt.Sprintf(format, args...)}
}

// check runs Parse's checks on the decoded file, in this order, the first
// failure winning: the unit layouts, the version, the verdict scopes, the
// built-in rules' tables, the CEL rules. Unset levels become LevelError.
func (p *Policy) check() *Error {
	f := &p.file
	if err := p.loadLayouts(); err != nil {
		return bad("", "%v", err)
	}
	if f.Version == nil {
		return bad("", "version is missing (want version = %d)", Version)
	}
	if *f.Version != Version {
		return bad("", "version %d is not supported (want %d)", *f.Version, Version)
	}
	names := map[string]bool{} // rule names taken
	if err := p.loadScopes(names); err != nil {
		return err
	}
	for _, check := range []func() *Error{
		f.RegressionOnly.check,
		func() *Error { return f.Attested.check("attested") },
		func() *Error { return f.Skipped.check("skipped") },
		f.Verified.check,
		f.Monitor.check,
		f.Mutation.check,
		f.Sandbox.check,
		f.Executor.check,
		f.PolicySHA256.check,
		f.Signers.check,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return p.compileRules(names)
}

// level checks a rule's level (checkLevel) as an error of rule.
func level(rule string, l *Level) *Error {
	if err := checkLevel(l); err != nil {
		return bad(rule, "%v", err)
	}
	return nil
}

// loadScopes checks the [[verdicts]] tables and builds the scopes; a scope's
// rule name is "verdicts.<name>", or "verdicts[<i>]" when it has none.
func (p *Policy) loadScopes(names map[string]bool) *Error {
	for i, v := range p.file.Verdicts {
		rn := v.Name
		if rn == "" {
			rn = fmt.Sprintf("verdicts[%d]", i)
		} else if !ruleNameRE.MatchString(rn) {
			return bad(rn, "verdicts[%d].name: want letters, digits, '_' or '-' (at most 64)", i)
		} else {
			rn = "verdicts." + rn
		}
		if names[rn] {
			return bad(rn, "duplicate rule name")
		}
		names[rn] = true
		if err := level(rn, &v.Level); err != nil {
			return err
		}
		if len(v.Allowed) == 0 {
			return bad(rn, "allowed is empty: list the verdicts allowed here")
		}
		if err := checkVocab("allowed", v.Allowed, verdicts); err != nil {
			return bad(rn, "%v", err)
		}
		for _, g := range append(append([]string{}, v.Units...), v.Paths...) {
			if _, err := path.Match(g, ""); err != nil {
				return bad(rn, "glob %q: %v", g, err)
			}
		}
		v.Name = rn
		p.scopes = append(p.scopes, verdictScope{verdictConfig: v, allowed: set(v.Allowed...)})
	}
	return nil
}

func (r *regressionConfig) check() *Error {
	if r == nil {
		return nil
	}
	if err := level(RuleRegressionReason, &r.Level); err != nil {
		return err
	}
	if err := checkVocab("allowed_reasons", r.Allowed, reasons); err != nil {
		return bad(RuleRegressionReason, "%v", err)
	}
	if err := checkVocab("denied_reasons", r.Denied, reasons); err != nil {
		return bad(RuleRegressionReason, "%v", err)
	}
	if r.MaxCount != nil && *r.MaxCount < 0 {
		return bad(RuleRegressionMaxCount, "max_count %d is negative", *r.MaxCount)
	}
	if r.MaxShare != nil && !(*r.MaxShare >= 0 && *r.MaxShare <= 1) {
		return bad(RuleRegressionMaxShare, "max_share %v is not within 0 and 1", *r.MaxShare)
	}
	return nil
}

// check checks the [attested] or [skipped] table; rule is its name.
func (d *decisionConfig) check(rule string) *Error {
	if d == nil {
		return nil
	}
	if err := level(rule, &d.Level); err != nil {
		return err
	}
	for _, s := range d.Deciders {
		if strings.TrimSpace(s) == "" {
			return bad(rule, "deciders: an empty name")
		}
	}
	return nil
}

// check checks the [verified] table; red_kinds defaults to both kinds.
func (v *verifiedConfig) check() *Error {
	if v == nil {
		return nil
	}
	if err := level(RuleVerifiedRed, &v.Level); err != nil {
		return err
	}
	if err := checkVocab("red_kinds", v.RedKinds, redKinds); err != nil {
		return bad(RuleVerifiedRed, "%v", err)
	}
	if len(v.RedKinds) == 0 {
		v.RedKinds = []string{string(predicate.RedAssertion), string(predicate.RedMissingSymbol)}
	}
	return nil
}

func (m *monitorConfig) check() *Error {
	if m == nil {
		return nil
	}
	if err := level(RuleMonitorState, &m.Level); err != nil {
		return err
	}
	if len(m.States) == 0 {
		return bad(RuleMonitorState, "states is empty (e.g. states = [\"clean\"])")
	}
	if err := checkVocab("states", m.States, monitorStates); err != nil {
		return bad(RuleMonitorState, "%v", err)
	}
	return nil
}

func (m *mutationConfig) check() *Error {
	if m == nil {
		return nil
	}
	if err := level(RuleMutationScore, &m.Level); err != nil {
		return err
	}
	if m.MinScore == nil || !(*m.MinScore >= 0 && *m.MinScore <= 1) {
		return bad(RuleMutationScore, "min_score must be given, within 0 and 1")
	}
	return nil
}

func (s *sandboxConfig) check() *Error {
	if s == nil {
		return nil
	}
	return level(RuleSandboxNetwork, &s.Level)
}

func (e *executorConfig) check() *Error {
	if e == nil {
		return nil
	}
	if err := level(RuleExecutorKind, &e.Level); err != nil {
		return err
	}
	if len(e.Kinds) == 0 {
		return bad(RuleExecutorKind, "kinds is empty")
	}
	return nil
}

func (s *policySHAConfig) check() *Error {
	if s == nil {
		return nil
	}
	if err := level(RulePolicySHA256, &s.Level); err != nil {
		return err
	}
	for _, h := range s.Pinned {
		if !sha256RE.MatchString(h) {
			return bad(RulePolicySHA256, "pinned %q is not 64 lowercase hex digits", h)
		}
	}
	if len(s.Pinned) == 0 && s.AcceptRecomputed {
		return bad(RulePolicySHA256, "accept_recomputed goes with a pinned list")
	}
	return nil
}

func (s *signersConfig) check() *Error {
	if s == nil {
		return nil
	}
	if err := level(RuleSignersMin, &s.Level); err != nil {
		return err
	}
	if s.Min != nil && *s.Min < 1 {
		return bad(RuleSignersMin, "min %d: want at least 1", *s.Min)
	}
	switch s.Count {
	case "", countKeys, countPrincipals:
	default:
		return bad(RuleSignersMin, "count %q: want %q (distinct keys, the default) or %q (distinct people)", s.Count, countKeys, countPrincipals)
	}
	if s.Count != "" && s.Min == nil {
		return bad(RuleSignersMin, "count goes with min")
	}
	if err := checkVocab("kinds", s.Kinds, signerKinds); err != nil {
		return bad(RuleSignersKinds, "%v", err)
	}
	return nil
}

// compileRules checks the [[rule]] tables' names (unique among every rule
// name) and levels and compiles their CEL.
func (p *Policy) compileRules(names map[string]bool) *Error {
	if len(p.file.Rules) == 0 {
		return nil
	}
	env, err := newEnv()
	if err != nil {
		return bad("", "cel environment: %v", err)
	}
	for i := range p.file.Rules {
		rc := p.file.Rules[i]
		if !ruleNameRE.MatchString(rc.Name) {
			return bad(rc.Name, "rule[%d].name: want 1 to 64 letters, digits, '_' or '-'", i)
		}
		if names[rc.Name] {
			return bad(rc.Name, "duplicate rule name")
		}
		names[rc.Name] = true
		if err := level(rc.Name, &rc.Level); err != nil {
			return err
		}
		r, err := compileRule(env, rc)
		if err != nil {
			return bad(rc.Name, "%v", err)
		}
		p.rules = append(p.rules, r)
	}
	return nil
}

func checkLevel(l *Level) error {
	switch *l {
	case "":
		*l = LevelError
	case LevelError, LevelWarn:
	default:
		return fmt.Errorf("level %q: want \"error\" or \"warn\"", string(*l))
	}
	return nil
}

func checkVocab(key string, xs []string, known map[string]bool) error {
	for _, x := range xs {
		if !known[x] {
			return fmt.Errorf("%s: unknown value %q", key, x)
		}
	}
	return nil
}

// tomlError converts go-toml's errors to an *Error with the position.
func tomlError(name string, err error) error {
	var de *toml.DecodeError
	var sm *toml.StrictMissingError
	switch {
	case errors.As(err, &sm) && len(sm.Errors) > 0:
		e := sm.Errors[0]
		line, col := e.Position()
		return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("unknown key %q", strings.Join(e.Key(), "."))}
	case errors.As(err, &de):
		line, col := de.Position()
		return &Error{File: name, Line: line, Column: col, Msg: decodeMessage(de)}
	}
	return &Error{File: name, Msg: err.Error()}
}

// typeMismatch is go-toml's message for a value of the wrong type: the TOML
// type found, then the Go type wanted (after "of type" for a struct field).
var typeMismatch = regexp.MustCompile(`^toml: cannot decode TOML (.+?) into (?:struct field \S+ of type )?(\S+)$`)

// decodeMessage says what is wrong at de's key in the file's own terms: the
// key and, for a value of the wrong type, the TOML type wanted and the one
// found (`signers.min: want an integer, not a string`), never the Go types
// the file is decoded into.
func decodeMessage(de *toml.DecodeError) string {
	key := strings.Join(de.Key(), ".")
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	if m := typeMismatch.FindStringSubmatch(de.Error()); m != nil {
		msg = fmt.Sprintf("want %s, not %s", tomlType(m[2]), article(m[1]))
	}
	if key == "" {
		return msg
	}
	return key + ": " + msg
}

// tomlType names the TOML type a Go type of the policy file decodes from.
func tomlType(goType string) string {
	goType = strings.TrimLeft(goType, "*")
	switch {
	case goType == "string" || strings.HasSuffix(goType, "Level"):
		return "a string"
	case goType == "bool":
		return "a boolean (true or false)"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "an integer"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case strings.HasPrefix(goType, "[]"):
		elem := tomlType(goType[2:])
		if elem == "a table" {
			return "an array of tables ([[…]])"
		}
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(elem, "an "), "a ") + "s"
	}
	return "a table"
}

// article puts "a" or "an" before a TOML type's name.
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// formatList is the unit formats a policy layout may name, for messages.
func formatList() string {
	var names []string
	for _, f := range specfmt.Formats {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}
