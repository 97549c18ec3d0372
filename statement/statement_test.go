package statement

import (
	"errors"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/predicate"
)

const testCommit = "0123456789abcdef0123456789abcdef01234567"

func TestEncodeRefuses(t *testing.T) {
	tests := []struct {
		name string
		sub  Subject
		typ  string
	}{
		{"uppercase commit", Subject{Name: "f/T1", GitCommit: strings.ToUpper(testCommit)}, predicate.PredicateType},
		{"short commit", Subject{Name: "f/T1", GitCommit: testCommit[:39]}, predicate.PredicateType},
		{"no name", Subject{Name: "", GitCommit: testCommit}, predicate.PredicateType},
		{"no predicateType", Subject{Name: "f/T1", GitCommit: testCommit}, ""},
	}
	for _, tt := range tests {
		if _, err := Encode(tt.sub, tt.typ, map[string]any{}); err == nil {
			t.Errorf("%s: Encode succeeded", tt.name)
		}
	}
	sha256Commit := strings.Repeat("a1", 32)
	b, err := Encode(Subject{Name: "f/T1", GitCommit: sha256Commit}, predicate.PredicateType, map[string]any{"k": "v"})
	if err != nil {
		t.Fatalf("64-hex commit: %v", err)
	}
	want := `{"_type":"https://in-toto.io/Statement/v1","predicate":{"k":"v"},"predicateType":"https://speccoder.dev/task-verification/v0","subject":[{"digest":{"gitCommit":"` + sha256Commit + `"},"name":"f/T1"}]}`
	if string(b) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", b, want)
	}
}

func TestDecodeRefuses(t *testing.T) {
	const ok = `{"_type":"https://in-toto.io/Statement/v1","predicate":{},"predicateType":"p","subject":[{"digest":{"gitCommit":"ab"},"name":"f/T1"}]}`
	if _, err := Decode([]byte(ok)); err != nil {
		t.Fatalf("valid statement: %v", err)
	}
	tests := []struct{ name, payload, field string }{
		{"v0.1", strings.Replace(ok, "Statement/v1", "Statement/v0.1", 1), "_type"},
		{"no _type", `{"predicate":{},"predicateType":"p","subject":[{"digest":{},"name":"n"}]}`, "_type"},
		{"empty predicateType", strings.Replace(ok, `"predicateType":"p"`, `"predicateType":""`, 1), "predicateType"},
		{"no subject", strings.Replace(ok, `[{"digest":{"gitCommit":"ab"},"name":"f/T1"}]`, `[]`, 1), "subject"},
		{"digest not string", strings.Replace(ok, `"gitCommit":"ab"`, `"gitCommit":1`, 1), "subject[0].digest.gitCommit"},
		{"predicate array", strings.Replace(ok, `"predicate":{}`, `"predicate":[]`, 1), "predicate"},
		{"duplicate key", strings.Replace(ok, `"predicate":{}`, `"predicate":{},"predicate":{}`, 1), ""},
		{"case variant", strings.Replace(ok, `"predicateType"`, `"PredicateType"`, 1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.payload))
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v, want ErrMalformed", err)
			}
			var se *Error
			if tt.field != "" && (!errors.As(err, &se) || se.Field != tt.field) {
				t.Errorf("err = %v, want field %s", err, tt.field)
			}
		})
	}
}
