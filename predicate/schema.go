package predicate

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/taskproof/taskproof/internal/strictjson"
)

// SchemaURL is the $id the embedded JSON Schema of the predicate is registered under:
// the $id the published schema declares itself. It is never fetched: the schema is
// compiled from the copy embedded in the binary (predicate/schema), with no loader.
const SchemaURL = "https://hupe1980.github.io/speccoder/schemas/task-verification-v0.json"

//go:embed schema/task-verification-v0.schema.json
var schemaJSON []byte

// ErrSchema is the kind of a predicate that does not match the schema; a
// [*SchemaError] matches it and [ErrMalformed].
var ErrSchema = errors.New("predicate does not match its schema")

// SchemaError is a schema validation failure: Path is the failing instance location
// as a key path ("task.line_hash", "collection.files[0].tests", "" for the top
// level), Reason what the schema wanted there.
type SchemaError struct {
	Path   string
	Reason string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("predicate does not match its schema at %s: %s", strictjson.Where(e.Path), e.Reason)
}

// Is reports whether target is [ErrSchema] or [ErrMalformed].
func (e *SchemaError) Is(target error) bool { return target == ErrSchema || target == ErrMalformed }

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource(SchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaURL)
})

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("predicate schema: refusing to load %s: no network, no files", url)
}

// Validate checks a predicate value tree (as the strict decoder returns it) against the
// embedded schema (revision 3, [SchemaURL]). Formats are not asserted (the schema's
// "uint32"/"uint" formats are covered by "minimum" and "integer"). The error is a
// [*SchemaError] naming the deepest failing instance location.
func Validate(v any) error {
	sch, err := compiled()
	if err != nil {
		return fmt.Errorf("predicate: compiling the embedded schema: %w", err)
	}
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &SchemaError{Reason: err.Error()}
	}
	leaf := deepest(ve)
	path := ""
	for _, tok := range leaf.InstanceLocation {
		if isIndex(tok) {
			path += "[" + tok + "]"
		} else {
			path = strictjson.JoinKey(path, tok)
		}
	}
	return &SchemaError{Path: path, Reason: schemaReason(leaf)}
}

// deepest follows the causes down to the most specific failure. Below a oneOf or
// anyOf it skips the branches that failed only because they are the wrong branch (a
// const mismatch, or a type mismatch of the value itself), and stops at the oneOf
// when every branch is the wrong one.
func deepest(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		causes := ve.Causes
		switch ve.ErrorKind.(type) {
		case *kind.OneOf, *kind.AnyOf:
			var right []*jsonschema.ValidationError
			for _, c := range causes {
				if !wrongBranch(c, len(ve.InstanceLocation)) {
					right = append(right, c)
				}
			}
			if len(right) == 0 {
				return ve
			}
			causes = right
		}
		best := causes[0]
		for _, c := range causes[1:] {
			if len(c.InstanceLocation) > len(best.InstanceLocation) {
				best = c
			}
		}
		ve = best
	}
	return ve
}

func wrongBranch(ve *jsonschema.ValidationError, depth int) bool {
	switch ve.ErrorKind.(type) {
	case *kind.Const:
		return true
	case *kind.Type:
		return len(ve.InstanceLocation) == depth
	case *kind.OneOf, *kind.AnyOf:
		return false // a nested choice failing is this branch's own failure
	}
	for _, c := range ve.Causes {
		if wrongBranch(c, depth) {
			return true
		}
	}
	return false
}

func schemaReason(leaf *jsonschema.ValidationError) string {
	msg := leaf.Error()
	// jsonschema prefixes "at '/x': "; the path is reported separately.
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "at ") {
		msg = msg[i+2:]
	}
	return msg
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
