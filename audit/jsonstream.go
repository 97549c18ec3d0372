package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// streamJSON writes rep as json.Encoder with SetIndent("", "  ") writes it,
// byte for byte, without building the whole document in memory: the report's
// per-tick lists (ticks, without_evidence, problems) are encoded one element
// at a time into the skeleton of the rest of the report.
func streamJSON(w io.Writer, rep *Report) error {
	skel := *rep
	type list struct {
		key string
		n   int
		enc func(i int) ([]byte, error)
	}
	lists := []list{
		{"ticks", len(rep.Ticks), func(i int) ([]byte, error) { return json.MarshalIndent(rep.Ticks[i], "    ", "  ") }},
		{"without_evidence", len(rep.WithoutEvidence), func(i int) ([]byte, error) { return json.MarshalIndent(rep.WithoutEvidence[i], "    ", "  ") }},
		{"problems", len(rep.Problems), func(i int) ([]byte, error) { return json.MarshalIndent(rep.Problems[i], "    ", "  ") }},
	}
	// Non-empty lists become empty ones in the skeleton ("key": []), which
	// are filled in as it is written; nil and empty lists stay as they are.
	if len(skel.Ticks) > 0 {
		skel.Ticks = []Row{}
	}
	if len(skel.WithoutEvidence) > 0 {
		skel.WithoutEvidence = []Unevidenced{}
	}
	if len(skel.Problems) > 0 {
		skel.Problems = []Problem{}
	}
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&skel); err != nil {
		return err
	}
	doc := sb.Bytes()
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, l := range lists {
		if l.n == 0 {
			continue
		}
		// A top-level key is indented by two spaces; nested ones by more.
		marker := []byte("\n  \"" + l.key + "\": [")
		at := bytes.Index(doc, append(bytes.Clone(marker), ']'))
		if at < 0 {
			return fmt.Errorf("audit: JSON report: no top-level %q list", l.key)
		}
		at += len(marker)
		bw.Write(doc[:at])
		doc = doc[at:] // starts with the list's "]"
		for i := range l.n {
			b, err := l.enc(i)
			if err != nil {
				return err
			}
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			bw.Write(b)
		}
		bw.WriteString("\n  ")
	}
	bw.Write(doc)
	return bw.Flush()
}
