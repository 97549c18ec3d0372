package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

// nonNil is s, or an empty slice when s is nil (JSON [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
