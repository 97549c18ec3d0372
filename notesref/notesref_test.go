package notesref

import (
	"strings"
	"testing"
)

func TestRefspecMaps(t *testing.T) {
	for _, tc := range []struct {
		spec, ref, dst string
		want           bool
	}{
		{"+refs/notes/speccoder:refs/notes/speccoder", "refs/notes/speccoder", "refs/notes/speccoder", true},
		{"refs/notes/speccoder:refs/notes/x", "refs/notes/speccoder", "refs/notes/speccoder", false},
		{"+refs/notes/*:refs/notes/*", "refs/notes/speccoder", "refs/notes/speccoder", true},
		{"+refs/notes/speccoder*:refs/notes/remotes/origin/speccoder*", "refs/notes/speccoder-conflicts", "refs/notes/remotes/origin/speccoder-conflicts", true},
		{"+refs/notes/speccoder*:refs/notes/remotes/origin/speccoder*", "refs/notes/speccoder", "refs/notes/speccoder", false},
		{"+refs/notes/*:refs/notes/fixed", "refs/notes/speccoder", "refs/notes/fixed", false},
		{"refs/notes/speccoder", "refs/notes/speccoder", "refs/notes/speccoder", false},
		{"+refs/a*b:refs/c*", "refs/ab", "refs/c", true},
		{"+refs/ab*b:refs/c*", "refs/ab", "refs/c", false},
	} {
		if got := RefspecMaps(tc.spec, tc.ref, tc.dst); got != tc.want {
			t.Errorf("RefspecMaps(%q, %q, %q) = %v, want %v", tc.spec, tc.ref, tc.dst, got, tc.want)
		}
	}
}

// TestRecordNames: the records of a remote's notes ref live beside its skip
// tracking refs, where neither init's refspecs nor a pruning fetch write.
func TestRecordNames(t *testing.T) {
	for _, tc := range []struct{ ref, synced, rewritten string }{
		{"refs/notes/speccoder", "refs/speccoder/remotes/origin/synced/speccoder", "refs/speccoder/remotes/origin/rewritten/speccoder"},
		{"refs/notes/team/ci", "refs/speccoder/remotes/origin/synced/team/ci", "refs/speccoder/remotes/origin/rewritten/team/ci"},
		{"refs/other", "refs/speccoder/remotes/origin/synced/other", "refs/speccoder/remotes/origin/rewritten/other"},
	} {
		if got := Synced(tc.ref, "origin"); got != tc.synced {
			t.Errorf("Synced(%q) = %q, want %q", tc.ref, got, tc.synced)
		}
		if got := RewrittenFrom(tc.ref, "origin"); got != tc.rewritten {
			t.Errorf("RewrittenFrom(%q) = %q, want %q", tc.ref, got, tc.rewritten)
		}
		for _, spec := range []string{"+refs/notes/speccoder*:refs/notes/remotes/origin/speccoder*", "+refs/speccoder/skipped/*:refs/speccoder/remotes/origin/skipped/*"} {
			for _, dst := range []string{Synced(tc.ref, "origin"), RewrittenFrom(tc.ref, "origin")} {
				if _, rest, ok := strings.Cut(spec, ":"); ok && strings.HasPrefix(dst, strings.TrimSuffix(rest, "*")) {
					t.Errorf("%s lies where refspec %s writes", dst, spec)
				}
			}
		}
	}
}
