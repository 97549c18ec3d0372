package gitref

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
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
		h, err := readRef(dir, "refs/notes/speccoder")
		if err == nil && h != "" {
			if _, perr := ParseHash(string(h)); perr != nil {
				t.Fatalf("readRef returned invalid id %q", h)
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
		if validRefName(name) && (filepath.Clean(name) != name || len(name) < 6) {
			t.Fatalf("accepted %q", name)
		}
	})
}

// FuzzConfigEdit feeds arbitrary config text to the header parser and the value
// writer used by EnsureConfig: parseHeader never panics; when go-git's config
// decoder reads the text, adding a value keeps it readable and the value is then
// the last one of its key, every value of other keys unchanged.
func FuzzConfigEdit(f *testing.F) {
	f.Add([]byte("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /tmp/x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"), "refs/notes/speccoder*:refs/notes/speccoder*")
	f.Add([]byte("# comment\n[remote \"origin\"] url = a\n[notes \"rewrite\"]\n\trebase = true\n"), "true")
	f.Add([]byte("[Remote.origin]\n\tfetch = x\n[remote \"a\\\"b\"]\n"), "v")
	f.Fuzz(func(t *testing.T, text []byte, value string) {
		for _, line := range strings.Split(string(text), "\n") {
			parseHeader(line)
		}
		if strings.ContainsAny(value, "\n\r\x00") || !utf8.ValidString(value) {
			return
		}
		before, err := configValues(text, "notes", "", "rewriteRef")
		if err != nil {
			return // go-git cannot read it: EnsureConfig refuses such a file
		}
		otherBefore, _ := configValues(text, "remote", "origin", "url")
		out := addConfigValue(text, "remote", "origin", "fetch", value)
		got, err := configValues(out, "remote", "origin", "fetch")
		if err != nil {
			t.Fatalf("after adding a value the config does not decode: %v\n%q", err, out)
		}
		if len(got) == 0 || got[len(got)-1] != value {
			t.Fatalf("fetch values %q, want %q last\n%q", got, value, out)
		}
		after, _ := configValues(out, "notes", "", "rewriteRef")
		otherAfter, _ := configValues(out, "remote", "origin", "url")
		if strings.Join(before, "\x00") != strings.Join(after, "\x00") || strings.Join(otherBefore, "\x00") != strings.Join(otherAfter, "\x00") {
			t.Fatalf("other values changed: %q→%q, %q→%q\n%q", before, after, otherBefore, otherAfter, out)
		}
	})
}
