package notesref

import "testing"

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
