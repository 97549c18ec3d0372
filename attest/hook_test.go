package attest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/attest"
	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/internal/testenv"
)

// TestInstallHook: a dry run writes nothing; the hook is installed, then
// left unchanged; a hook someone else wrote is kept as it is, whatever the
// run.
func TestInstallHook(t *testing.T) {
	dir := testenv.NewRepo(t)
	repo, err := gitref.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	path := filepath.Join(dir, ".git", "hooks", "prepare-commit-msg")
	if h, err := attest.InstallHook(repo, true); err != nil || h.Action != "install" || h.Path != path {
		t.Fatalf("dry run: %+v, %v; want install at %s", h, err, path)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("the dry run wrote the hook")
	}
	if h, err := attest.InstallHook(repo, false); err != nil || h.Action != "install" {
		t.Fatalf("install: %+v, %v", h, err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "exec taskproof hook prepare-commit-msg") {
		t.Fatalf("installed hook: %q, %v", b, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("installed hook not executable: %v, %v", fi, err)
	}
	if h, err := attest.InstallHook(repo, false); err != nil || h.Action != "unchanged" {
		t.Errorf("again: %+v, %v; want unchanged", h, err)
	}
	theirs := "#!/bin/sh\necho theirs\n"
	if err := os.WriteFile(path, []byte(theirs), 0o755); err != nil {
		t.Fatal(err)
	}
	if h, err := attest.InstallHook(repo, false); err != nil || h.Action != "kept" {
		t.Errorf("someone else's hook: %+v, %v; want kept", h, err)
	}
	if b, _ := os.ReadFile(path); string(b) != theirs {
		t.Errorf("someone else's hook changed: %q", b)
	}
}
