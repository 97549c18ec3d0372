package specfmt

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxToolConfig bounds a tool's configuration file that the readers of
// [ToolTasksFile] read (openspec/config.yaml, a schema.yaml, BMAD's
// config.yaml): a larger one cannot be read and is failed closed.
const MaxToolConfig = 64 << 10

// ErrYAMLSubset is what yamlScalar returns for YAML it does not read: the
// key it looks for cannot be told from the text with certainty, so the caller
// fails closed (docs/format.md#tasks-files-a-tool-configures).
var ErrYAMLSubset = errors.New("specfmt: YAML outside the subset taskproof reads")

// yamlScalar finds the scalar at the key path keys ("apply", "tracks") in a
// YAML document of block mappings, without a YAML library: taskproof reads two
// keys of a few tools' configuration files and nothing else. It reads a strict
// subset and refuses (ErrYAMLSubset, naming the line) what could change the
// answer and that it does not read: tabs in indentation, several documents,
// a node on the key path written in flow style, as an alias, with a tag or an
// anchor, a merge key (<<) or an explicit key (?) in a mapping on the path, a
// value of the key that spans lines or is a block scalar, a quoted scalar with
// escapes, the key twice. Lines of other nodes are skipped by indentation,
// block scalars' content included. found is false when the path is not there
// or its value is null (empty, ~, null).
func yamlScalar(doc []byte, keys ...string) (value string, found bool, err error) {
	if len(doc) > MaxToolConfig {
		return "", false, fmt.Errorf("%w: larger than %d bytes", ErrYAMLSubset, MaxToolConfig)
	}
	if !utf8.Valid(doc) || strings.ContainsRune(string(doc), 0) {
		return "", false, fmt.Errorf("%w: not UTF-8 text", ErrYAMLSubset)
	}
	text := strings.TrimPrefix(string(doc), "\uFEFF")
	bad := func(n int, what string) error {
		return fmt.Errorf("%w: line %d: %s", ErrYAMLSubset, n, what)
	}
	// path holds the open mappings' keys with their columns; a sequence entry
	// is a key "-" that no key path matches.
	type level struct {
		col int
		key string
	}
	var path []level
	onPath := func() bool { // path is a prefix of keys
		if len(path) > len(keys) {
			return false
		}
		for i, l := range path {
			if l.key != keys[i] {
				return false
			}
		}
		return true
	}
	block := -1     // inside a block scalar whose parent is at this column
	continued := -1 // the key path's value, which may not continue on more indented lines
	started := false
	seen := false
	for n, line := range strings.Split(text, "\n") {
		n++
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimLeft(line, " ")
		col := len(line) - len(trimmed)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if block >= 0 {
			if col > block {
				continue
			}
			block = -1
		}
		if strings.HasPrefix(trimmed, "\t") {
			return "", false, bad(n, "a tab in indentation")
		}
		if continued >= 0 && col > continued {
			return "", false, bad(n, "the value continues on this line")
		}
		continued = -1
		if col == 0 && (trimmed == "---" || strings.HasPrefix(trimmed, "--- ") || trimmed == "..." || strings.HasPrefix(trimmed, "%")) {
			if started || !strings.HasPrefix(trimmed, "---") {
				return "", false, bad(n, "several documents or a directive")
			}
			continue
		}
		started = true
		for len(path) > 0 && path[len(path)-1].col >= col {
			path = path[:len(path)-1]
		}
		// Sequence entries ("- ", "- - key: v") open a node no key path names.
		for strings.HasPrefix(trimmed, "-") && (len(trimmed) == 1 || trimmed[1] == ' ') {
			path = append(path, level{col, "-"})
			rest := strings.TrimLeft(trimmed[1:], " ")
			col += len(trimmed) - len(rest)
			trimmed = rest
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, val, isKey := yamlKeyLine(trimmed)
		parentOnPath := onPath() && len(path) < len(keys)
		if !isKey {
			if parentOnPath {
				return "", false, bad(n, "not a key: value line where a mapping is read")
			}
			if strings.HasPrefix(val, "|") || strings.HasPrefix(val, ">") {
				block = col - 1
			}
			continue
		}
		want := parentOnPath && key == keys[len(path)]
		if parentOnPath && (key == "<<" || strings.HasPrefix(trimmed, "?")) {
			return "", false, bad(n, "a merge key or explicit key in a mapping taskproof reads")
		}
		if strings.HasPrefix(val, "|") || strings.HasPrefix(val, ">") {
			if want {
				return "", false, bad(n, "a block scalar as "+strings.Join(keys[:len(path)+1], "."))
			}
			block = col
			continue
		}
		path = append(path, level{col, key})
		switch {
		case !want:
		case len(path) < len(keys):
			// A mapping on the path: its value must be written below it.
			if val != "" {
				return "", false, bad(n, key+" is not written as a block mapping")
			}
		case seen:
			return "", false, bad(n, strings.Join(keys, ".")+" twice")
		default:
			v, null, err := yamlPlainValue(val)
			if err != nil {
				return "", false, bad(n, err.Error())
			}
			seen, continued = true, col
			value, found = v, !null
		}
	}
	return value, found, nil
}

// yamlKeyLine splits a block mapping line "key: value" (key plain or simply
// quoted, ": " or ":" at the end separating it), with the value's comment cut.
// isKey is false for any other line; val is then the line.
func yamlKeyLine(s string) (key, val string, isKey bool) {
	if strings.ContainsRune("{[&*!|>%@`?", rune(s[0])) {
		return "", s, false // flow style, a node property, a block scalar, an explicit key
	}
	if s[0] == '"' || s[0] == '\'' {
		q := s[0]
		end := strings.IndexByte(s[1:], q)
		if end < 0 || strings.ContainsRune(s[1:end+1], '\\') {
			return "", s, false
		}
		key, rest := s[1:end+1], s[end+2:]
		if !strings.HasPrefix(rest, ":") || (len(rest) > 1 && !isYAMLBlank(rest[1])) {
			return "", s, false
		}
		return key, cutYAMLComment(strings.TrimLeft(rest[1:], " \t")), true
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == ':' && (i+1 == len(s) || isYAMLBlank(s[i+1])):
			return strings.TrimRight(s[:i], " \t"), cutYAMLComment(strings.TrimLeft(s[i+1:], " \t")), true
		case s[i] == '#' && i > 0 && isYAMLBlank(s[i-1]):
			return "", s, false
		}
	}
	return "", s, false
}

// cutYAMLComment drops a " #…" comment after a value: after a quoted
// value's closing quote, else at the first " #".
func cutYAMLComment(v string) string {
	if v == "" {
		return ""
	}
	if v[0] == '#' {
		return ""
	}
	if q := v[0]; q == '"' || q == '\'' {
		for i := 1; i < len(v); i++ {
			switch {
			case q == '\'' && v[i] == q && i+1 < len(v) && v[i+1] == q:
				i++
			case q == '"' && v[i] == '\\':
				i++
			case v[i] == q:
				if rest := strings.TrimLeft(v[i+1:], " \t"); rest == "" || rest[0] == '#' {
					return v[:i+1]
				}
				return v // text after the closing quote: yamlPlainValue refuses it
			}
		}
		return v
	}
	for i := 1; i < len(v); i++ {
		if v[i] == '#' && isYAMLBlank(v[i-1]) {
			v = v[:i]
			break
		}
	}
	return strings.TrimRight(v, " \t")
}

// isYAMLBlank is YAML's white space within a line.
func isYAMLBlank(c byte) bool { return c == ' ' || c == '\t' }

// yamlPlainValue reads a one-line scalar: plain, or quoted without escapes
// (” in single quotes is a quote). null is true for YAML's null.
func yamlPlainValue(v string) (s string, null bool, err error) {
	switch {
	case v == "" || v == "~" || v == "null" || v == "Null" || v == "NULL":
		return "", true, nil
	case v[0] == '"':
		if len(v) < 2 || v[len(v)-1] != '"' || strings.ContainsAny(v[1:len(v)-1], "\"\\") {
			return "", false, errors.New("a double-quoted value with escapes or not closed on its line")
		}
		return v[1 : len(v)-1], false, nil
	case v[0] == '\'':
		inner, ok := strings.CutPrefix(v, "'")
		if inner, ok = strings.CutSuffix(inner, "'"); !ok || len(v) < 2 {
			return "", false, errors.New("a single-quoted value not closed on its line")
		}
		if strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
			return "", false, errors.New("a single-quoted value not closed on its line")
		}
		return strings.ReplaceAll(inner, "''", "'"), false, nil
	case strings.ContainsRune("[]{}&*!|>%@`,#", rune(v[0])),
		strings.ContainsRune("-?:", rune(v[0])) && (len(v) == 1 || v[1] == ' '):
		return "", false, fmt.Errorf("a value starting with %q (flow style, alias, anchor, tag or block scalar)", v[0])
	}
	if strings.Contains(v, ": ") {
		return "", false, errors.New("a value holding \": \"")
	}
	return v, false, nil
}
