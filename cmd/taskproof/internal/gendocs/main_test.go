package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDocsCurrent regenerates docs/cli/ into a temporary directory and
// compares it with the committed one, file by file: a command, flag, help
// text or exit code changed without `make docs` fails here.
func TestDocsCurrent(t *testing.T) {
	committed := filepath.Join("..", "..", "..", "..", "docs", "cli")
	fresh := t.TempDir()
	if err := write(fresh); err != nil {
		t.Fatal(err)
	}
	names := func(dir string) []string {
		m, err := filepath.Glob(filepath.Join(dir, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i] = filepath.Base(m[i])
		}
		slices.Sort(m)
		return m
	}
	want, got := names(fresh), names(committed)
	if !slices.Equal(want, got) {
		t.Errorf("docs/cli holds %q, the commands give %q: run make docs", got, want)
	}
	for _, name := range want {
		w, err := os.ReadFile(filepath.Join(fresh, name))
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			continue // reported above
		}
		if !bytes.Equal(w, g) {
			t.Errorf("docs/cli/%s is stale: run make docs", name)
		}
	}
}

// TestWriteRemovesStalePages: a page of a command that is gone does not stay
// behind.
func TestWriteRemovesStalePages(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "taskproof_gone.md")
	if err := os.WriteFile(stale, []byte("# gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", stale, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "taskproof_verify.md")); err != nil {
		t.Error(err)
	}
}
