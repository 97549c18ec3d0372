// Package printable writes text from a repository so that a terminal or a
// log viewer shows it instead of acting on it
// (docs/format.md#control-characters-in-reports), and writes the values
// every report shows alike: a commit id short (Short), an absent value as
// "(none)" (OrNone).
package printable

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every character that could act on a terminal or a
// log viewer instead of being shown written as an escape
// (docs/format.md#control-characters-in-reports): C0 controls, DEL and C1
// controls (`\r`, `\n`, `\t`, else `\x1b`, `\u009b`), line and paragraph
// separators and the bidirectional formatting characters (`\u202e`), and each
// byte that is not UTF-8 (`\xff`). Everything else, non-ASCII text included,
// is kept. Text from the repository (paths, task titles, messages, reasons)
// passes through it where a report or message is written for people: the text
// and GitHub formats and the CLI's stderr.
func String(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || escaped(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && escaped(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case escaped(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// escaped reports whether String writes r as an escape: a control
// character (Unicode Cc: C0, DEL, C1), U+2028/U+2029, or a bidirectional
// formatting character (marks, embeddings, overrides, isolates), which can
// reorder what a terminal shows.
func escaped(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == '\u2028' || r == '\u2029':
		return true
	case r == '\u061c' || r == '\u200e' || r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Short is a commit id (or a line_hash) as reports write it: its first 12
// hex digits, which git resolves while they are unique.
func Short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// OrNone is s, or "(none)" where a report shows a value that is absent.
func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
