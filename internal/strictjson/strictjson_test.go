package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func vectorDir(t testing.TB, recipe string) string {
	t.Helper()
	return filepath.Join("..", "..", "testdata", "vectors", recipe)
}

// TestCanonicalVectors checks every testdata/vectors/canonical/NAME.json against
// NAME.canonical (expected bytes made with python3 json.dumps(sort_keys=True,
// separators=(",",":"), ensure_ascii=False), numbers written by hand).
func TestCanonicalVectors(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join(vectorDir(t, "canonical"), "*.json"))
	if err != nil || len(inputs) < 7 {
		t.Fatalf("canonical vectors: %v (found %d)", err, len(inputs))
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(in, ".json") + ".canonical")
			if err != nil {
				t.Fatal(err)
			}
			v, err := Decode(src, nil)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			got, err := Canonical(v)
			if err != nil {
				t.Fatalf("Canonical: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("canonical bytes\n got %q\nwant %q", got, want)
			}
			// Canonical bytes are a fixed point.
			v2, err := Decode(got, nil)
			if err != nil {
				t.Fatalf("re-decode: %v", err)
			}
			again, _ := Canonical(v2)
			if !bytes.Equal(again, got) {
				t.Errorf("not a fixed point: %q", again)
			}
		})
	}
}

func TestCanonicalEscapes(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"\x00", `"\u0000"`},
		{"\x1f", `"\u001f"`},
		{"\x7f", "\"\x7f\""},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{`"\`, `"\"\\"`},
		{"</script>&", `"</script>&"`},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"é😀", `"é😀"`},
	}
	for _, tt := range tests {
		got, err := Canonical(tt.in)
		if err != nil {
			t.Fatalf("Canonical(%q): %v", tt.in, err)
		}
		if string(got) != tt.want {
			t.Errorf("Canonical(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestCanonicalRejects(t *testing.T) {
	for name, v := range map[string]any{
		"invalid utf-8 string": "a\xffb",
		"invalid utf-8 key":    map[string]any{"k\xff": 1},
		"bad number":           json.Number("1.e5"),
		"nan":                  math.NaN(),
		"unsupported type":     struct{}{},
		"nested bad":           []any{map[string]any{"a": json.Number("01")}},
	} {
		if _, err := Canonical(v); err == nil {
			t.Errorf("%s: Canonical succeeded", name)
		}
	}
}

func TestDecodeStrict(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name     string
		in       string
		known    *KnownKeys
		wantPath string // "" with wantOK false means top level
		wantOK   bool
		reason   string
	}{
		{name: "ok object", in: ` {"a": [1, "x", null, true]} `, wantOK: true},
		{name: "depth 64 ok", in: deep(64), wantOK: true},
		{name: "depth 65", in: deep(65), wantPath: strings.Repeat("[0]", 64), reason: "nesting deeper"},
		{name: "object depth 65", in: strings.Repeat(`{"a":`, 65) + "1" + strings.Repeat("}", 65),
			wantPath: strings.TrimPrefix(strings.Repeat(".a", 64), "."), reason: "nesting deeper"},
		{name: "duplicate top", in: `{"a":1,"a":2}`, wantPath: "a", reason: "duplicate key"},
		{name: "duplicate nested", in: `{"predicate":{"task":{"line_hash":"x","line_hash":"y"}}}`,
			wantPath: "predicate.task.line_hash", reason: "duplicate key"},
		{name: "duplicate in array item", in: `{"subject":[{"name":"a"},{"name":"a","name":"b"}]}`,
			wantPath: "subject[1].name", reason: "duplicate key"},
		{name: "duplicate via escape", in: `{"a":1,"\u0061":2}`, wantPath: "a", reason: "duplicate key"},
		{name: "case variant statement", in: `{"_type":"x","PredicateType":"y"}`, known: testStatementKeys,
			wantPath: "PredicateType", reason: `known key "predicateType"`},
		{name: "case variant predicate", in: `{"predicate":{"task":{"Line_Hash":"x"}}}`, known: testStatementKeys,
			wantPath: "predicate.task.Line_Hash", reason: `known key "line_hash"`},
		{name: "case variant subject", in: `{"subject":[{"Name":"x"}]}`, known: testStatementKeys,
			wantPath: "subject[0].Name", reason: `known key "name"`},
		{name: "case variant envelope sig", in: `{"signatures":[{"KeyID":"x"}]}`, known: testEnvelopeKeys,
			wantPath: "signatures[0].KeyID", reason: `known key "keyid"`},
		{name: "kelvin sign folds to k", in: `{"signatures":[{"\u212aeyid":"x"}]}`, known: testEnvelopeKeys,
			wantPath: "signatures[0][\"\u212aeyid\"]", reason: `known key "keyid"`},
		{name: "case variant allowed without table", in: `{"PredicateType":"y"}`, wantOK: true},
		{name: "unknown keys allowed", in: `{"predicateType":"y","extra":{"PredicateType":1}}`, known: testStatementKeys, wantOK: true},
		{name: "invalid utf-8 in value", in: "{\"predicate\":{\"verdict\":\"a\xffb\"}}", wantPath: "predicate.verdict", reason: "invalid UTF-8"},
		{name: "invalid utf-8 in key", in: "{\"a\xc3\":1}", reason: "invalid UTF-8"},
		{name: "overlong utf-8", in: "[\"\xc0\xaf\"]", wantPath: "[0]", reason: "invalid UTF-8"},
		{name: "encoded surrogate utf-8", in: "[\"\xed\xa0\x80\"]", wantPath: "[0]", reason: "invalid UTF-8"},
		{name: "lone high surrogate", in: `{"a":"\ud800"}`, wantPath: "a", reason: "unpaired surrogate"},
		{name: "lone low surrogate", in: `{"a":"\udc00x"}`, wantPath: "a", reason: "unpaired surrogate"},
		{name: "surrogate pair ok", in: `["\ud83d\ude00"]`, wantOK: true},
		{name: "raw control", in: "[\"a\nb\"]", wantPath: "[0]", reason: "control character"},
		{name: "bad escape", in: `["\x41"]`, wantPath: "[0]", reason: "bad escape"},
		{name: "trailing data", in: `{} {}`, reason: "data after"},
		{name: "trailing comma", in: `[1,]`, wantPath: "[1]", reason: "unexpected character"},
		{name: "leading zero", in: `[01]`, reason: "expected ',' or ']'"},
		{name: "bare dot", in: `[1.]`, wantPath: "[0]", reason: "bad number"},
		{name: "plus sign", in: `[+1]`, wantPath: "[0]", reason: "unexpected character"},
		{name: "nan", in: `[NaN]`, wantPath: "[0]", reason: "unexpected character"},
		{name: "bom", in: "\ufeff{}", reason: "unexpected character"},
		{name: "empty", in: ``, reason: "unexpected end"},
		{name: "truncated", in: `{"a":`, wantPath: "a", reason: "unexpected end"},
		{name: "single quotes", in: `{'a':1}`, reason: "expected a member name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.in), tt.known)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Decode succeeded, want an error")
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("errors.Is(err, ErrMalformed) = false for %v", err)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not *DecodeError", err)
			}
			if de.Path != tt.wantPath {
				t.Errorf("Path = %q, want %q (%v)", de.Path, tt.wantPath, err)
			}
			if !strings.Contains(de.Reason, tt.reason) {
				t.Errorf("Reason = %q, want it to contain %q", de.Reason, tt.reason)
			}
		})
	}
}

func TestDecodeKeepsNumbersAsWritten(t *testing.T) {
	v, err := Decode([]byte(`[1.50, -0, 1E+5, 12345678901234567890123]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{json.Number("1.50"), json.Number("-0"), json.Number("1E+5"), json.Number("12345678901234567890123")}
	got := v.([]any)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d = %#v, want %#v", i, got[i], want[i])
		}
	}
}

// TestFormatFloat checks the ryu layout with values whose serde_json output is known.
func TestFormatFloat(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-12, "-12.0"},
		{0.1, "0.1"},
		{0.5, "0.5"},
		{12.34, "12.34"},
		{1e15, "1000000000000000.0"},
		{1e16, "1e16"},
		{1.5e16, "1.5e16"},
		{123456789012345680, "1.2345678901234568e17"},
		{0.0001, "0.0001"},
		{1e-5, "0.00001"},
		{1e-6, "1e-6"},
		{2.5e-7, "2.5e-7"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e308"},
		{0.30000000000000004, "0.30000000000000004"},
	}
	for _, tt := range tests {
		got, err := FormatFloat(tt.f)
		if err != nil {
			t.Fatalf("FormatFloat(%v): %v", tt.f, err)
		}
		if got != tt.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := FormatFloat(f); err == nil {
			t.Errorf("FormatFloat(%v) succeeded", f)
		}
	}
}

// FuzzDecodePaths checks Decode's fast pass (no key paths) against the
// pass with paths: the same value, or an error at the same offset for the
// same reason, the one Decode returns being the pass with paths'.
func FuzzDecodePaths(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":"c"}]}`, `{"a":1,"a":2}`, `{"subject":[{"Name":"x"}]}`, `{"predicate":{"task":{"id":"T1","ID":2}}}`, `[1,[2,[3,`, `{"x y":{"":tru}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ferr := decode(data, testStatementKeys, false)
		slow, serr := decode(data, testStatementKeys, true)
		if !reflect.DeepEqual(fast, slow) || (ferr == nil) != (serr == nil) {
			t.Fatalf("fast %v, %v; with paths %v, %v", fast, ferr, slow, serr)
		}
		_, err := Decode(data, testStatementKeys)
		if serr == nil {
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			return
		}
		var fe, se *DecodeError
		if !errors.As(ferr, &fe) || !errors.As(serr, &se) || fe.Offset != se.Offset || fe.Reason != se.Reason {
			t.Fatalf("fast error %v, with paths %v", ferr, serr)
		}
		if !reflect.DeepEqual(err, serr) {
			t.Fatalf("Decode error %v, want %v", err, serr)
		}
	})
}

// The tables of the tests: the shapes of a Statement and a DSSE envelope, as
// far as the cases above read them.
var (
	testStatementKeys = &KnownKeys{Members: map[string]*KnownKeys{
		"_type": nil,
		"subject": {Elem: &KnownKeys{Members: map[string]*KnownKeys{
			"name": nil, "digest": nil,
		}}},
		"predicateType": nil,
		"predicate": {Members: map[string]*KnownKeys{
			"verdict": nil,
			"task":    {Members: map[string]*KnownKeys{"id": nil, "line_hash": nil, "title": nil}},
		}},
	}}
	testEnvelopeKeys = &KnownKeys{Members: map[string]*KnownKeys{
		"payloadType": nil,
		"payload":     nil,
		"signatures": {Elem: &KnownKeys{Members: map[string]*KnownKeys{
			"keyid": nil, "sig": nil,
		}}},
	}}
)

// TestEverywhere: an Everywhere table refuses a case variant of its names at
// any depth, below unknown members and in arrays too, and names the key.
func TestEverywhere(t *testing.T) {
	known := Everywhere("mediaType", "rawBytes")
	for _, in := range []string{
		`{"MediaType":1}`,
		`{"x":{"y":[{"RAWBYTES":1}]}}`,
		`{"mediaType":{"rawbytes":1}}`,
	} {
		_, err := Decode([]byte(in), known)
		var de *DecodeError
		if !errors.As(err, &de) || de.Key == "" || !strings.Contains(de.Reason, "case-variant") {
			t.Errorf("%s: err = %v, want a case-variant error naming the key", in, err)
		}
	}
	if _, err := Decode([]byte(`{"mediaType":"m","x":[{"rawBytes":"r","other":1}]}`), known); err != nil {
		t.Errorf("exact names: %v", err)
	}
	_, err := Decode([]byte(`{"a":{"b":1,"b":2}}`), known)
	var de *DecodeError
	if !errors.As(err, &de) || de.Key != "b" || de.Path != "a.b" {
		t.Errorf("duplicate: err = %#v, want key b at a.b", err)
	}
}
