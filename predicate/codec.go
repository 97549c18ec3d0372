package predicate

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/taskproof/taskproof/internal/strictjson"
)

// Decode strictly decodes and validates a predicate from untrusted bytes: the strict
// decoder with the predicate's known keys ([KnownKeys]), the schema ([Validate]), then the
// typed fields ([FromValue]). Errors match [ErrMalformed] and name the key path.
func Decode(data []byte) (*Predicate, error) {
	v, err := strictjson.Decode(data, predicateKeys)
	if err != nil {
		return nil, err
	}
	return FromValue(v)
}

// FromValue validates a value tree (as the strict decoder returns it, e.g. the
// "predicate" member of a decoded Statement) against the schema
// and converts it to a [Predicate]. Integer members must be written as plain
// non-negative integers ("3", not "3.0" or "3e0"), as speccoder's serde reads them.
// Errors are a [*SchemaError] or a [*DecodeError] with Offset -1, both matching
// [ErrMalformed].
func FromValue(v any) (*Predicate, error) {
	if err := Validate(v); err != nil {
		return nil, err
	}
	r, err := newReader("", v)
	if err != nil {
		return nil, err
	}
	p := &Predicate{
		Revision:     optional(r, "revision", asUint32),
		Verdict:      Verdict(required(r, "verdict", asString)),
		Unit:         required(r, "unit", unitFrom),
		Task:         required(r, "task", taskFrom),
		Tree:         required(r, "tree", asString),
		Spec:         optional(r, "spec", specFrom),
		Trace:        optional(r, "trace", asAny),
		Integrity:    optional(r, "integrity", asAny),
		Monitor:      optional(r, "monitor", asAny),
		Mutation:     optional(r, "mutation", asAny),
		Sandbox:      optional(r, "sandbox", asAny),
		Executor:     optional(r, "executor", asAny),
		Model:        optional(r, "model", asAny),
		Run:          optional(r, "run", asAny),
		Decisions:    optional(r, "decisions", asAny),
		Strength:     optional(r, "strength", asAny),
		Instructions: optional(r, "instructions", asAny),
		Decider:      optional(r, "decider", deciderFrom),
		PolicySHA256: required(r, "policy_sha256", asString),
		Time:         required(r, "time", asString),
		Red:          optional(r, "red", redFrom),
		Bug:          optional(r, "bug", asAny),
		Acceptance:   optional(r, "acceptance", asAny),
		Regression:   optional(r, "regression", regressionFrom),
		Collection:   optional(r, "collection", collectionFrom),
		Context:      optional(r, "context", asAny),
		Dependencies: optional(r, "dependencies", asAny),
	}
	p.Extra = r.extra()
	if r.err != nil {
		return nil, r.err
	}
	return p, nil
}

// UnmarshalJSON is [Decode]: strict, validated.
func (p *Predicate) UnmarshalJSON(data []byte) error {
	q, err := Decode(data)
	if err != nil {
		return err
	}
	*p = *q
	return nil
}

// MarshalJSON returns the predicate's canonical JSON ([Predicate.Canonical]).
func (p *Predicate) MarshalJSON() ([]byte, error) { return p.Canonical() }

// Canonical returns the predicate's canonical JSON
// (docs/format.md#canonical-json), the bytes that are signed inside the
// Statement. It does not validate against the schema (see [Validate]); it fails
// when an Extra map names a known member (or a case variant of one), or holds a
// value the canonical encoder cannot encode.
func (p *Predicate) Canonical() ([]byte, error) {
	v, err := p.Value()
	if err != nil {
		return nil, err
	}
	return strictjson.Canonical(v)
}

// Value returns the predicate as a JSON value tree (map[string]any), as
// the strict decoder would return it for the predicate's canonical bytes.
func (p *Predicate) Value() (map[string]any, error) {
	w := newWriter("", p.Extra, predicateKeys)
	putOpt(w, "revision", p.Revision, func(n uint32) any { return json.Number(strconv.FormatUint(uint64(n), 10)) })
	w.put("verdict", string(p.Verdict))
	w.putv("unit", p.Unit.value)
	w.putv("task", p.Task.value)
	w.put("tree", p.Tree)
	putOptV(w, "spec", p.Spec, SpecRef.value)
	for _, f := range []struct {
		name string
		o    Opt[any]
	}{
		{"trace", p.Trace}, {"integrity", p.Integrity}, {"monitor", p.Monitor},
		{"mutation", p.Mutation}, {"sandbox", p.Sandbox}, {"executor", p.Executor},
		{"model", p.Model}, {"run", p.Run}, {"decisions", p.Decisions},
		{"strength", p.Strength}, {"instructions", p.Instructions}, {"bug", p.Bug},
		{"acceptance", p.Acceptance}, {"context", p.Context}, {"dependencies", p.Dependencies},
	} {
		putOpt(w, f.name, f.o, func(v any) any { return v })
	}
	putOptV(w, "decider", p.Decider, Decider.value)
	w.put("policy_sha256", p.PolicySHA256)
	w.put("time", p.Time)
	putOptV(w, "red", p.Red, Red.value)
	putOptV(w, "regression", p.Regression, RegressionReason.value)
	putOptV(w, "collection", p.Collection, Collection.value)
	return w.m, w.err
}

func (u Unit) value(path string) (map[string]any, error) {
	w := newWriter(path, u.Extra, predicateKeys.Members["unit"])
	w.put("format", u.Format)
	w.put("feature", u.Feature)
	w.put("dir", u.Dir)
	return w.m, w.err
}

func (t TaskRef) value(path string) (map[string]any, error) {
	w := newWriter(path, t.Extra, predicateKeys.Members["task"])
	w.put("id", t.ID)
	w.put("line_hash", t.LineHash)
	w.put("title", t.Title)
	return w.m, w.err
}

func (s SpecRef) value(path string) (map[string]any, error) {
	w := newWriter(path, s.Extra, predicateKeys.Members["spec"])
	putOpt(w, "section", s.Section, func(v string) any { return v })
	w.put("section_hash", s.SectionHash)
	return w.m, w.err
}

func (d Decider) value(path string) (map[string]any, error) {
	w := newWriter(path, d.Extra, predicateKeys.Members["decider"])
	w.put("by", d.By)
	w.put("reason", d.Reason)
	return w.m, w.err
}

func (r Red) value(path string) (map[string]any, error) {
	w := newWriter(path, r.Extra, predicateKeys.Members["red"])
	w.put("kind", string(r.Kind))
	putOpt(w, "excerpt", r.Excerpt, func(v string) any { return v })
	putOpt(w, "excerpt_sha256", r.ExcerptSHA256, func(v string) any { return v })
	w.put("output_sha256", r.OutputSHA256)
	w.put("withheld", r.Withheld)
	return w.m, w.err
}

func (g RegressionReason) value(path string) (map[string]any, error) {
	w := newWriter(path, g.Extra, predicateKeys.Members["regression"])
	w.put("reason", string(g.Reason))
	putOpt(w, "story", g.Story, func(v string) any { return v })
	putOpt(w, "detail", g.Detail, func(v string) any { return v })
	putOptV(w, "implemented_by", g.ImplementedBy, ImplementedBy.value)
	putOpt(w, "red_class", g.RedClass, func(v RedClass) any { return string(v) })
	return w.m, w.err
}

func (b ImplementedBy) value(path string) (map[string]any, error) {
	w := newWriter(path, b.Extra, predicateKeys.Members["regression"].Members["implemented_by"])
	putOpt(w, "task", b.Task, func(v string) any { return v })
	putOpt(w, "commit", b.Commit, func(v string) any { return v })
	putOpt(w, "before_feature", b.BeforeFeature, func(v bool) any { return v })
	return w.m, w.err
}

func (c Collection) value(path string) (map[string]any, error) {
	w := newWriter(path, c.Extra, predicateKeys.Members["collection"])
	files := make([]any, len(c.Files))
	for i, f := range c.Files {
		v, err := f.value(strictjson.JoinIndex(strictjson.JoinKey(path, "files"), i))
		if err != nil && w.err == nil {
			w.err = err
		}
		files[i] = v
	}
	w.put("files", files)
	putOpt(w, "listing", c.Listing, func(runs []ListingRun) any {
		items := make([]any, len(runs))
		for i, run := range runs {
			v, err := run.value(strictjson.JoinIndex(strictjson.JoinKey(path, "listing"), i))
			if err != nil && w.err == nil {
				w.err = err
			}
			items[i] = v
		}
		return items
	})
	return w.m, w.err
}

func (f FileCollection) value(path string) (map[string]any, error) {
	w := newWriter(path, f.Extra, predicateKeys.Members["collection"].Members["files"].Elem)
	w.put("path", f.Path)
	w.put("state", string(f.State))
	putOpt(w, "decided_by", f.DecidedBy, func(v DecidedBy) any { return string(v) })
	w.put("tests", json.Number(strconv.FormatUint(f.Tests, 10)))
	w.put("test_ids", strings2any(f.TestIDs))
	putOptV(w, "rule", f.Rule, CollectionRule.value)
	putOpt(w, "why", f.Why, func(v string) any { return v })
	putOpt(w, "fixes", f.Fixes, func(v []string) any { return strings2any(v) })
	return w.m, w.err
}

func (c CollectionRule) value(path string) (map[string]any, error) {
	w := newWriter(path, c.Extra, predicateKeys.Members["collection"].Members["files"].Elem.Members["rule"])
	w.put("toolchain", string(c.Toolchain))
	w.put("text", c.Text)
	w.put("source", c.Source)
	return w.m, w.err
}

func (l ListingRun) value(path string) (map[string]any, error) {
	w := newWriter(path, l.Extra, predicateKeys.Members["collection"].Members["listing"].Elem)
	w.put("argv", strings2any(l.Argv))
	w.put("duration_ms", json.Number(strconv.FormatUint(l.DurationMS, 10)))
	w.put("status", string(l.Status))
	return w.m, w.err
}

func strings2any(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// writer builds one JSON object from Extra plus the known members.
type writer struct {
	path string
	m    map[string]any
	err  error
}

func newWriter(path string, extra map[string]any, known *strictjson.KnownKeys) *writer {
	w := &writer{path: path, m: make(map[string]any, len(extra)+8)}
	for k, v := range extra {
		for name := range known.Members {
			if strings.EqualFold(k, name) && w.err == nil {
				w.err = fmt.Errorf("predicate: %s: Extra holds %q, a spelling of known member %q",
					strictjson.Where(path), k, name)
			}
		}
		w.m[k] = v
	}
	return w
}

func (w *writer) put(key string, v any) { w.m[key] = v }

func (w *writer) putv(key string, f func(path string) (map[string]any, error)) {
	v, err := f(strictjson.JoinKey(w.path, key))
	if err != nil && w.err == nil {
		w.err = err
	}
	w.m[key] = v
}

func putOpt[T any](w *writer, key string, o Opt[T], conv func(T) any) {
	switch {
	case !o.Set:
	case o.Null:
		w.m[key] = nil
	default:
		w.m[key] = conv(o.V)
	}
}

func putOptV[T any](w *writer, key string, o Opt[T], f func(T, string) (map[string]any, error)) {
	switch {
	case !o.Set:
	case o.Null:
		w.m[key] = nil
	default:
		w.putv(key, func(path string) (map[string]any, error) { return f(o.V, path) })
	}
}

// reader takes the known members of one JSON object; what is left is Extra.
type reader struct {
	path string
	m    map[string]any
	used map[string]bool
	err  error
}

func newReader(path string, v any) (*reader, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, typeError(path, "an object", v)
	}
	return &reader{path: path, m: m, used: map[string]bool{}}, nil
}

func (r *reader) extra() map[string]any {
	var out map[string]any
	for k, v := range r.m {
		if !r.used[k] {
			if out == nil {
				out = map[string]any{}
			}
			out[k] = v
		}
	}
	return out
}

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func required[T any](r *reader, key string, conv func(string, any) (T, error)) T {
	var zero T
	r.used[key] = true
	path := strictjson.JoinKey(r.path, key)
	v, ok := r.m[key]
	if !ok {
		r.fail(&DecodeError{Path: path, Offset: -1, Reason: "required member missing"})
		return zero
	}
	t, err := conv(path, v)
	if err != nil {
		r.fail(err)
		return zero
	}
	return t
}

func optional[T any](r *reader, key string, conv func(string, any) (T, error)) Opt[T] {
	r.used[key] = true
	v, ok := r.m[key]
	switch {
	case !ok:
		return Opt[T]{}
	case v == nil:
		return Null[T]()
	}
	t, err := conv(strictjson.JoinKey(r.path, key), v)
	if err != nil {
		r.fail(err)
		return Opt[T]{}
	}
	return Some(t)
}

func typeError(path, want string, got any) *DecodeError {
	return &DecodeError{Path: path, Offset: -1, Reason: fmt.Sprintf("want %s, got %s", want, jsonKind(got))}
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("Go type %T", v)
	}
}

func asAny(_ string, v any) (any, error) { return v, nil }

func asString(path string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", typeError(path, "a string", v)
	}
	return s, nil
}

func asBool(path string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, typeError(path, "a boolean", v)
	}
	return b, nil
}

func asUint(path string, v any, bits int) (uint64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, typeError(path, "an integer", v)
	}
	s := string(n)
	if s == "" || strings.Trim(s, "0123456789") != "" || (len(s) > 1 && s[0] == '0') {
		return 0, &DecodeError{Path: path, Offset: -1,
			Reason: fmt.Sprintf("want a non-negative integer written in plain digits, got %s", s)}
	}
	u, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, &DecodeError{Path: path, Offset: -1, Reason: fmt.Sprintf("integer %s out of range for %d bits", s, bits)}
	}
	return u, nil
}

func asUint32(path string, v any) (uint32, error) {
	u, err := asUint(path, v, 32)
	return uint32(u), err
}

func asUint64(path string, v any) (uint64, error) { return asUint(path, v, 64) }

func asStrings(path string, v any) ([]string, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, typeError(path, "an array of strings", v)
	}
	out := make([]string, len(items))
	for i, item := range items {
		s, err := asString(strictjson.JoinIndex(path, i), item)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func unitFrom(path string, v any) (Unit, error) {
	r, err := newReader(path, v)
	if err != nil {
		return Unit{}, err
	}
	u := Unit{
		Format:  required(r, "format", asString),
		Feature: required(r, "feature", asString),
		Dir:     required(r, "dir", asString),
	}
	u.Extra = r.extra()
	return u, r.err
}

func taskFrom(path string, v any) (TaskRef, error) {
	r, err := newReader(path, v)
	if err != nil {
		return TaskRef{}, err
	}
	t := TaskRef{
		ID:       required(r, "id", asString),
		LineHash: required(r, "line_hash", asString),
		Title:    required(r, "title", asString),
	}
	t.Extra = r.extra()
	return t, r.err
}

func specFrom(path string, v any) (SpecRef, error) {
	r, err := newReader(path, v)
	if err != nil {
		return SpecRef{}, err
	}
	s := SpecRef{
		Section:     optional(r, "section", asString),
		SectionHash: required(r, "section_hash", asString),
	}
	s.Extra = r.extra()
	return s, r.err
}

func deciderFrom(path string, v any) (Decider, error) {
	r, err := newReader(path, v)
	if err != nil {
		return Decider{}, err
	}
	d := Decider{By: required(r, "by", asString), Reason: required(r, "reason", asString)}
	d.Extra = r.extra()
	return d, r.err
}

func redFrom(path string, v any) (Red, error) {
	r, err := newReader(path, v)
	if err != nil {
		return Red{}, err
	}
	red := Red{
		Kind:          RedKind(required(r, "kind", asString)),
		Excerpt:       optional(r, "excerpt", asString),
		ExcerptSHA256: optional(r, "excerpt_sha256", asString),
		OutputSHA256:  required(r, "output_sha256", asString),
		Withheld:      required(r, "withheld", asBool),
	}
	red.Extra = r.extra()
	return red, r.err
}

func regressionFrom(path string, v any) (RegressionReason, error) {
	r, err := newReader(path, v)
	if err != nil {
		return RegressionReason{}, err
	}
	g := RegressionReason{
		Reason:        Reason(required(r, "reason", asString)),
		Story:         optional(r, "story", asString),
		Detail:        optional(r, "detail", asString),
		ImplementedBy: optional(r, "implemented_by", implementedByFrom),
		RedClass: optional(r, "red_class", func(p string, v any) (RedClass, error) {
			s, err := asString(p, v)
			return RedClass(s), err
		}),
	}
	g.Extra = r.extra()
	return g, r.err
}

func implementedByFrom(path string, v any) (ImplementedBy, error) {
	r, err := newReader(path, v)
	if err != nil {
		return ImplementedBy{}, err
	}
	b := ImplementedBy{
		Task:          optional(r, "task", asString),
		Commit:        optional(r, "commit", asString),
		BeforeFeature: optional(r, "before_feature", asBool),
	}
	b.Extra = r.extra()
	return b, r.err
}

func collectionFrom(path string, v any) (Collection, error) {
	r, err := newReader(path, v)
	if err != nil {
		return Collection{}, err
	}
	c := Collection{
		Files: required(r, "files", func(p string, v any) ([]FileCollection, error) {
			return arrayOf(p, v, fileFrom)
		}),
		Listing: optional(r, "listing", func(p string, v any) ([]ListingRun, error) {
			return arrayOf(p, v, listingFrom)
		}),
	}
	c.Extra = r.extra()
	return c, r.err
}

func arrayOf[T any](path string, v any, conv func(string, any) (T, error)) ([]T, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, typeError(path, "an array", v)
	}
	out := make([]T, len(items))
	for i, item := range items {
		t, err := conv(strictjson.JoinIndex(path, i), item)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

func fileFrom(path string, v any) (FileCollection, error) {
	r, err := newReader(path, v)
	if err != nil {
		return FileCollection{}, err
	}
	f := FileCollection{
		Path:  required(r, "path", asString),
		State: FileState(required(r, "state", asString)),
		DecidedBy: optional(r, "decided_by", func(p string, v any) (DecidedBy, error) {
			s, err := asString(p, v)
			return DecidedBy(s), err
		}),
		Tests:   required(r, "tests", asUint64),
		TestIDs: required(r, "test_ids", asStrings),
		Rule:    optional(r, "rule", ruleFrom),
		Why:     optional(r, "why", asString),
		Fixes:   optional(r, "fixes", asStrings),
	}
	f.Extra = r.extra()
	return f, r.err
}

func ruleFrom(path string, v any) (CollectionRule, error) {
	r, err := newReader(path, v)
	if err != nil {
		return CollectionRule{}, err
	}
	c := CollectionRule{
		Toolchain: Toolchain(required(r, "toolchain", asString)),
		Text:      required(r, "text", asString),
		Source:    required(r, "source", asString),
	}
	c.Extra = r.extra()
	return c, r.err
}

func listingFrom(path string, v any) (ListingRun, error) {
	r, err := newReader(path, v)
	if err != nil {
		return ListingRun{}, err
	}
	l := ListingRun{
		Argv:       required(r, "argv", asStrings),
		DurationMS: required(r, "duration_ms", asUint64),
		Status:     CheckStatus(required(r, "status", asString)),
	}
	l.Extra = r.extra()
	return l, r.err
}
