package refs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzPackedRefs feeds arbitrary packed-refs files to the ref reader: it never
// panics and returns either no ref or a valid object id.
func FuzzPackedRefs(f *testing.F) {
	f.Add([]byte("# pack-refs with: peeled fully-peeled sorted \n0123456789abcdef0123456789abcdef01234567 refs/notes/speccoder\n"))
	f.Add([]byte("^0123456789abcdef0123456789abcdef01234567\nxyz refs/notes/speccoder\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(filepath.Join(dir, "packed-refs"), content, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := Read(dir, "refs/notes/speccoder")
		if err == nil && h != "" {
			if !validID(h) {
				t.Fatalf("Read returned invalid id %q", h)
			}
		}
	})
}

// FuzzValidRefName: names accepted as refs never escape refs/ or hold "..".
func FuzzValidRefName(f *testing.F) {
	for _, s := range []string{"refs/notes/speccoder", "refs/../x", "refs/a.lock", "refs/speccoder/skipped/f/T1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidName(name) && (filepath.Clean(name) != name || len(name) < 6) {
			t.Fatalf("accepted %q", name)
		}
	})
}
