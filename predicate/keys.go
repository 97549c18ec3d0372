package predicate

import "github.com/taskproof/taskproof/internal/strictjson"

// ErrMalformed is the kind of every error the strict decoder returns
// (docs/format.md#canonical-json): errors.Is(err, ErrMalformed) holds for any
// [*DecodeError].
var ErrMalformed = strictjson.ErrMalformed

// DecodeError is a strict-decoding failure of a predicate
// (docs/format.md#canonical-json): where it is (Path, Offset) and why.
type DecodeError = strictjson.DecodeError

// predicateKeys is the known-key table of the task-verification predicate and
// its $defs (revision 3), for the strict decoder's case-variant check.
var predicateKeys = predicateKnownKeys()

// KnownKeys is the strict decoder's known-key table of the task-verification
// predicate, for a codec (package statement) that reads a predicate inside
// another document. It is shared: callers must not modify it.
func KnownKeys() *strictjson.KnownKeys { return predicateKeys }

func keys(names ...string) *strictjson.KnownKeys {
	k := &strictjson.KnownKeys{Members: make(map[string]*strictjson.KnownKeys, len(names))}
	for _, n := range names {
		k.Members[n] = nil
	}
	return k
}

func predicateKnownKeys() *strictjson.KnownKeys {
	implementedBy := keys("task", "commit", "before_feature")
	regression := keys("reason", "story", "detail", "red_class")
	regression.Members["implemented_by"] = implementedBy
	file := keys("path", "state", "decided_by", "tests", "test_ids", "why", "fixes")
	file.Members["rule"] = keys("toolchain", "text", "source")
	collection := &strictjson.KnownKeys{Members: map[string]*strictjson.KnownKeys{
		"files":   {Elem: file},
		"listing": {Elem: keys("argv", "duration_ms", "status")},
	}}
	p := keys("revision", "verdict", "tree", "trace", "integrity", "monitor", "mutation",
		"sandbox", "executor", "model", "run", "decisions", "strength", "instructions",
		"policy_sha256", "time", "bug", "acceptance", "context", "dependencies")
	p.Members["unit"] = keys("format", "feature", "dir")
	p.Members["task"] = keys("id", "line_hash", "title")
	p.Members["spec"] = keys("section", "section_hash")
	p.Members["decider"] = keys("by", "reason")
	p.Members["red"] = keys("kind", "excerpt", "excerpt_sha256", "output_sha256", "withheld")
	p.Members["regression"] = regression
	p.Members["collection"] = collection
	return p
}
