package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestInitHooksPrepareCommitMsg: `init --hooks --dry-run` lists the hook and
// writes nothing; `init --hooks` installs it; a real `git commit` (which runs
// the hook, taskproof on PATH) of a change ticking two tasks gets a Spec-Task
// trailer for each, after the message's own trailers, and a commit ticking
// nothing gets none. A hook that is not taskproof's is kept.
func TestInitHooksPrepareCommitMsg(t *testing.T) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	git := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(testenv.GitEnv(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git(nil, "init", "-q", "-b", "main")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("specs/001-greet/tasks.md", "# Tasks\n\n- [ ] T001 First\n- [ ] T002 Second\n- [ ] T003 Third\n")
	git(nil, "add", "-A")
	git(nil, "commit", "-q", "-m", "plan")

	out, _ := vfRunIn(t, bin, dir, 0, "init", "--hooks", "--dry-run")
	hook := filepath.Join(dir, ".git", "hooks", "prepare-commit-msg")
	if !strings.Contains(out, "would install hook prepare-commit-msg: "+hook) {
		t.Errorf("init --hooks --dry-run:\n%s", out)
	}
	if _, err := os.Stat(hook); err == nil {
		t.Fatal("--dry-run installed the hook")
	}
	out, _ = vfRunIn(t, bin, dir, 0, "init", "--hooks")
	if !strings.Contains(out, "installed hook prepare-commit-msg") {
		t.Errorf("init --hooks:\n%s", out)
	}
	if out, _ = vfRunIn(t, bin, dir, 0, "init", "--hooks"); !strings.Contains(out, "nothing to change") {
		t.Errorf("init --hooks again:\n%s", out)
	}

	path := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	write("specs/001-greet/tasks.md", "# Tasks\n\n- [x] T001 First\n- [X] T002 Second\n- [ ] T003 Third\n")
	write("notes.txt", "unstaged ticks do not count\n")
	git(nil, "add", "specs")
	git(path, "commit", "-q", "-m", "tick T001 and T002\n\nSigned-off-by: Test Author <author@example.invalid>")
	msg := git(nil, "log", "-1", "--format=%B")
	want := "tick T001 and T002\n\nSigned-off-by: Test Author <author@example.invalid>\nSpec-Task: 001-greet/T001\nSpec-Task: 001-greet/T002\n"
	if strings.TrimSpace(msg) != strings.TrimSpace(want) {
		t.Errorf("commit message:\n%q\nwant\n%q", msg, want)
	}
	git(nil, "add", "notes.txt")
	git(path, "commit", "-q", "-m", "no tick")
	if msg := git(nil, "log", "-1", "--format=%B"); strings.Contains(msg, "Spec-Task") {
		t.Errorf("a commit ticking nothing got trailers:\n%s", msg)
	}
	// git commit -a commits a temporary index (GIT_INDEX_FILE in the hook's
	// environment): its ticks get trailers too.
	write("specs/001-greet/tasks.md", "# Tasks\n\n- [x] T001 First\n- [X] T002 Second\n- [x] T003 Third\n")
	git(path, "commit", "-q", "-a", "-m", "tick T003")
	if msg := git(nil, "log", "-1", "--format=%B"); !strings.Contains(msg, "Spec-Task: 001-greet/T003") {
		t.Errorf("git commit -a: no trailer for T003:\n%s", msg)
	}

	// Someone else's hook is never replaced.
	other := "#!/bin/sh\necho mine\n"
	if err := os.WriteFile(hook, []byte(other), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errOut := vfRunIn(t, bin, dir, 0, "init", "--hooks")
	if b, _ := os.ReadFile(hook); string(b) != other || !strings.Contains(errOut, "not taskproof's hook") {
		t.Errorf("someone else's hook: %q, stderr %q", b, errOut)
	}
}

// TestHookPrepareCommitMsgEditor: the hook with the message git writes for
// the editor (no -m: comment lines after an empty message) puts the trailer
// above the comments, so git keeps it.
func TestHookPrepareCommitMsgEditor(t *testing.T) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	p := filepath.Join(dir, ".kiro", "specs", "login", "tasks.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("- [ ] 1. Login\n  - [ ] 1.1 Form\n"), 0o644)
	testenv.Git(t, dir, "add", "-A")
	testenv.Git(t, dir, "commit", "-q", "-m", "plan")
	os.WriteFile(p, []byte("- [ ] 1. Login\n  - [x] 1.1 Form\n"), 0o644)
	testenv.Git(t, dir, "add", "-A")
	msgFile := filepath.Join(t.TempDir(), "COMMIT_EDITMSG")
	os.WriteFile(msgFile, []byte("\n# Please enter the commit message for your changes.\n#\n"), 0o644)
	vfRunIn(t, bin, dir, 0, "hook", "prepare-commit-msg", msgFile)
	b, _ := os.ReadFile(msgFile)
	if want := "\n\nSpec-Task: login/1.1\n# Please enter the commit message for your changes.\n#\n"; string(b) != want {
		t.Errorf("message file %q, want %q", b, want)
	}
	// merge and squash messages are left alone.
	os.WriteFile(msgFile, []byte("Merge branch x\n"), 0o644)
	vfRunIn(t, bin, dir, 0, "hook", "prepare-commit-msg", msgFile, "merge")
	if b, _ := os.ReadFile(msgFile); string(b) != "Merge branch x\n" {
		t.Errorf("merge message changed: %q", b)
	}
}
