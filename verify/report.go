package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/trust"
)

// WriteJSON writes the report as indented JSON (docs/gate.md "JSON output"); the
// schema_version is 1. The bytes are encoding/json's indented encoding of
// the whole Report; they are written piece by piece, one object or tick at a
// time through a 64 KiB buffer, so that a report of many ticks is never held
// twice in memory (as a value and as its encoding).
func WriteJSON(w io.Writer, rep *Report) error {
	// The report's lists are arrays, never null, whatever built them.
	rep.Objects, rep.Ticks, rep.Unticks, rep.BornTicked = nonNil(rep.Objects), nonNil(rep.Ticks), nonNil(rep.Unticks), nonNil(rep.BornTicked)
	for _, list := range [][]TickResult{rep.Ticks, rep.Unticks, rep.BornTicked} {
		for i := range list {
			list[i].Reasons, list[i].Signers = nonNil(list[i].Reasons), nonNil(list[i].Signers)
		}
	}
	for i := range rep.Objects {
		o := &rep.Objects[i]
		o.Reasons, o.Signers, o.NewerFields = nonNil(o.Reasons), nonNil(o.Signers), nonNil(o.NewerFields)
	}
	// The report with its four lists empty: every other field as encoding/json
	// writes it, in its place; each list's "[]" is then replaced by its items.
	skeleton := *rep
	skeleton.Objects, skeleton.Ticks, skeleton.Unticks, skeleton.BornTicked = []ObjectResult{}, []TickResult{}, []TickResult{}, []TickResult{}
	var head bytes.Buffer
	if err := encodeIndented(&head, &skeleton, ""); err != nil {
		return err
	}
	rest := head.Bytes()
	tickAt, err := rep.tickReader()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var item bytes.Buffer
	for _, list := range []struct {
		key string
		n   int
		at  func(i int) (any, error)
		// spooled are the list's leading items, held out of memory.
		spooled *itemSpool
	}{
		{"objects", len(rep.Objects), func(i int) (any, error) { return &rep.Objects[i], nil }, rep.objectSpool},
		{"ticks", rep.TickCount(), func(i int) (any, error) {
			t, err := tickAt(i)
			if t != nil {
				t.Reasons, t.Signers = nonNil(t.Reasons), nonNil(t.Signers)
			}
			return t, err
		}, nil},
		{"unticks", len(rep.Unticks), func(i int) (any, error) { return &rep.Unticks[i], nil }, nil},
		{"born_ticked", len(rep.BornTicked), func(i int) (any, error) { return &rep.BornTicked[i], nil }, nil},
	} {
		// A top-level key starts its line, its quotes unescaped: no string
		// value can read so.
		marker := []byte("\n  \"" + list.key + "\": []")
		at := bytes.Index(rest, marker)
		if at < 0 {
			return fmt.Errorf("writing the JSON report: no %q in its encoding", list.key)
		}
		at += len(marker) - len("[]")
		bw.Write(rest[:at])
		rest = rest[at+len("[]"):]
		if list.n == 0 && (list.spooled == nil || list.spooled.n == 0) {
			bw.WriteString("[]")
			continue
		}
		bw.WriteString("[\n")
		if list.spooled != nil && list.spooled.n > 0 {
			if err := list.spooled.writeTo(bw); err != nil {
				return fmt.Errorf("writing the JSON report: %w", err)
			}
			if list.n > 0 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		for i := 0; i < list.n; i++ {
			item.Reset()
			item.WriteString("    ")
			v, err := list.at(i)
			if err != nil {
				return err
			}
			if err := encodeIndented(&item, v, "    "); err != nil {
				return err
			}
			b := bytes.TrimSuffix(item.Bytes(), []byte("\n"))
			bw.Write(b)
			if i < list.n-1 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
		bw.WriteString("  ]")
	}
	bw.Write(rest)
	return bw.Flush()
}

// encodeIndented writes v as encoding/json's indented encoding (two spaces a
// level, every line after the first prefixed with prefix, no HTML escaping),
// followed by a newline.
func encodeIndented(w io.Writer, v any, prefix string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteText writes the report for people: one line per tick (branch mode) or
// object (objects mode), the reasons of failing ones indented below, and the
// conclusion. color adds ANSI colours (callers pass true only on a terminal).
func WriteText(w io.Writer, rep *Report, color bool) error {
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	mark := func(failing bool) string {
		if failing {
			return paint("31", "✗")
		}
		return paint("32", "✓")
	}
	// Written out every 64 KiB: a report of many ticks is not held twice.
	var b strings.Builder
	flush := func() error {
		if b.Len() < 64<<10 {
			return nil
		}
		_, err := io.WriteString(w, b.String())
		b.Reset()
		return err
	}
	if rep.Mode == "branch" {
		fmt.Fprintf(&b, "verify %s..%s (%s): %d ticks\n", short(string(rep.Base)), short(string(rep.Head)), printable.String(rep.NotesRef), rep.TickCount())
		tickAt, err := rep.tickReader()
		if err != nil {
			return err
		}
		for i := range rep.TickCount() {
			t, err := tickAt(i)
			if err != nil {
				return err
			}
			status := t.Status
			if t.Reason != "" {
				status += " (" + t.Reason + ")"
			}
			// A bug task has no tasks-file line: its commit's Spec-Task trailer names it.
			where := fmt.Sprintf("%s:%d", printable.String(t.Path), t.Line)
			if t.Kind == KindBug && t.Path == "" {
				where = "Spec-Task"
			}
			fmt.Fprintf(&b, "%s %s %s %s %s", mark(t.Failing), short(string(t.Commit)), where, printable.String(taskLabel(t.Task, t.TaskID, t.Title)), status)
			if t.Verdict != "" {
				fmt.Fprintf(&b, " verdict=%s", printable.String(t.Verdict))
			}
			if len(t.Via) > 0 {
				fmt.Fprintf(&b, " via=%s", printable.String(strings.Join(t.Via, ",")))
			}
			if len(t.Signers) > 0 {
				var ss []string
				for _, s := range t.Signers {
					ss = append(ss, signerText(s))
				}
				fmt.Fprintf(&b, " signed-by=%s", strings.Join(ss, ","))
			}
			b.WriteByte('\n')
			if t.SameTreeAs != "" {
				fmt.Fprintf(&b, "    same_tree_as %s holds the evidence\n", t.SameTreeAs)
			}
			if t.Message != "" {
				fmt.Fprintf(&b, "    %s\n", printable.String(t.Message))
			}
			if t.Failing {
				writeReasons(&b, t.Reasons)
			}
			writePolicy(&b, t.Policy)
			writeHint(&b, t.Hint)
			for _, wr := range t.Warnings {
				fmt.Fprintf(&b, "    warning: %s\n", warningText(wr))
			}
			if err := flush(); err != nil {
				return err
			}
		}
		for _, u := range rep.Unticks {
			fmt.Fprintf(&b, "  %s %s:%d %s unticked\n", short(string(u.Commit)), printable.String(u.Path), u.Line, printable.String(taskLabel(u.Task, u.TaskID, u.Title)))
		}
		if len(rep.BornTicked) > 0 {
			fmt.Fprintf(&b, "%d task(s) ticked in tasks files new in their commit (allowed by the verifier's policy, no evidence required):\n", len(rep.BornTicked))
		}
		for _, u := range rep.BornTicked {
			fmt.Fprintf(&b, "  %s %s:%d %s born ticked\n", short(string(u.Commit)), printable.String(u.Path), u.Line, printable.String(taskLabel(u.Task, u.TaskID, u.Title)))
		}
	} else {
		// Two lines of one repeated task ID are two objects with one task
		// name: their line_hash tells them apart.
		type objectTask struct {
			object gitref.Hash
			task   string
		}
		names := map[objectTask]int{}
		for _, o := range rep.Objects {
			names[objectTask{o.Object, o.Task}]++
		}
		for _, o := range rep.Objects {
			failing := o.Outcome != OK || policy.Failing(o.Policy)
			task := printable.String(taskLabel(o.Task, o.TaskID, o.Title))
			if task == "" {
				task = "-"
			}
			if names[objectTask{o.Object, o.Task}] > 1 && o.LineHash != "" {
				task += " (line_hash " + short(o.LineHash) + ")"
			}
			fmt.Fprintf(&b, "%s %s %s %s", mark(failing), short(string(o.Object)), task, o.Outcome)
			if o.Verdict != "" {
				fmt.Fprintf(&b, " verdict=%s", printable.String(o.Verdict))
			}
			for _, s := range o.Signers {
				fmt.Fprintf(&b, " signed-by=%s", signerText(s))
			}
			b.WriteByte('\n')
			writeReasons(&b, o.Reasons)
			writePolicy(&b, o.Policy)
			writeHint(&b, o.Hint)
			for _, wr := range o.Warnings {
				fmt.Fprintf(&b, "    warning: %s\n", warningText(wr))
			}
			if len(o.NewerFields) > 0 {
				fmt.Fprintf(&b, "    newer fields (not checked): %s\n", printable.String(strings.Join(o.NewerFields, ", ")))
			}
			if err := flush(); err != nil {
				return err
			}
		}
	}
	for _, r := range rep.Policy {
		fmt.Fprintf(&b, "%s range: %s\n", mark(r.Failing()), printable.String(policyText(r)))
	}
	if line := strings.Trim(summaryText(rep)+", "+warningSummary(rep), ", "); line != "" {
		fmt.Fprintf(&b, "summary: %s\n", line)
	}
	concl := rep.Conclusion
	switch concl {
	case Success:
		concl = paint("32", concl)
	case Failure:
		concl = paint("31", concl)
	}
	fmt.Fprintf(&b, "conclusion: %s\n", concl)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeReasons(b *strings.Builder, rs []Reason) {
	for _, r := range printableReasons(rs) {
		fmt.Fprintf(b, "    %s", r.Code)
		if r.Field != "" {
			fmt.Fprintf(b, " %s", r.Field)
		}
		if r.Expected != "" || r.Found != "" {
			fmt.Fprintf(b, ": expected %s, found %s", orNone(r.Expected), orNone(r.Found))
		}
		if r.Message != "" {
			fmt.Fprintf(b, " — %s", r.Message)
		}
		b.WriteByte('\n')
	}
}

// writeHint writes how to fix a failing tick or object, when there is a hint.
func writeHint(b *strings.Builder, hint string) {
	if hint != "" {
		fmt.Fprintf(b, "    fix: %s\n", printable.String(hint))
	}
}

// writePolicy writes the policy results that count against a tick or object.
func writePolicy(b *strings.Builder, rs []policy.Result) {
	for _, r := range rs {
		fmt.Fprintf(b, "    %s\n", printable.String(policyText(r)))
	}
}

func signerText(s trust.Signer) string { return printable.String(rawSignerText(s)) }

func rawSignerText(s trust.Signer) string {
	if s.Kind == keys.KindSigstore {
		tlog := "none"
		if s.TlogIndex != nil {
			tlog = fmt.Sprint(*s.TlogIndex)
		}
		return fmt.Sprintf("%s(sigstore issuer=%s tlog=%s)", s.Identity, s.Issuer, tlog)
	}
	if s.Principal != "" {
		return s.Principal + "(" + string(s.Kind) + " " + s.KeyID + ")"
	}
	return string(s.Kind) + " " + s.KeyID
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// nonNil is s, or an empty slice when s is nil (JSON [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// summaryText counts the report's ticks by status, the failing ones by reason
// too ("2 evidenced, 2 unverifiable (1 bad_signature, 1
// ticked_without_evidence)"), or its objects by outcome; "" when there are
// none.
func summaryText(rep *Report) string {
	type count struct {
		key string
		n   int
		sub map[string]int
	}
	var counts []*count
	add := func(key, sub string) {
		var c *count
		for _, x := range counts {
			if x.key == key {
				c = x
			}
		}
		if c == nil {
			c = &count{key: key, sub: map[string]int{}}
			counts = append(counts, c)
		}
		c.n++
		if sub != "" {
			c.sub[sub]++
		}
	}
	if rep.Mode == "branch" {
		rep.eachTick(func(t *TickResult) {
			sub := ""
			if t.Failing {
				sub = t.Reason
			}
			add(t.Status, sub)
		})
		for range rep.Unticks {
			add("unticked", "")
		}
		for range rep.BornTicked {
			add(StatusBornTicked, "")
		}
	} else {
		for _, o := range rep.Objects {
			add(string(o.Outcome), "")
		}
	}
	sort.SliceStable(counts, func(i, j int) bool { return counts[i].key < counts[j].key })
	parts := make([]string, 0, len(counts))
	for _, c := range counts {
		p := fmt.Sprintf("%d %s", c.n, c.key)
		if len(c.sub) > 0 {
			subs := make([]string, 0, len(c.sub))
			for k := range c.sub {
				subs = append(subs, k)
			}
			sort.Strings(subs)
			for i, k := range subs {
				subs[i] = fmt.Sprintf("%d %s", c.sub[k], k)
			}
			p += " (" + strings.Join(subs, ", ") + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
