package gitref

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// ErrConfig is wrapped by errors of EnsureConfig (the repository's config file
// cannot be read, parsed or written, or a wanted key is not a valid config key)
// and of reading git's configuration ([Repo.Config]: a file that cannot be read
// or parsed, a `git config` that fails, an include that cannot be followed).
var ErrConfig = errors.New("git config")

// ConfigWant is one setting `taskproof init` needs in the repository's config
// (the repository-local file, $GIT_COMMON_DIR/config).
type ConfigWant struct {
	// Key is "section.name" or "section.subsection.name" (e.g.
	// "remote.origin.fetch", "notes.rewrite.rebase"); the subsection may hold dots.
	Key string
	// Value is the value wanted.
	Value string
	// Multi marks a multi-valued key (remote.*.fetch, notes.rewriteRef): Value is
	// added unless Satisfied (or, when Satisfied is nil, an equal value) is already
	// there; the other values are kept. Otherwise the key's last value (the one git
	// uses) must equal Value, booleans compared as git reads them ("yes", "on", "1"
	// are true), and a value is appended to the section when it does not.
	Multi bool
	// Satisfied, when not nil, decides whether the key's current values (in file
	// order, nil when none) already give what is wanted.
	Satisfied func(values []string) bool
	// Replaces lists values of a multi-valued key that Value supersedes (what an
	// earlier version of the tool wrote): each line holding one of them is
	// removed, and Value added unless already Satisfied.
	Replaces []string
}

// ConfigChange is one change EnsureConfig made (or would make, on a dry run).
type ConfigChange struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Old is the value that was in effect for a single-valued key ("" when unset);
	// empty for a value added to a multi-valued key.
	Old string `json:"old,omitempty"`
	// Added is true for a value added to a multi-valued key.
	Added bool `json:"added"`
	// Replaced is the superseded value (ConfigWant.Replaces) removed ("" when
	// none; several are joined by " ").
	Replaced string `json:"replaced,omitempty"`
}

// EnsureConfig makes the repository's own config file ($GIT_COMMON_DIR/config)
// hold every want, and returns the changes, in the order of wants; wants already
// satisfied give none (so a second run changes nothing). With dryRun the file is
// not written.
//
// The file is edited as text, not re-encoded: go-git's config encoder drops
// comments and re-quotes values, and a user's .git/config must come back with
// every line it had. A value goes on a new line at the end of the last section of
// its name (after its last non-blank line), or into a new section appended at the
// end of the file. The file is replaced atomically under git's lock protocol
// ($GIT_COMMON_DIR/config.lock, created exclusively, then renamed over the file),
// keeping its permission bits. Errors wrap ErrConfig, or ErrLocked when the lock
// file is held.
func (r *Repo) EnsureConfig(wants []ConfigWant, dryRun bool) ([]ConfigChange, error) {
	path := filepath.Join(r.commonDir, "config")
	text, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrConfig, path, err)
	}
	var changes []ConfigChange
	for _, w := range wants {
		section, sub, name, err := splitConfigKey(w.Key)
		if err != nil || !validConfigName(section, true) || !validConfigName(name, false) {
			return nil, fmt.Errorf("%w: bad key %q", ErrConfig, w.Key)
		}
		if strings.ContainsAny(w.Value, "\n\x00") || strings.ContainsAny(sub, "\n\x00") {
			return nil, fmt.Errorf("%w: %s: a value or subsection cannot hold a newline or NUL", ErrConfig, w.Key)
		}
		values, err := configValues(text, section, sub, name)
		if err != nil {
			return nil, fmt.Errorf("%w: parsing %s: %v", ErrConfig, path, err)
		}
		ch := ConfigChange{Key: w.Key, Value: w.Value, Added: w.Multi}
		var replaced []string
		if w.Multi {
			for _, old := range w.Replaces {
				if contains(values, old) {
					text = removeConfigValue(text, section, sub, name, old)
					replaced = append(replaced, old)
				}
			}
			if len(replaced) > 0 {
				if values, err = configValues(text, section, sub, name); err != nil {
					return nil, fmt.Errorf("%w: parsing %s: %v", ErrConfig, path, err)
				}
				for _, old := range replaced {
					if contains(values, old) {
						return nil, fmt.Errorf("%w: %s: cannot remove the superseded value %q (edit %s by hand)", ErrConfig, w.Key, old, path)
					}
				}
				ch.Replaced = strings.Join(replaced, " ")
			}
		}
		switch {
		case ch.Replaced != "" && ((w.Satisfied != nil && w.Satisfied(values)) || (w.Satisfied == nil && contains(values, w.Value))):
			ch.Added = false
			changes = append(changes, ch)
			continue
		case w.Satisfied != nil && w.Satisfied(values):
			continue
		case w.Satisfied == nil && w.Multi && contains(values, w.Value):
			continue
		case w.Satisfied == nil && !w.Multi && len(values) > 0 && sameConfigValue(values[len(values)-1], w.Value):
			continue
		}
		if !w.Multi && len(values) > 0 {
			ch.Old = values[len(values)-1]
		}
		text = addConfigValue(text, section, sub, name, w.Value)
		changes = append(changes, ch)
	}
	if dryRun || len(changes) == 0 {
		return changes, nil
	}
	// Check the result reads back before replacing the user's file.
	if err := format.NewDecoder(bytes.NewReader(text)).Decode(format.New()); err != nil {
		return nil, fmt.Errorf("%w: the edited %s would not parse (left unchanged): %v", ErrConfig, path, err)
	}
	if err := writeFileLocked(path, text); err != nil {
		return nil, err
	}
	return changes, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// configValues returns every value of section[.sub].name in text, in file order.
func configValues(text []byte, section, sub, name string) ([]string, error) {
	cfg := format.New()
	if err := format.NewDecoder(bytes.NewReader(text)).Decode(cfg); err != nil {
		return nil, err
	}
	if !cfg.HasSection(section) {
		return nil, nil
	}
	s := cfg.Section(section)
	opts := s.Options
	if sub != "" {
		if !s.HasSubsection(sub) {
			return nil, nil
		}
		opts = s.Subsection(sub).Options
	}
	return opts.GetAll(name), nil
}

// sameConfigValue compares two config values, booleans as git reads them.
func sameConfigValue(a, b string) bool {
	if a == b {
		return true
	}
	ba, oka := gitBool(a)
	bb, okb := gitBool(b)
	return oka && okb && ba == bb
}

// gitBool parses a value as git's --type=bool does.
func gitBool(v string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, true
	}
	return false, false
}

// validConfigName reports whether s is a valid section (dots allowed only for
// the legacy form, which we never write) or variable name: alphanumerics and
// '-', a variable starting with a letter.
func validConfigName(s string, section bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case (c >= '0' && c <= '9') || c == '-':
			if !section && i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// header is one section header line of a config file.
type header struct {
	line         int // index in the line slice
	section, sub string
}

// splitLines splits text into lines, each keeping its "\n".
func splitLines(text []byte) []string {
	var out []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, string(text))
			break
		}
		out = append(out, string(text[:i+1]))
		text = text[i+1:]
	}
	return out
}

// parseHeader recognises a section header line: `[section]`, `[section
// "subsection"]` (subsection case-sensitive, `\"` and `\\` escapes) or the
// legacy `[section.subsection]` (subsection lower-cased, as git does). Text after
// the closing bracket (a variable on the same line, a comment) is ignored.
func parseHeader(line string) (section, sub string, ok bool) {
	s := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(s, "[") {
		return "", "", false
	}
	s = s[1:]
	i := strings.IndexAny(s, " \t]")
	if i < 0 {
		return "", "", false
	}
	section = s[:i]
	rest := strings.TrimLeft(s[i:], " \t")
	if strings.HasPrefix(rest, "]") {
		if dot := strings.Index(section, "."); dot >= 0 {
			return strings.ToLower(section[:dot]), strings.ToLower(section[dot+1:]), true
		}
		return strings.ToLower(section), "", true
	}
	if !strings.HasPrefix(rest, `"`) {
		return "", "", false
	}
	var b strings.Builder
	for j := 1; j < len(rest); j++ {
		switch c := rest[j]; c {
		case '\\':
			if j+1 < len(rest) {
				j++
				b.WriteByte(rest[j])
			}
		case '"':
			if strings.HasPrefix(strings.TrimLeft(rest[j+1:], " \t"), "]") {
				return strings.ToLower(section), b.String(), true
			}
			return "", "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// addConfigValue returns text with "\tname = value" added at the end of the last
// section named section[.sub], or in a new section at the end.
func addConfigValue(text []byte, section, sub, name, value string) []byte {
	lines := splitLines(text)
	var headers []header
	for i, l := range lines {
		if s, ss, ok := parseHeader(l); ok {
			headers = append(headers, header{i, s, ss})
		}
	}
	entry := "\t" + name + " = " + quoteConfigValue(value) + "\n"
	last := -1
	for hi, h := range headers {
		if strings.EqualFold(h.section, section) && h.sub == sub {
			last = hi
		}
	}
	if last < 0 {
		var b strings.Builder
		b.Write(text)
		if len(text) > 0 && text[len(text)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString("[" + section)
		if sub != "" {
			b.WriteString(` "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub) + `"`)
		}
		b.WriteString("]\n" + entry)
		return []byte(b.String())
	}
	end := len(lines) // the section runs to the next header or the end of file
	if last+1 < len(headers) {
		end = headers[last+1].line
	}
	at := headers[last].line // insert after the last line holding something
	for i := headers[last].line + 1; i < end; i++ {
		t := strings.TrimSpace(lines[i])
		if t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, ";") {
			at = i
		}
	}
	// A value continued with a trailing backslash runs on: the line after at is
	// part of it only when at ends with "\\\n", which a last content line cannot.
	if !strings.HasSuffix(lines[at], "\n") {
		lines[at] += "\n"
	}
	out := make([]string, 0, len(lines)+1)
	out = append(out, lines[:at+1]...)
	out = append(out, entry)
	out = append(out, lines[at+1:]...)
	return []byte(strings.Join(out, ""))
}

// removeConfigValue returns text without the lines of the sections named
// section[.sub] that set name to value (plain or double-quoted, on one line).
func removeConfigValue(text []byte, section, sub, name, value string) []byte {
	lines := splitLines(text)
	in := false
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if s, ss, ok := parseHeader(l); ok {
			in = strings.EqualFold(s, section) && ss == sub
			out = append(out, l)
			continue
		}
		if in {
			k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
			v = strings.TrimSpace(v)
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && !strings.ContainsAny(v[1:len(v)-1], `"\`) {
				v = v[1 : len(v)-1]
			}
			if ok && strings.EqualFold(strings.TrimSpace(k), name) && v == value {
				continue
			}
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, ""))
}

// quoteConfigValue writes v so git reads it back unchanged: quoted when it has
// leading or trailing spaces or a comment character, with '"' and '\' escaped.
func quoteConfigValue(v string) string {
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`).Replace(v)
	if v == "" || strings.TrimSpace(v) != v || strings.ContainsAny(v, "#;") {
		return `"` + esc + `"`
	}
	return esc
}

// writeFileLocked replaces path with data under git's lock protocol.
func writeFileLocked(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: %s exists (another git process is writing the config; remove it if none is): %w", ErrConfig, lock, ErrLocked)
	}
	if err != nil {
		return storageFault(fmt.Errorf("%w: creating %s: %w", ErrConfig, lock, err), "")
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(lock, path)
	}
	if werr != nil {
		os.Remove(lock)
		return storageFault(fmt.Errorf("%w: writing %s: %w", ErrConfig, path, werr), "")
	}
	return nil
}

// LocalConfigValues returns every value of key in the repository's own config
// file ($GIT_COMMON_DIR/config, the one EnsureConfig edits), in file order.
// Errors wrap ErrConfig.
func (r *Repo) LocalConfigValues(key string) ([]string, error) {
	section, sub, name, err := splitConfigKey(key)
	if err != nil {
		return nil, fmt.Errorf("%w: bad key %q", ErrConfig, key)
	}
	path := filepath.Join(r.commonDir, "config")
	text, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrConfig, path, err)
	}
	vs, err := configValues(text, section, sub, name)
	if err != nil {
		return nil, fmt.Errorf("%w: parsing %s: %v", ErrConfig, path, err)
	}
	return vs, nil
}
