package trailer

import (
	"strings"
)

// Trailer is one trailer of a commit message: "Key: value" in its trailer
// block (git-interpret-trailers(1)). Key is as written; Value is trimmed, its
// continuation lines joined with single spaces.
type Trailer struct {
	Key, Value string
}

// scissors is the line below which git drops the rest of a commit message
// (commit --cleanup=scissors, commit -v).
const scissors = "# ------------------------ >8 ------------------------"

// recognizedPrefixes are the trailer lines git itself writes; a block holding
// one of them is a trailer block when at least a quarter of its lines are
// trailers (git's trailer.c).
var recognizedPrefixes = []string{"Signed-off-by: ", "(cherry picked from commit "}

// Parse returns the trailers of a commit message by the rules of `git
// interpret-trailers --parse` with git's default configuration (separator ':',
// comment character '#'):
//   - the message ends before git's scissors line ("# " + 24 '-' + " >8 " +
//     24 '-'), and before a line starting with "---" followed by
//     whitespace or the line's end (a patch), and trailing blank and comment
//     lines do not count;
//   - the trailer block is the last paragraph (lines after the last blank
//     line), never the first paragraph (the title);
//   - a trailer line is a token of letters, digits and '-' followed by
//     optional whitespace and ':'; a line starting with whitespace continues
//     the trailer before it; comment lines are skipped;
//   - the paragraph is a trailer block when all its lines are trailers or
//     continuations, or when it holds a line git writes itself
//     ("Signed-off-by: ", "(cherry picked from commit ") and at least a
//     quarter of its lines are trailers.
//
// Lines end at "\n", a "\r" before it dropped. A message without a trailer
// block gives nil.
func Parse(message string) []Trailer {
	lines := strings.Split(message, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	// The end of the log message: before a patch divider, then before
	// trailing blank and comment lines.
	end := len(lines)
	for i, l := range lines {
		if l == scissors {
			end = i
			break
		}
	}
	for i, l := range lines[:end] {
		if rest, ok := strings.CutPrefix(l, "---"); ok && (rest == "" || isSpace(rest[0])) {
			end = i
			break
		}
	}
	for end > 0 && (isBlank(lines[end-1]) || strings.HasPrefix(lines[end-1], "#")) {
		end--
	}
	// The title: the first paragraph, comment lines skipped.
	title := 0
	for title < end && !isBlank(lines[title]) {
		title++
	}
	start := end
	for start > title && !isBlank(lines[start-1]) {
		start--
	}
	if start <= title || start == end {
		return nil
	}
	var out []Trailer
	trailers, others := 0, 0
	recognized := false
	last := -1 // index in out of the trailer a continuation line extends
	for _, l := range lines[start:end] {
		switch {
		case strings.HasPrefix(l, "#"):
			continue
		case isSpace(l[0]):
			if last >= 0 {
				out[last].Value = strings.TrimSpace(out[last].Value + " " + strings.Join(strings.Fields(l), " "))
			} else {
				others++
			}
			continue
		}
		for _, p := range recognizedPrefixes {
			if strings.HasPrefix(l, p) {
				recognized = true
			}
		}
		if key, value, ok := trailerLine(l); ok {
			trailers++
			out = append(out, Trailer{Key: key, Value: value})
			last = len(out) - 1
			continue
		}
		others++
		last = -1
	}
	if trailers > 0 && (others == 0 || recognized && trailers*3 >= others) {
		return out
	}
	return nil
}

// trailerLine splits "Token: value" (whitespace allowed before ':').
func trailerLine(l string) (key, value string, ok bool) {
	i := 0
	for i < len(l) && (l[i] == '-' || l[i] >= 'a' && l[i] <= 'z' || l[i] >= 'A' && l[i] <= 'Z' || l[i] >= '0' && l[i] <= '9') {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	j := i
	for j < len(l) && isSpace(l[j]) {
		j++
	}
	if j == len(l) || l[j] != ':' {
		return "", "", false
	}
	return l[:i], strings.TrimSpace(l[j+1:]), true
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' }

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// Values returns the values of the trailers whose key is key, compared
// case-insensitively as git does, in message order.
func Values(ts []Trailer, key string) []string {
	var out []string
	for _, t := range ts {
		if strings.EqualFold(t.Key, key) {
			out = append(out, t.Value)
		}
	}
	return out
}
