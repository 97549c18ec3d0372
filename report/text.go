package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/printable"
	"github.com/taskproof/taskproof/keys"
	"github.com/taskproof/taskproof/policy"
	"github.com/taskproof/taskproof/trust"
	"github.com/taskproof/taskproof/verify"
)

// WriteText writes the report for people: one line per tick (branch mode) or
// object (objects mode), the reasons of failing ones indented below, and the
// conclusion. color adds ANSI colours (callers pass true only on a terminal).
func WriteText(w io.Writer, rep *verify.Report, color bool) error {
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
		fmt.Fprintf(&b, "verify %s..%s (%s): %d ticks\n", printable.Short(string(rep.Base)), printable.Short(string(rep.Head)), printable.String(rep.NotesRef), rep.TickCount())
		for t, err := range rep.AllTicks() {
			if err != nil {
				return err
			}
			status := t.Status
			if t.Reason != "" {
				status += " (" + t.Reason + ")"
			}
			// A bug task has no tasks-file line: its commit's Spec-Task trailer names it.
			where := fmt.Sprintf("%s:%d", printable.String(t.Path), t.Line)
			if t.Kind == verify.KindBug && t.Path == "" {
				where = "Spec-Task"
			}
			fmt.Fprintf(&b, "%s %s %s %s %s", mark(t.Failing), printable.Short(string(t.Commit)), where, printable.String(taskLabel(t.Task, t.TaskID, t.Title)), status)
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
			fmt.Fprintf(&b, "  %s %s:%d %s unticked\n", printable.Short(string(u.Commit)), printable.String(u.Path), u.Line, printable.String(taskLabel(u.Task, u.TaskID, u.Title)))
		}
		if len(rep.BornTicked) > 0 {
			fmt.Fprintf(&b, "%d task(s) ticked in tasks files new in their commit (allowed by the verifier's policy, no evidence required):\n", len(rep.BornTicked))
		}
		for _, u := range rep.BornTicked {
			fmt.Fprintf(&b, "  %s %s:%d %s born ticked\n", printable.Short(string(u.Commit)), printable.String(u.Path), u.Line, printable.String(taskLabel(u.Task, u.TaskID, u.Title)))
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
			failing := o.Outcome != verify.OK || policy.Failing(o.Policy)
			task := printable.String(taskLabel(o.Task, o.TaskID, o.Title))
			if task == "" {
				task = "-"
			}
			if names[objectTask{o.Object, o.Task}] > 1 && o.LineHash != "" {
				task += " (line_hash " + printable.Short(o.LineHash) + ")"
			}
			fmt.Fprintf(&b, "%s %s %s %s", mark(failing), printable.Short(string(o.Object)), task, o.Outcome)
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
	case verify.Success:
		concl = paint("32", concl)
	case verify.Failure:
		concl = paint("31", concl)
	}
	fmt.Fprintf(&b, "conclusion: %s\n", concl)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeReasons(b *strings.Builder, rs []verify.Reason) {
	for _, r := range printableReasons(rs) {
		fmt.Fprintf(b, "    %s", r.Code)
		if r.Field != "" {
			fmt.Fprintf(b, " %s", r.Field)
		}
		if r.Expected != "" || r.Found != "" {
			fmt.Fprintf(b, ": expected %s, found %s", printable.OrNone(r.Expected), printable.OrNone(r.Found))
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

// summaryText counts the report's ticks by status, the failing ones by reason
// too ("2 evidenced, 2 unverifiable (1 bad_signature, 1
// ticked_without_evidence)"), or its objects by outcome; "" when there are
// none.
func summaryText(rep *verify.Report) string {
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
		for t := range rep.TickSummaries() {
			sub := ""
			if t.Failing {
				sub = t.Reason
			}
			add(t.Status, sub)
		}
		for range rep.Unticks {
			add("unticked", "")
		}
		for range rep.BornTicked {
			add(verify.StatusBornTicked, "")
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
