package trust

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/taskproof/taskproof/internal/inputfile"
)

// AllowedSigner is one entry of an allowed signers file (ssh-keygen(1) "ALLOWED
// SIGNERS"; git's gpg.ssh.allowedSignersFile).
type AllowedSigner struct {
	// Line is the 1-based line number of the entry in its file.
	Line int
	// Principals is the principals pattern list as written (quotes removed):
	// comma-separated patterns with `*` and `?` wildcards and `!` negation.
	Principals string
	// CertAuthority marks Key as a CA: it then trusts SSH user certificates it
	// signed, never signatures made by Key itself.
	CertAuthority bool
	// Namespaces is the namespaces="…" pattern list; "" when absent (any
	// namespace).
	Namespaces string
	// ValidAfter and ValidBefore bound the entry's validity (inclusive); the zero
	// time means unbounded.
	ValidAfter, ValidBefore time.Time
	// Key is the trusted public key (never a certificate).
	Key ssh.PublicKey

	blob []byte // Key's wire encoding, compared against signature keys
}

// keyBlob returns the wire encoding of e.Key (cached when parsed).
func (e *AllowedSigner) keyBlob() []byte {
	if e.blob == nil && e.Key != nil {
		return e.Key.Marshal()
	}
	return e.blob
}

// AllowedSigners is a parsed allowed signers file.
type AllowedSigners struct {
	// Name is the file name given to the parser, used in messages.
	Name    string
	Entries []AllowedSigner
}

// AllowedSignersError is a syntax error in an allowed signers file, at a 1-based
// line and column (in bytes). It matches [ErrTrust].
type AllowedSignersError struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (e *AllowedSignersError) Error() string {
	return fmt.Sprintf("allowed signers %s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Is reports whether target is [ErrTrust].
func (e *AllowedSignersError) Is(target error) bool { return target == ErrTrust }

// LoadAllowedSigners reads and parses the allowed signers file at path (see
// [ParseAllowedSigners]). Read failures match [ErrTrust].
func LoadAllowedSigners(path string) (*AllowedSigners, error) {
	data, err := inputfile.Read(path, MaxTrustFile)
	if err != nil {
		return nil, fmt.Errorf("%w: reading allowed signers: %v", ErrTrust, err)
	}
	return ParseAllowedSigners(data, path)
}

// ParseAllowedSigners parses an allowed signers file as OpenSSH's ssh-keygen
// does (sshsig.c), name naming it in errors. Each non-blank line not starting
// with '#' is
//
//	principals [options] keytype base64 [comment]
//
// principals is one word or a double-quoted string; options is a
// comma-separated list of cert-authority, namespaces="…", valid-after="…" and
// valid-before="…" (names case-insensitive, values double-quoted, each option at
// most once). Times are YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, read as UTC
// with a trailing Z and in the verifier's local time zone (time.Local) without
// one, as ssh-keygen does. Unknown options, certificates as keys, a key type
// that disagrees with the key blob, and valid-before earlier than valid-after
// are errors. Every error is an [*AllowedSignersError].
func ParseAllowedSigners(data []byte, name string) (*AllowedSigners, error) {
	as := &AllowedSigners{Name: name}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		p := &lineParser{file: name, line: i + 1, s: string(line)}
		entry, ok, err := p.parse()
		if err != nil {
			return nil, err
		}
		if ok {
			as.Entries = append(as.Entries, entry)
		}
	}
	return as, nil
}

type lineParser struct {
	file string
	line int
	s    string
	pos  int // byte offset into s
}

func (p *lineParser) errorf(pos int, format string, args ...any) error {
	return &AllowedSignersError{File: p.file, Line: p.line, Column: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *lineParser) skipSpace() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

// word returns the next run of bytes up to unquoted whitespace; quotes (with
// backslash-escaped quotes inside) are kept in the returned text.
func (p *lineParser) word() (string, int, error) {
	start := p.pos
	inQuote := false
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == '\\' && inQuote && p.pos+1 < len(p.s) && p.s[p.pos+1] == '"':
			p.pos++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && (c == ' ' || c == '\t'):
			return p.s[start:p.pos], start, nil
		}
		p.pos++
	}
	if inQuote {
		return "", start, p.errorf(start, "unterminated quote")
	}
	return p.s[start:p.pos], start, nil
}

func (p *lineParser) parse() (AllowedSigner, bool, error) {
	e := AllowedSigner{Line: p.line}
	p.skipSpace()
	if p.pos == len(p.s) || p.s[p.pos] == '#' {
		return e, false, nil
	}
	// Principals: a double-quoted string or one word.
	start := p.pos
	if p.s[p.pos] == '"' {
		end := strings.IndexByte(p.s[p.pos+1:], '"')
		if end < 0 {
			return e, false, p.errorf(start, "unterminated quoted principals")
		}
		e.Principals = p.s[p.pos+1 : p.pos+1+end]
		p.pos += end + 2
		if p.pos < len(p.s) && p.s[p.pos] != ' ' && p.s[p.pos] != '\t' {
			return e, false, p.errorf(p.pos, "expected whitespace after quoted principals")
		}
	} else {
		for p.pos < len(p.s) && p.s[p.pos] != ' ' && p.s[p.pos] != '\t' {
			p.pos++
		}
		e.Principals = p.s[start:p.pos]
	}
	if e.Principals == "" {
		return e, false, p.errorf(start, "empty principals")
	}
	if err := checkPatternList(e.Principals); err != nil {
		return e, false, p.errorf(start, "principals: %v", err)
	}
	p.skipSpace()
	if p.pos == len(p.s) {
		return e, false, p.errorf(p.pos, "missing key")
	}
	// Options come first unless the next word is a key type (as sshsig.c tries
	// the key first).
	tok, tokPos, err := p.word()
	if err != nil {
		return e, false, err
	}
	if !isKeyType(tok) {
		if err := p.parseOptions(&e, tok, tokPos); err != nil {
			return e, false, err
		}
		p.skipSpace()
		if p.pos == len(p.s) {
			return e, false, p.errorf(p.pos, "missing key after options")
		}
		if tok, tokPos, err = p.word(); err != nil {
			return e, false, err
		}
		if !isKeyType(tok) {
			return e, false, p.errorf(tokPos, "unknown key type %q", tok)
		}
	}
	p.skipSpace()
	blobText, blobPos, err := p.word()
	if err != nil {
		return e, false, err
	}
	if blobText == "" {
		return e, false, p.errorf(blobPos, "missing key data after %q", tok)
	}
	blob, err := base64.StdEncoding.Strict().DecodeString(blobText)
	if err != nil {
		return e, false, p.errorf(blobPos, "key data is not base64: %v", err)
	}
	key, err := ssh.ParsePublicKey(blob)
	if err != nil {
		return e, false, p.errorf(blobPos, "invalid key: %v", err)
	}
	if _, isCert := key.(*ssh.Certificate); isCert {
		return e, false, p.errorf(tokPos, "a certificate cannot be an allowed signer (use cert-authority with the CA key)")
	}
	if key.Type() != tok {
		return e, false, p.errorf(tokPos, "key type %q does not match the key data (%s)", tok, key.Type())
	}
	e.Key = key
	e.blob = key.Marshal()
	// The rest of the line is a comment.
	return e, true, nil
}

func (p *lineParser) parseOptions(e *AllowedSigner, opts string, base int) error {
	seen := map[string]bool{}
	i := 0
	for i <= len(opts) {
		// Find the end of this option: an unquoted comma.
		j, inQuote := i, false
		for j < len(opts) {
			c := opts[j]
			if c == '\\' && inQuote && j+1 < len(opts) && opts[j+1] == '"' {
				j += 2
				continue
			}
			if c == '"' {
				inQuote = !inQuote
			} else if c == ',' && !inQuote {
				break
			}
			j++
		}
		opt := opts[i:j]
		pos := base + i
		name, value, hasValue := strings.Cut(opt, "=")
		lname := strings.ToLower(name)
		if seen[lname] {
			return p.errorf(pos, "option %q given twice", name)
		}
		seen[lname] = true
		switch lname {
		case "cert-authority":
			if hasValue {
				return p.errorf(pos, "option cert-authority takes no value")
			}
			e.CertAuthority = true
		case "namespaces", "valid-after", "valid-before":
			if !hasValue {
				return p.errorf(pos, "option %s needs a value", lname)
			}
			v, err := dequote(value)
			if err != nil {
				return p.errorf(pos+len(name)+1, "option %s: %v", lname, err)
			}
			switch lname {
			case "namespaces":
				if err := checkPatternList(v); err != nil {
					return p.errorf(pos+len(name)+1, "namespaces: %v", err)
				}
				e.Namespaces = v
			case "valid-after", "valid-before":
				t, err := parseSSHTime(v)
				if err != nil {
					return p.errorf(pos+len(name)+1, "option %s: %v", lname, err)
				}
				if lname == "valid-after" {
					e.ValidAfter = t
				} else {
					e.ValidBefore = t
				}
			}
		case "":
			return p.errorf(pos, "empty option")
		default:
			return p.errorf(pos, "unsupported option %q", name)
		}
		i = j + 1
	}
	if !e.ValidAfter.IsZero() && !e.ValidBefore.IsZero() && e.ValidBefore.Before(e.ValidAfter) {
		return p.errorf(base, "valid-before is earlier than valid-after")
	}
	return nil
}

// dequote removes the double quotes of an option value ("…", with \" for a
// quote), which OpenSSH requires.
func dequote(v string) (string, error) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", fmt.Errorf("value %s must be double-quoted", v)
	}
	inner := v[1 : len(v)-1]
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		if c == '\\' && i+1 < len(inner) && inner[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		if c == '"' {
			return "", fmt.Errorf("stray quote in value %s", v)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// parseSSHTime parses ssh-keygen's YYYYMMDD[HHMM[SS]][Z]: UTC with Z, else
// time.Local.
func parseSSHTime(v string) (time.Time, error) {
	loc := time.Local
	digits := v
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		loc = time.UTC
		digits = v[:len(v)-1]
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return time.Time{}, fmt.Errorf("invalid time %q: want YYYYMMDD[HHMM[SS]][Z]", v)
		}
	}
	var layout string
	switch len(digits) {
	case 8:
		layout = "20060102"
	case 12:
		layout = "200601021504"
	case 14:
		layout = "20060102150405"
	default:
		return time.Time{}, fmt.Errorf("invalid time %q: want YYYYMMDD[HHMM[SS]][Z]", v)
	}
	t, err := time.ParseInLocation(layout, digits, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid time %q: %v", v, err)
	}
	return t, nil
}

// isKeyType reports whether tok names an SSH public key algorithm that an
// allowed signers entry may hold.
func isKeyType(tok string) bool {
	switch tok {
	case ssh.KeyAlgoED25519, ssh.KeyAlgoRSA, ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384,
		ssh.KeyAlgoECDSA521, ssh.KeyAlgoSKED25519, ssh.KeyAlgoSKECDSA256:
		return true
	}
	return false
}

// checkPatternList refuses empty patterns in a comma-separated pattern list.
func checkPatternList(list string) error {
	for _, p := range strings.Split(list, ",") {
		if strings.TrimPrefix(p, "!") == "" {
			return fmt.Errorf("empty pattern in %q", list)
		}
	}
	return nil
}

// Accepts reports whether the entry's principals pattern list accepts
// principal, as `ssh-keygen -Y verify -I principal` does (MatchPatternList:
// case-sensitive, a matching negated pattern refuses).
func (e *AllowedSigner) Accepts(principal string) bool {
	return MatchPatternList(principal, e.Principals)
}

// CreditedPrincipals are the principals a signature by the entry's own key is
// credited to, no identity being given at verify time
// (docs/format.md#principal-patterns): the patterns of the list, in order, that
// are not negated and that the list accepts when taken as a principal name
// (each one a name `ssh-keygen -Y find-principals` lists and `ssh-keygen -Y
// verify -I name` accepts). nil when there is none (`!*`, `!a*,a?c`): the
// entry then trusts nobody.
func (e *AllowedSigner) CreditedPrincipals() []string {
	var out []string
	for _, p := range strings.Split(e.Principals, ",") {
		if p == "" || strings.HasPrefix(p, "!") || !e.Accepts(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// MatchPatternList reports whether s matches the ssh pattern list (OpenSSH
// match_pattern_list, case-sensitive): comma-separated patterns with `*` (any
// run of bytes) and `?` (one byte); a pattern starting with `!` is negated and a
// matching negated pattern makes the whole list fail, whatever else matches.
func MatchPatternList(s, list string) bool {
	positive := false
	for _, p := range strings.Split(list, ",") {
		neg := strings.HasPrefix(p, "!")
		if neg {
			p = p[1:]
		}
		if len(p) >= maxSubpattern {
			return false // OpenSSH fails the whole list on a subpattern this long
		}
		if matchPattern(s, p) {
			if neg {
				return false
			}
			positive = true
		}
	}
	return positive
}

// maxSubpattern is the length at which OpenSSH's match_pattern_list gives up
// on a list (its buffer for one pattern holds 1,023 bytes and a NUL).
const maxSubpattern = 1023

// matchPattern is OpenSSH's match_pattern, iterative with backtracking on the
// last '*' (linear in practice, no recursion on hostile input).
func matchPattern(s, p string) bool {
	si, pi := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			si++
			pi++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
