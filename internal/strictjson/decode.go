package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of JSON arrays and objects [Decode] accepts
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
	// Key is the member name at fault when the error is a duplicate key or a
	// case-variant spelling of a known one, "" otherwise: a codec that names
	// fields by their key alone reads it.
	Key string
	// Known is the known name a case-variant Key spells, "" otherwise.
	Known string
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
	// Other describes the value of every member not in Members (nil: no known
	// keys below it). A table whose Members, Elem and Other all point back to
	// itself applies its names at every depth ([Everywhere]).
	Other *KnownKeys
}

// Everywhere is a table that refuses a case-variant spelling of any of names
// at any depth of the document, for formats (Sigstore bundles) whose member
// names are shared by many positions.
func Everywhere(names ...string) *KnownKeys {
	k := &KnownKeys{Members: make(map[string]*KnownKeys, len(names))}
	for _, n := range names {
		k.Members[n] = k
	}
	k.Elem, k.Other = k, k
	return k
}

// Decode strictly decodes one JSON value from untrusted bytes
// (docs/format.md#canonical-json) into a tree of nil (null), bool,
// [json.Number] (the number as written), string, []any and map[string]any.
// Leading and trailing JSON whitespace is allowed; anything else after the
// value is not. It rejects invalid UTF-8, unpaired UTF-16 surrogate escapes,
// duplicate keys at any depth, nesting deeper than [MaxDepth] and, where known
// is not nil, case-variant spellings of known keys. Every error is a
// [*DecodeError] (errors.Is(err, [ErrMalformed])).
func Decode(data []byte, known *KnownKeys) (any, error) {
	v, err := decode(data, known, false)
	if err != nil {
		// The decoder is deterministic: run again with key paths, the same
		// error is found where it was, and named.
		_, err = decode(data, known, true)
	}
	return v, err
}

// decode is Decode; paths builds the key paths its errors name,
// which a value that decodes does not need.
func decode(data []byte, known *KnownKeys, paths bool) (any, error) {
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
	paths bool // build key paths (see decode); "" everywhere otherwise
}

func (d *decoder) key(path, key string) string {
	if !d.paths {
		return ""
	}
	return JoinKey(path, key)
}

func (d *decoder) index(path string, i int) string {
	if !d.paths {
		return ""
	}
	return JoinIndex(path, i)
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
			return nil, &DecodeError{Path: kpath, Offset: keyAt, Reason: "duplicate key", Key: key}
		}
		var sub *KnownKeys
		if known != nil && known.Members != nil {
			var isKnown bool
			sub, isKnown = known.Members[key]
			if !isKnown {
				sub = known.Other
				for name := range known.Members {
					if strings.EqualFold(name, key) {
						return nil, &DecodeError{Path: kpath, Offset: keyAt,
							Reason: fmt.Sprintf("case-variant spelling of known key %q", name), Key: key, Known: name}
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

// JoinKey is the key path of member key of the value at path, as
// [DecodeError.Path] writes it: "a.b", or "a[\"x y\"]" for a key that is not
// plain ASCII letters, digits, '_' and '-'.
func JoinKey(path, key string) string {
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

// JoinIndex is the key path of item i of the array at path: "a[2]".
func JoinIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }
