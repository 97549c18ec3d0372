package statement

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"

	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/taskproof/taskproof/internal/strictjson"
	"github.com/taskproof/taskproof/predicate"
)

// Statement and predicate types (docs/format.md#statements).
const (
	// Type is the in-toto Statement v1 _type; v0.1 and anything else are
	// refused when reading (docs/format.md#verification-rules).
	Type = "https://in-toto.io/Statement/v1"
	// TestResultType is the predicateType of one test phase's result.
	TestResultType = "https://in-toto.io/attestation/test-result/v0.1"
	// VSAType is the predicateType of the verification summary naming a tick's
	// other statements.
	VSAType = "https://slsa.dev/verification_summary/v1"
	// VerifierID is the VSA's verifier.id (docs/format.md#statements).
	VerifierID = "https://github.com/taskproof/taskproof"
	// judgePolicyURI is the VSA's policy.uri (docs/format.md#statements).
	judgePolicyURI = "https://speccoder.dev/policy/judge-config/v0"
)

// ErrMalformed is matched (errors.Is) by every error [Decode] returns
// for a payload that is not an in-toto Statement v1 taskproof can read
// (docs/format.md#verification-rules: malformed).
var ErrMalformed = errors.New("malformed statement")

// Error says why a payload is not a readable Statement. Field is the JSON
// member at fault ("_type", "subject[0].digest.gitCommit").
type Error struct {
	Field  string
	Reason string
	Err    error // the decoder's error, when there is one
}

func (e *Error) Error() string {
	if e.Field == "" {
		return "malformed statement: " + e.Reason
	}
	return "malformed statement: " + e.Field + ": " + e.Reason
}

// Is reports whether target is [ErrMalformed].
func (e *Error) Is(target error) bool { return target == ErrMalformed }

func (e *Error) Unwrap() error { return e.Err }

// Subject is a Statement subject as taskproof writes it: Name is
// "<feature>/<task id>", GitCommit the commit's lowercase hex id (docs/format.md#statements).
type Subject struct {
	Name      string
	GitCommit string
}

// SubjectName is the subject name of task id in unit feature: "<feature>/<task id>".
func SubjectName(feature, taskID string) string { return feature + "/" + taskID }

// Statement is a decoded in-toto Statement. Predicate is the predicate as a JSON
// value tree (strictjson.Decode's shapes); Subjects keeps every subject as
// written, so that verification can insist on exactly one.
type Statement struct {
	Type          string
	Subjects      []DecodedSubject
	PredicateType string
	Predicate     any
}

// DecodedSubject is one subject of a decoded Statement: its name and digest set.
type DecodedSubject struct {
	Name   string
	Digest map[string]string
}

// statementKeys is the strict decoder's known-key table of an in-toto
// Statement v1 whose predicate is read with the task-verification predicate's
// table.
var statementKeys = &strictjson.KnownKeys{Members: map[string]*strictjson.KnownKeys{
	"_type": nil,
	"subject": {Elem: &strictjson.KnownKeys{Members: map[string]*strictjson.KnownKeys{
		"name": nil, "uri": nil, "digest": nil, "content": nil,
		"downloadLocation": nil, "mediaType": nil, "annotations": nil,
	}}},
	"predicateType": nil,
	"predicate":     predicate.KnownKeys(),
}}

var hexID = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// Encode returns the canonical JSON bytes
// (docs/format.md#canonical-json) of the Statement v1 with one subject and the
// given predicate (a JSON value tree or a type with a Value() method such as
// *predicate.Predicate). The bytes are checked with in-toto/attestation's
// Statement v1 validation before they are returned, so a subject without a
// well-formed gitCommit digest is an error.
func Encode(subject Subject, predicateType string, pred any) ([]byte, error) {
	if !hexID.MatchString(subject.GitCommit) {
		return nil, fmt.Errorf("statement subject %q: gitCommit %q is not a lowercase hex commit id", subject.Name, subject.GitCommit)
	}
	if subject.Name == "" || predicateType == "" {
		return nil, errors.New("statement: subject name and predicateType are required")
	}
	if v, ok := pred.(valuer); ok {
		m, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("statement %s: %w", subject.Name, err)
		}
		pred = m
	}
	stmt := map[string]any{
		"_type": Type,
		"subject": []any{map[string]any{
			"name":   subject.Name,
			"digest": map[string]any{"gitCommit": subject.GitCommit},
		}},
		"predicateType": predicateType,
		"predicate":     pred,
	}
	b, err := strictjson.Canonical(stmt)
	if err != nil {
		return nil, fmt.Errorf("statement %s: %w", subject.Name, err)
	}
	if err := validateInToto(b, len(subject.GitCommit) == 40); err != nil {
		return nil, fmt.Errorf("statement %s: %w", subject.Name, err)
	}
	return b, nil
}

// valuer is a predicate that gives its JSON value tree (*predicate.Predicate).
type valuer interface {
	Value() (map[string]any, error)
}

// validateInToto checks canonical Statement bytes with in-toto/attestation's
// Statement v1 validation. That library only knows SHA-1 lengths for gitCommit,
// so a SHA-256 repository's 64-hex commit id is checked by Encode's own
// pattern and the library's digest check is skipped for it.
func validateInToto(b []byte, sha1Repo bool) error {
	var st intoto.Statement
	if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(b, &st); err != nil {
		return fmt.Errorf("in-toto statement: %w", err)
	}
	if !sha1Repo {
		for _, s := range st.GetSubject() {
			s.Digest = map[string]string{"sha256": "0000000000000000000000000000000000000000000000000000000000000000"}
		}
	}
	if err := st.Validate(); err != nil {
		return fmt.Errorf("in-toto statement: %w", err)
	}
	return nil
}

// Decode strictly decodes a DSSE payload as an in-toto Statement
// (docs/format.md#verification-rules, docs/format.md#canonical-json): strict
// JSON (duplicate keys, case-variant known keys, invalid UTF-8 and depth beyond
// 64 refused), `_type` exactly [Type] (v0.1, unknown or absent:
// malformed), a non-empty predicateType, subjects with string names and string
// digests, and a JSON object predicate. Errors match [ErrMalformed]. Whether
// the subject and predicateType are the expected ones is the verifier's
// business, not the decoder's.
func Decode(payload []byte) (*Statement, error) {
	v, err := strictjson.Decode(payload, statementKeys)
	if err != nil {
		return nil, &Error{Reason: err.Error(), Err: err}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Reason: "not a JSON object"}
	}
	st := &Statement{}
	typ, ok := obj["_type"].(string)
	switch {
	case !ok:
		return nil, &Error{Field: "_type", Reason: "absent or not a string"}
	case typ != Type:
		return nil, &Error{Field: "_type", Reason: fmt.Sprintf("%q is not %q", typ, Type)}
	}
	st.Type = typ
	if st.PredicateType, ok = obj["predicateType"].(string); !ok || st.PredicateType == "" {
		return nil, &Error{Field: "predicateType", Reason: "absent, empty or not a string"}
	}
	subs, ok := obj["subject"].([]any)
	if !ok || len(subs) == 0 {
		return nil, &Error{Field: "subject", Reason: "absent, empty or not an array"}
	}
	for i, s := range subs {
		so, ok := s.(map[string]any)
		if !ok {
			return nil, &Error{Field: fmt.Sprintf("subject[%d]", i), Reason: "not an object"}
		}
		var sub DecodedSubject
		if n, present := so["name"]; present {
			if sub.Name, ok = n.(string); !ok {
				return nil, &Error{Field: fmt.Sprintf("subject[%d].name", i), Reason: "not a string"}
			}
		}
		dg, ok := so["digest"].(map[string]any)
		if !ok {
			return nil, &Error{Field: fmt.Sprintf("subject[%d].digest", i), Reason: "absent or not an object"}
		}
		sub.Digest = make(map[string]string, len(dg))
		for alg, d := range dg {
			ds, ok := d.(string)
			if !ok {
				return nil, &Error{Field: fmt.Sprintf("subject[%d].digest.%s", i, alg), Reason: "not a string"}
			}
			sub.Digest[alg] = ds
		}
		st.Subjects = append(st.Subjects, sub)
	}
	pred, ok := obj["predicate"].(map[string]any)
	if !ok {
		return nil, &Error{Field: "predicate", Reason: "absent or not an object"}
	}
	st.Predicate = pred
	return st, nil
}

// SHA256Hex is the lowercase hex SHA-256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
