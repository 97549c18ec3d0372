package predicate

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/taskproof/taskproof/internal/strictjson"
)

// fuzzStatementKeys is a Statement's known-key table with this package's
// predicate table at "predicate", as package statement reads one.
var fuzzStatementKeys = &strictjson.KnownKeys{Members: map[string]*strictjson.KnownKeys{
	"_type": nil, "subject": nil, "predicateType": nil, "predicate": KnownKeys(),
}}

func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{`{}`, `[1,"a",null]`, `{"a":{"b":[true,false]}}`, `{"a":1,"a":2}`, `"\ud83d\ude00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := strictjson.Decode(data, fuzzStatementKeys)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not match ErrMalformed: %v", err)
			}
			return
		}
		// Whatever the strict decoder accepts, encoding/json accepts too (it is JSON).
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		c, err := strictjson.Canonical(v)
		if err != nil {
			t.Fatalf("Canonical of accepted input: %v", err)
		}
		v2, err := strictjson.Decode(c, fuzzStatementKeys)
		if err != nil {
			t.Fatalf("canonical bytes %q do not decode: %v", c, err)
		}
		c2, err := strictjson.Canonical(v2)
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("canonical not stable: %q vs %q (%v)", c, c2, err)
		}
		// A predicate that decodes re-encodes to the same canonical bytes.
		if p, err := Decode(data); err == nil {
			pc, err := p.Canonical()
			if err != nil {
				t.Fatalf("Predicate.Canonical: %v", err)
			}
			if !bytes.Equal(pc, c) {
				t.Fatalf("predicate round trip changed bytes:\n%q\n%q", pc, c)
			}
		}
	})
}
