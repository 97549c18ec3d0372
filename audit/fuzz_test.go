package audit

import (
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref"
)

// FuzzReadNote feeds arbitrary notes to the note reader: it must never panic, and
// every row it makes names a task and a verdict, every problem a commit.
func FuzzReadNote(f *testing.F) {
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[]}` + "\n"))
	f.Add([]byte("not json\n\n{}\r\n"))
	f.Add([]byte(`{"payloadType":"x","payload":"","signatures":[{"sig":"AA=="}]}`))
	f.Fuzz(func(t *testing.T, note []byte) {
		var rd reader
		commit := gitref.Hash(strings.Repeat("a", 40))
		rd.readNote(commit, note)
		for _, r := range rd.rows {
			if r.Task == "" || r.Commit != commit {
				t.Fatalf("row without task or commit: %+v", r)
			}
			if r.Verdict == "regression_only" && r.Regression == nil {
				t.Fatalf("regression_only row without a reason: %+v", r)
			}
		}
		for _, p := range rd.problems {
			if p.Commit != commit || p.Message == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
	})
}

func FuzzParseReasons(f *testing.F) {
	for _, s := range []string{"unrecorded", "no_story, not_red", "", ",", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ParseReasons(s)
		if err == nil && len(rs) == 0 {
			t.Fatalf("ParseReasons(%q): no reasons and no error", s)
		}
	})
}
