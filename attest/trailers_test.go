package attest

import (
	"testing"

	"github.com/taskproof/taskproof/trailer"
)

func TestAddTrailers(t *testing.T) {
	v := []string{"a/T1", "a/T2"}
	for _, tc := range []struct{ in, want string }{
		{"tick\n", "tick\n\nSpec-Task: a/T1\nSpec-Task: a/T2\n"},
		{"tick\n\nbody\n", "tick\n\nbody\n\nSpec-Task: a/T1\nSpec-Task: a/T2\n"},
		{"tick\n\nVerdict: verified\n", "tick\n\nVerdict: verified\nSpec-Task: a/T1\nSpec-Task: a/T2\n"},
		{"tick\n\nSpec-Task: a/T1\n", "tick\n\nSpec-Task: a/T1\nSpec-Task: a/T2\n"},
		{"tick\n\nSpec-Task: a/T1\nSpec-Task: a/T2\n", "tick\n\nSpec-Task: a/T1\nSpec-Task: a/T2\n"},
		{"\n# comment\n", "\n\nSpec-Task: a/T1\nSpec-Task: a/T2\n# comment\n"},
		{"tick\n# comment\n# ------------------------ >8 ------------------------\ndiff\n", "tick\n\nSpec-Task: a/T1\nSpec-Task: a/T2\n# comment\n# ------------------------ >8 ------------------------\ndiff\n"},
	} {
		got := AddTrailers(tc.in, SpecTaskTrailer, v)
		if got != tc.want {
			t.Errorf("AddTrailers(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if vs := trailer.Values(trailer.Parse(got), SpecTaskTrailer); len(vs) != 2 {
			t.Errorf("%q: git's rules read %q", got, vs)
		}
	}
}
