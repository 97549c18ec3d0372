package predicate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/taskproof/taskproof/internal/strictjson"
)

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// LineHash is task.line_hash (docs/format.md#hash-recipes): the lowercase hex SHA-256 of the task line's
// bytes as open, i.e. without its line ending, without a leading BOM, indentation and
// bullet kept, the box's inner character replaced by a space. The format-aware part
// (finding the line and opening the box) is specfmt's: pass [specfmt.Task.OpenLine].
func LineHash(openLine string) string { return sha256Hex([]byte(openLine)) }

// SectionHash is spec.section_hash (docs/format.md#hash-recipes): the lowercase hex SHA-256 of the
// section's text as specfmt's Section joins it ('\n'-joined lines, no trailing
// newline).
func SectionHash(text []byte) string { return sha256Hex(text) }

// OutputSHA256 is red.output_sha256 (docs/format.md#hash-recipes): the lowercase hex SHA-256 of the whole
// captured output of the red run, exactly as captured.
func OutputSHA256(output []byte) string { return sha256Hex(output) }

// MaxExcerpt is the most bytes a red excerpt holds (docs/format.md#hash-recipes).
const MaxExcerpt = 2048

// Excerpt returns the red excerpt of output (docs/format.md#hash-recipes): its last ≤ [MaxExcerpt] bytes,
// the start moved forward past UTF-8 continuation bytes (0x80–0xBF) to a character
// boundary, and whether it must be withheld. It is withheld when it is not valid UTF-8
// as a whole (a JSON string cannot carry it byte for byte) or when it matches one of
// [WithheldReason]'s patterns.
func Excerpt(output []byte) (excerpt string, withheld bool) {
	start := max(0, len(output)-MaxExcerpt)
	for start < len(output) && output[start]&0xC0 == 0x80 {
		start++
	}
	excerpt = string(output[start:])
	if !utf8.ValidString(excerpt) {
		return excerpt, true
	}
	for _, p := range withheldRegexps {
		if p.re.MatchString(excerpt) {
			return excerpt, true
		}
	}
	return excerpt, false
}

// WithheldReason returns the name of the first of the withholding patterns excerpt
// matches ("invalid_utf8" when it is not valid UTF-8), "" when it is clean.
func WithheldReason(excerpt string) string {
	if !utf8.ValidString(excerpt) {
		return "invalid_utf8"
	}
	for _, p := range withheldRegexps {
		if p.re.MatchString(excerpt) {
			return p.name
		}
	}
	return ""
}

// NewRed builds the predicate's red object (docs/format.md#hash-recipes, revision ≥ 2) for a red run of
// kind with the given captured output: output_sha256 over the whole output, the
// [Excerpt] and its excerpt_sha256 (SHA-256 of the excerpt's bytes), or, when the
// excerpt is withheld, excerpt and excerpt_sha256 null and withheld true.
func NewRed(kind RedKind, output []byte) Red {
	r := Red{Kind: kind, OutputSHA256: OutputSHA256(output)}
	ex, withheld := Excerpt(output)
	if withheld {
		r.Withheld = true
		r.Excerpt = Null[string]()
		r.ExcerptSHA256 = Null[string]()
		return r
	}
	r.Excerpt = Some(ex)
	r.ExcerptSHA256 = Some(sha256Hex([]byte(ex)))
	return r
}

// withheldPatterns are the rules that withhold a red excerpt (docs/format.md#hash-recipes), as
// name → Go regular expression (RE2 syntax). "Boundary" below is the start of the
// text or a byte that is not an ASCII letter or digit. An excerpt is withheld when
// any of them matches anywhere in it:
//
//   - unix_path: an absolute path of at least two segments, "/a/b", starting at the
//     start of the text or after whitespace or one of " ' ` ( [ { < = , ; : | >
//     (but not "://", so URLs are not paths);
//   - home_path: "~/" or "~user/" at a boundary;
//   - windows_path: a drive path "C:\" or "C:/" at a boundary, or a UNC path "\\host\";
//   - file_url: "file:" followed by "/";
//   - url_credentials: a URL with user information, "scheme://user@host" or
//     "scheme://user:password@host";
//   - private_key: "-----BEGIN … PRIVATE KEY" or "-----END … PRIVATE KEY" (PEM,
//     OpenSSH, PGP "PRIVATE KEY BLOCK");
//   - aws_key: AKIA, ASIA, AGPA, AIDA, AROA, AIPA, ANPA, ANVA or ABIA followed by 16
//     upper-case letters or digits, at a boundary;
//   - github_token: ghp_, gho_, ghu_, ghs_ or ghr_ followed by ≥ 20 letters/digits,
//     or github_pat_ followed by ≥ 20 letters/digits/underscores, at a boundary;
//   - gitlab_token: glpat-, gldt-, glrt-, glptt- or gloas- followed by ≥ 16
//     letters/digits/'_'/'-', at a boundary;
//   - slack_token: xoxb-, xoxa-, xoxp-, xoxs-, xoxr- or xoxe- followed by ≥ 10
//     letters/digits/'-', at a boundary;
//   - sk_token: sk- or sk_ (OpenAI, Anthropic "sk-ant-", Stripe "sk_live_") or
//     rk_live_/rk_test_/pk_live_ followed by ≥ 16 letters/digits/'_'/'-', at a boundary;
//   - google_key: AIza followed by ≥ 30 letters/digits/'_'/'-', or "ya29." followed by
//     ≥ 20 of those, at a boundary;
//   - package_token: npm_ followed by ≥ 30 letters/digits, "pypi-AgE", or hf_ followed
//     by ≥ 30 letters, at a boundary;
//   - jwt: "eyJ" + ≥ 10 base64url characters + "." + "eyJ" + ≥ 10 more, at a boundary;
//   - bearer: "bearer" (any case) followed by whitespace and ≥ 16 token characters,
//     or "authorization" (any case) followed by optional quote, ':' or '=' and a value;
//   - secret_assignment: a name containing (any case) password, passwd, passphrase,
//     secret, token, api_key/api-key/apikey, access_key, private_key, credential,
//     or auth_key, optionally closed by a quote, then optional spaces, ':' or '=',
//     optional spaces and quote, then a non-space character ("password=hunter2",
//     "GITHUB_TOKEN: x", `"client_secret": "x"`).
var withheldPatterns = []struct{ Name, Regexp string }{
	{"unix_path", `(?:^|[\s"'` + "`" + `(\[{<=,;|>]|[^:/]:)/[^\s/"'` + "`" + `<>|]+/[^\s/"'` + "`" + `<>|]`},
	{"home_path", `(?:^|[^A-Za-z0-9])~[A-Za-z0-9._-]*/`},
	{"windows_path", `(?:^|[^A-Za-z0-9])[A-Za-z]:[\\/]|\\\\[A-Za-z0-9._$-]+\\`},
	{"file_url", `(?i)file:/`},
	{"url_credentials", `[A-Za-z][A-Za-z0-9+.-]*://[^/\s@?#]*@`},
	{"private_key", `-----(?:BEGIN|END) [A-Z0-9 ]*PRIVATE KEY`},
	{"aws_key", `(?:^|[^A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA)[A-Z0-9]{16}`},
	{"github_token", `(?:^|[^A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`},
	{"gitlab_token", `(?:^|[^A-Za-z0-9])(?:glpat|gldt|glrt|glptt|gloas)-[A-Za-z0-9_-]{16,}`},
	{"slack_token", `(?:^|[^A-Za-z0-9])xox[baprse]-[A-Za-z0-9-]{10,}`},
	{"sk_token", `(?:^|[^A-Za-z0-9])(?:sk[-_]|rk_live_|rk_test_|pk_live_)[A-Za-z0-9_-]{16,}`},
	{"google_key", `(?:^|[^A-Za-z0-9])(?:AIza[A-Za-z0-9_-]{30,}|ya29\.[A-Za-z0-9_-]{20,})`},
	{"package_token", `(?:^|[^A-Za-z0-9])(?:npm_[A-Za-z0-9]{30,}|pypi-AgE|hf_[A-Za-z]{30,})`},
	{"jwt", `(?:^|[^A-Za-z0-9])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}`},
	{"bearer", `(?i)bearer\s+[A-Za-z0-9._~+/=-]{16,}|authorization["']?\s*[:=]\s*\S`},
	{"secret_assignment", `(?i)(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth[_-]?key)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?[^\s"']`},
}

var withheldRegexps = func() []struct {
	name string
	re   *regexp.Regexp
} {
	out := make([]struct {
		name string
		re   *regexp.Regexp
	}, len(withheldPatterns))
	for i, p := range withheldPatterns {
		out[i].name = p.Name
		out[i].re = regexp.MustCompile(p.Regexp)
	}
	return out
}()

// ErrPolicy is the kind of error [PolicySHA256] returns for a speccoder.toml it
// cannot hash: a file that is not TOML.
var ErrPolicy = errors.New("speccoder.toml cannot be hashed")

// policyTables are the speccoder.toml tables copied whole into the policy JSON
// (docs/format.md#policy_sha256).
var policyTables = []string{"acceptance", "checks", "executor", "monitor", "mutation", "sandbox", "tests"}

// TOMLDatetimeKey is the one member of the JSON object a TOML date-time becomes
// under serde_json::to_value of a toml::Value (the toml crate's private
// serialization of its Datetime type, which speccoder hashes).
const TOMLDatetimeKey = "$__toml_private_datetime"

// PolicyJSON returns the canonical JSON whose SHA-256 is policy_sha256
// (docs/format.md#policy_sha256):
//
//	{"judge":{"acceptance":…,"attest":{"signer":…},"checks":…,"executor":…,
//	 "model":{"model":…,"provider":…},"monitor":…,"mutation":…,"sandbox":…,"tests":…}}
//
// built from the text of speccoder.toml at the tick commit's first parent; nil
// means there is no such file (every value null). Each of policyTables is the
// whole top-level TOML value of that name as JSON (a table, or whatever value the
// key holds), null when absent; attest and model are always objects holding only
// signer, resp. model and provider: the member's string, null when absent or not
// a string, all null when [attest] or [model] is not a table. The values follow
// Rust's serde_json::to_value of the toml crate's Value, which speccoder hashes:
// strings → strings, booleans → booleans, integers → JSON integers, finite floats
// → strictjson.FormatFloat, NaN and ±Inf → null, arrays → arrays, tables → objects, and a
// date-time of any kind → {"$__toml_private_datetime": text} with text the toml
// crate's form of it: "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)" for an offset
// date-time (offset zero written "Z"), "YYYY-MM-DDTHH:MM:SS[.fraction]" local,
// "YYYY-MM-DD" a local date, "HH:MM:SS[.fraction]" a local time; the fraction is
// the first nine digits with trailing zeros dropped, absent when zero. Comments,
// key order, formatting and other tables do not change it. Errors match
// [ErrPolicy].
func PolicyJSON(toml []byte) ([]byte, error) {
	judge := map[string]any{
		"attest": map[string]any{"signer": nil},
		"model":  map[string]any{"model": nil, "provider": nil},
	}
	for _, name := range policyTables {
		judge[name] = nil
	}
	if toml != nil {
		doc, err := parseTOML(toml)
		if err != nil {
			return nil, err
		}
		for _, name := range policyTables {
			if v, ok := doc[name]; ok {
				if judge[name], err = tomlToJSON(name, v); err != nil {
					return nil, err
				}
			}
		}
		for name, members := range map[string][]string{"attest": {"signer"}, "model": {"model", "provider"}} {
			// speccoder reads these with as_table and as_str: a value of
			// another kind reads as absent.
			tbl, ok := doc[name].(map[string]any)
			if !ok {
				continue
			}
			obj := judge[name].(map[string]any)
			for _, m := range members {
				if v, ok := tbl[m].(string); ok {
					obj[m] = v
				}
			}
		}
	}
	b, err := strictjson.Canonical(map[string]any{"judge": judge})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	return b, nil
}

// PolicySHA256 is policy_sha256 (docs/format.md#hash-recipes): the lowercase hex SHA-256 of
// [PolicyJSON](toml). nil toml means no speccoder.toml at the parent.
func PolicySHA256(toml []byte) (string, error) {
	b, err := PolicyJSON(toml)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

func parseTOML(text []byte) (map[string]any, error) {
	var doc map[string]any
	if err := toml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	return doc, nil
}

// tomlToJSON converts what go-toml decodes into map[string]any to a JSON value tree.
func tomlToJSON(path string, v any) (any, error) {
	switch v := v.(type) {
	case string, bool:
		return v, nil
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(v, 10)), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil // serde_json's Value has no non-finite number
		}
		s, err := strictjson.FormatFloat(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrPolicy, strictjson.Where(path), err)
		}
		return json.Number(s), nil
	case time.Time:
		return tomlDatetime(formatOffsetDateTime(v)), nil
	case toml.LocalDateTime:
		return tomlDatetime(formatDate(v.Year, int(v.Month), v.Day) + "T" + formatClock(v.Hour, v.Minute, v.Second, v.Nanosecond)), nil
	case toml.LocalDate:
		return tomlDatetime(formatDate(v.Year, int(v.Month), v.Day)), nil
	case toml.LocalTime:
		return tomlDatetime(formatClock(v.Hour, v.Minute, v.Second, v.Nanosecond)), nil
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			j, err := tomlToJSON(strictjson.JoinIndex(path, i), item)
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			j, err := tomlToJSON(strictjson.JoinKey(path, k), item)
			if err != nil {
				return nil, err
			}
			out[k] = j
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%w: %s: unexpected TOML value of Go type %T", ErrPolicy, strictjson.Where(path), v)
	}
}

func tomlDatetime(text string) map[string]any { return map[string]any{TOMLDatetimeKey: text} }

func formatDate(y, m, d int) string { return fmt.Sprintf("%04d-%02d-%02d", y, m, d) }

func formatClock(h, m, s, nanos int) string {
	out := fmt.Sprintf("%02d:%02d:%02d", h, m, s)
	if nanos != 0 {
		out += strings.TrimRight(fmt.Sprintf(".%09d", nanos), "0")
	}
	return out
}

func formatOffsetDateTime(t time.Time) string {
	out := formatDate(t.Year(), int(t.Month()), t.Day()) + "T" + formatClock(t.Hour(), t.Minute(), t.Second(), t.Nanosecond())
	_, off := t.Zone()
	if off == 0 {
		return out + "Z"
	}
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return out + fmt.Sprintf("%c%02d:%02d", sign, off/3600, off/60%60)
}
