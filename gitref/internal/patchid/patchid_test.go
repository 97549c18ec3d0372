package patchid

import (
	"strings"
	"testing"
)

// FuzzFileSections feeds arbitrary patches to the reader of git's diff
// output: it never panics, and a section it accepts is named by a path that
// was in its header.
func FuzzFileSections(f *testing.F) {
	f.Add([]byte("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"))
	f.Add([]byte("diff --git \"a/t\\tx\" \"b/t\\tx\"\nBinary files a and b differ\n"))
	f.Add([]byte("diff --git a/a b b/a b\n"))
	f.Fuzz(func(t *testing.T, patch []byte) {
		got, err := fileSections(patch)
		if err != nil {
			return
		}
		for p := range got {
			if !strings.Contains(string(patch), p) && !strings.Contains(string(patch), `"a/`) {
				t.Fatalf("section name %q is not in the patch", p)
			}
		}
	})
}
