package predicate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of JSON arrays and objects [DecodeValue] accepts
// (docs/format.md#limits): a top-level object is depth 1.
const MaxDepth = 64

// ErrMalformed is the kind of every error the strict decoder returns
// (docs/format.md#canonical-json): errors.Is(err, ErrMalformed) holds for any
// [*DecodeError].
var ErrMalformed = errors.New("malformed json")

// DecodeError is a strict-decoding failure (docs/format.md#canonical-json).
// Path is the key path of the offending member, dot-separated with array
// indices in brackets ("predicate.task.line_hash", "subject[0].digest", "" for
// the top level); Offset is the byte offset in the input where the problem was
// found (-1 when the problem is in a decoded tree's shape, not in the bytes);
// Reason says why.
type DecodeError struct {
	Path   string
	Offset int
	Reason string
}

func (e *DecodeError) Error() string {
	where := e.Path
	if where == "" {
		where = "top level"
	}
	if e.Offset < 0 {
		return fmt.Sprintf("malformed json at %s: %s", where, e.Reason)
	}
	return fmt.Sprintf("malformed json at %s (byte %d): %s", where, e.Offset, e.Reason)
}

// Is reports whether target is [ErrMalformed].
func (e *DecodeError) Is(target error) bool { return target == ErrMalformed }

// KnownKeys describes the known keys at one position of a JSON document, for
// the case-variant check of the strict decoder (docs/format.md#canonical-json):
// when the value there is an object, a member whose name is not in Members but
// equals one of them under Unicode case folding (strings.EqualFold, the folding
// encoding/json matches with) is rejected. Members maps each known name to the
// description of its value (nil: no known keys below it); Elem describes every
// item when the value is an array.
type KnownKeys struct {
	Members map[string]*KnownKeys
	Elem    *KnownKeys
}

// The known-key tables of the strict decoder. PredicateKeys covers the
// task-verification predicate and its $defs (revision 3); StatementKeys an in-toto
// Statement v1 whose predicate is read with PredicateKeys; EnvelopeKeys a DSSE
// envelope (payloadType, payload, signatures[].keyid/sig).
var (
	PredicateKeys = predicateKeys()
	StatementKeys = &KnownKeys{Members: map[string]*KnownKeys{
		"_type": nil,
		"subject": {Elem: &KnownKeys{Members: map[string]*KnownKeys{
			"name": nil, "uri": nil, "digest": nil, "content": nil,
			"downloadLocation": nil, "mediaType": nil, "annotations": nil,
		}}},
		"predicateType": nil,
		"predicate":     PredicateKeys,
	}}
	EnvelopeKeys = &KnownKeys{Members: map[string]*KnownKeys{
		"payloadType": nil,
		"payload":     nil,
		"signatures": {Elem: &KnownKeys{Members: map[string]*KnownKeys{
			"keyid": nil, "sig": nil,
		}}},
	}}
)

func keys(names ...string) *KnownKeys {
	k := &KnownKeys{Members: make(map[string]*KnownKeys, len(names))}
	for _, n := range names {
		k.Members[n] = nil
	}
	return k
}

func predicateKeys() *KnownKeys {
	implementedBy := keys("task", "commit", "before_feature")
	regression := keys("reason", "story", "detail", "red_class")
	regression.Members["implemented_by"] = implementedBy
	file := keys("path", "state", "decided_by", "tests", "test_ids", "why", "fixes")
	file.Members["rule"] = keys("toolchain", "text", "source")
	collection := &KnownKeys{Members: map[string]*KnownKeys{
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

// DecodeValue strictly decodes one JSON value from untrusted bytes
// (docs/format.md#canonical-json) into a tree of nil (null), bool,
// [json.Number] (the number as written), string, []any and map[string]any.
// Leading and trailing JSON whitespace is allowed; anything else after the
// value is not. It rejects invalid UTF-8, unpaired UTF-16 surrogate escapes,
// duplicate keys at any depth, nesting deeper than [MaxDepth] and, where known
// is not nil, case-variant spellings of known keys. Every error is a
// [*DecodeError] (errors.Is(err, [ErrMalformed])).
func DecodeValue(data []byte, known *KnownKeys) (any, error) {
	v, err := decodeValue(data, known, false)
	if err != nil {
		// The decoder is deterministic: run again with key paths, the same
		// error is found where it was, and named.
		_, err = decodeValue(data, known, true)
	}
	return v, err
}

// decodeValue is DecodeValue; paths builds the key paths its errors name,
// which a value that decodes does not need.
func decodeValue(data []byte, known *KnownKeys, paths bool) (any, error) {
	d := decoder{data: data, paths: paths}
	d.skipSpace()
	v, err := d.value("", known, 0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, d.fail("", "data after the top-level value")
	}
	return v, nil
}

type decoder struct {
	data  []byte
	pos   int
	paths bool // build key paths (see decodeValue); "" everywhere otherwise
}

func (d *decoder) key(path, key string) string {
	if !d.paths {
		return ""
	}
	return joinKey(path, key)
}

func (d *decoder) index(path string, i int) string {
	if !d.paths {
		return ""
	}
	return joinIndex(path, i)
}

func (d *decoder) fail(path, format string, args ...any) *DecodeError {
	return &DecodeError{Path: path, Offset: d.pos, Reason: fmt.Sprintf(format, args...)}
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(path string, known *KnownKeys, depth int) (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.fail(path, "unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(path, known, depth+1)
	case c == '[':
		return d.array(path, known, depth+1)
	case c == '"':
		return d.str(path)
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number(path)
	case d.literal("true"):
		return true, nil
	case d.literal("false"):
		return false, nil
	case d.literal("null"):
		return nil, nil
	default:
		return nil, d.fail(path, "unexpected character %q", c)
	}
}

func (d *decoder) literal(lit string) bool {
	if strings.HasPrefix(string(d.data[d.pos:min(len(d.data), d.pos+len(lit))]), lit) {
		d.pos += len(lit)
		return true
	}
	return false
}

func (d *decoder) object(path string, known *KnownKeys, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, d.fail(path, "nesting deeper than %d", MaxDepth)
	}
	d.pos++ // '{'
	obj := map[string]any{}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return obj, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.fail(path, "expected a member name")
		}
		keyAt := d.pos
		key, err := d.str(path)
		if err != nil {
			return nil, err
		}
		kpath := d.key(path, key)
		if _, dup := obj[key]; dup {
			return nil, &DecodeError{Path: kpath, Offset: keyAt, Reason: "duplicate key"}
		}
		var sub *KnownKeys
		if known != nil && known.Members != nil {
			var isKnown bool
			sub, isKnown = known.Members[key]
			if !isKnown {
				for name := range known.Members {
					if strings.EqualFold(name, key) {
						return nil, &DecodeError{Path: kpath, Offset: keyAt,
							Reason: fmt.Sprintf("case-variant spelling of known key %q", name)}
					}
				}
			}
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.fail(kpath, "expected ':' after member name")
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(kpath, sub, depth)
		if err != nil {
			return nil, err
		}
		obj[key] = v
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail(path, "unexpected end of input in object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return obj, nil
		default:
			return nil, d.fail(path, "expected ',' or '}' in object")
		}
	}
}

func (d *decoder) array(path string, known *KnownKeys, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, d.fail(path, "nesting deeper than %d", MaxDepth)
	}
	d.pos++ // '['
	arr := []any{}
	var elem *KnownKeys
	if known != nil {
		elem = known.Elem
	}
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return arr, nil
	}
	for {
		d.skipSpace()
		v, err := d.value(d.index(path, len(arr)), elem, depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, d.fail(path, "unexpected end of input in array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return arr, nil
		default:
			return nil, d.fail(path, "expected ',' or ']' in array")
		}
	}
}

func (d *decoder) str(path string) (string, error) {
	d.pos++ // '"'
	// Fast path: a run of printable ASCII up to the closing quote (the usual
	// key, digest or base64 payload) is one copy, with no builder growth.
	start := d.pos
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			d.pos++
			return string(d.data[start : d.pos-1]), nil
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			break
		}
		d.pos++
	}
	var b strings.Builder
	b.Grow(d.pos - start + 16)
	b.Write(d.data[start:d.pos])
	for {
		if d.pos >= len(d.data) {
			return "", d.fail(path, "unterminated string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return b.String(), nil
		case c < 0x20:
			return "", d.fail(path, "control character %#02x in string", c)
		case c == '\\':
			if err := d.escape(path, &b); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", d.fail(path, "invalid UTF-8 in string")
			}
			b.WriteString(string(d.data[d.pos : d.pos+size]))
			d.pos += size
		}
	}
}

func (d *decoder) escape(path string, b *strings.Builder) error {
	if d.pos+1 >= len(d.data) {
		return d.fail(path, "unterminated escape")
	}
	switch e := d.data[d.pos+1]; e {
	case '"', '\\', '/':
		b.WriteByte(e)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, ok := d.hex4(d.pos + 2)
		if !ok {
			return d.fail(path, "bad \\u escape")
		}
		d.pos += 6
		if utf16.IsSurrogate(r) {
			r2, ok2 := rune(0), false
			if r < 0xdc00 && d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
				r2, ok2 = d.hex4(d.pos + 2)
			}
			if !ok2 || r2 < 0xdc00 || r2 > 0xdfff {
				return d.fail(path, "unpaired surrogate in \\u escape")
			}
			d.pos += 6
			r = utf16.DecodeRune(r, r2)
		}
		b.WriteRune(r)
		return nil
	default:
		return d.fail(path, "bad escape \\%c", e)
	}
	d.pos += 2
	return nil
}

func (d *decoder) hex4(at int) (rune, bool) {
	if at+4 > len(d.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[at:at+4]), 16, 32)
	if err != nil || strings.ContainsAny(string(d.data[at:at+4]), "+-_xX") {
		return 0, false
	}
	return rune(n), true
}

func (d *decoder) number(path string) (any, error) {
	start := d.pos
	n := scanNumber(d.data[d.pos:])
	if n == 0 {
		return nil, d.fail(path, "bad number")
	}
	d.pos += n
	return json.Number(d.data[start:d.pos]), nil
}

// scanNumber returns the length of the JSON number (RFC 8259 §6) at the start of b,
// 0 when there is none.
func scanNumber(b []byte) int {
	i := 0
	digits := func() int {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return 0
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0
		}
	}
	return i
}

func validNumber(s string) bool { return s != "" && scanNumber([]byte(s)) == len(s) }

func joinKey(path, key string) string {
	plain := key != ""
	for _, c := range key {
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			plain = false
			break
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func joinIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Canonical returns the canonical JSON encoding of v
// (docs/format.md#canonical-json): object keys sorted by byte order at every
// level, no insignificant whitespace, strings escaped as serde_json does (`\"`
// `\\` `\b` `\f` `\n` `\r` `\t`, other controls below U+0020 as `\u00xx` with
// lowercase hex, nothing else escaped: not `/`, `<`, `>`, `&`, U+2028/U+2029,
// DEL or non-ASCII), numbers as written.
//
// v is a tree as [DecodeValue] returns it; int, int64, uint64 and float64 (written
// as [FormatFloat] does) and []string are accepted too. An error is returned for
// invalid UTF-8 in a string or key, a [json.Number] that is not a JSON number, a
// non-finite float, or any other Go type.
func Canonical(v any) ([]byte, error) {
	return appendCanonical(nil, v, "")
}

func appendCanonical(buf []byte, v any, path string) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case bool:
		return strconv.AppendBool(buf, v), nil
	case string:
		return appendString(buf, v, path)
	case json.Number:
		if !validNumber(string(v)) {
			return nil, fmt.Errorf("canonical json: %s: %q is not a JSON number", pathOrTop(path), string(v))
		}
		return append(buf, v...), nil
	case int:
		return strconv.AppendInt(buf, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(buf, v, 10), nil
	case uint64:
		return strconv.AppendUint(buf, v, 10), nil
	case float64:
		s, err := FormatFloat(v)
		if err != nil {
			return nil, fmt.Errorf("canonical json: %s: %w", pathOrTop(path), err)
		}
		return append(buf, s...), nil
	case []string:
		items := make([]any, len(v))
		for i, s := range v {
			items[i] = s
		}
		return appendCanonical(buf, items, path)
	case []any:
		buf = append(buf, '[')
		for i, item := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			var err error
			if buf, err = appendCanonical(buf, item, joinIndex(path, i)); err != nil {
				return nil, err
			}
		}
		return append(buf, ']'), nil
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names) // Go string order is byte order
		buf = append(buf, '{')
		for i, k := range names {
			if i > 0 {
				buf = append(buf, ',')
			}
			kpath := joinKey(path, k)
			var err error
			if buf, err = appendString(buf, k, kpath); err != nil {
				return nil, err
			}
			buf = append(buf, ':')
			if buf, err = appendCanonical(buf, v[k], kpath); err != nil {
				return nil, err
			}
		}
		return append(buf, '}'), nil
	default:
		return nil, fmt.Errorf("canonical json: %s: unsupported Go type %T", pathOrTop(path), v)
	}
}

func pathOrTop(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

func appendString(buf []byte, s, path string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("canonical json: %s: invalid UTF-8 in string", pathOrTop(path))
	}
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			buf = append(buf, '\\', '"')
		case c == '\\':
			buf = append(buf, '\\', '\\')
		case c == '\b':
			buf = append(buf, '\\', 'b')
		case c == '\f':
			buf = append(buf, '\\', 'f')
		case c == '\n':
			buf = append(buf, '\\', 'n')
		case c == '\r':
			buf = append(buf, '\\', 'r')
		case c == '\t':
			buf = append(buf, '\\', 't')
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"'), nil
}

// FormatFloat writes a finite float64 in the shortest form that reads back as the
// same value, laid out as Rust's ryu crate (and so serde_json) does (docs/format.md#hash-recipes
// policy_sha256): integral values in [1, 1e16) as "1.0", "12340000000.0"; other
// values whose decimal point falls within 16 digits as "12.34", "0.001234" (down to
// 1e-5 inclusive); the rest in scientific form with no '+' and no padding: "1e16",
// "1.5e-7", "1.7976931348623157e308". Zero is "0.0" ("-0.0" for negative zero). NaN
// and ±Inf have no JSON form and are an error.
func FormatFloat(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("float %v has no JSON form", f)
	}
	sign := ""
	if math.Signbit(f) {
		sign = "-"
		f = -f
	}
	if f == 0 {
		return sign + "0.0", nil
	}
	// Shortest round-trip digits: "d.ddde±x".
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, err := strconv.Atoi(exp)
	if err != nil {
		return "", fmt.Errorf("float %v: unexpected form %q", f, e)
	}
	length := len(digits)
	k := x - (length - 1) // value = digits × 10^k
	kk := length + k      // 10^(kk-1) <= value < 10^kk
	switch {
	case k >= 0 && kk <= 16:
		return sign + digits + strings.Repeat("0", k) + ".0", nil
	case kk > 0 && kk <= 16:
		return sign + digits[:kk] + "." + digits[kk:], nil
	case kk > -5 && kk <= 0:
		return sign + "0." + strings.Repeat("0", -kk) + digits, nil
	case length == 1:
		return sign + digits + "e" + strconv.Itoa(kk-1), nil
	default:
		return sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(kk-1), nil
	}
}
