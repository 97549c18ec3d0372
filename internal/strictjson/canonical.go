package strictjson

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Canonical returns the canonical JSON encoding of v
// (docs/format.md#canonical-json): object keys sorted by byte order at every
// level, no insignificant whitespace, strings escaped as serde_json does (`\"`
// `\\` `\b` `\f` `\n` `\r` `\t`, other controls below U+0020 as `\u00xx` with
// lowercase hex, nothing else escaped: not `/`, `<`, `>`, `&`, U+2028/U+2029,
// DEL or non-ASCII), numbers as written.
//
// v is a tree as [Decode] returns it; int, int64, uint64 and float64 (written
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
			return nil, fmt.Errorf("canonical json: %s: %q is not a JSON number", Where(path), string(v))
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
			return nil, fmt.Errorf("canonical json: %s: %w", Where(path), err)
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
			if buf, err = appendCanonical(buf, item, JoinIndex(path, i)); err != nil {
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
			kpath := JoinKey(path, k)
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
		return nil, fmt.Errorf("canonical json: %s: unsupported Go type %T", Where(path), v)
	}
}

// Where names the place path is in an error message: the path, or "top
// level" for "".
func Where(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

func appendString(buf []byte, s, path string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("canonical json: %s: invalid UTF-8 in string", Where(path))
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
