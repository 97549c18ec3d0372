package gitref

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/gitref/gitconfig"
)

func gitConfigList(t *testing.T, dir string) []string {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "config", "--local", "--list")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git config --list: %v", err)
	}
	l := strings.Split(strings.TrimSpace(string(out)), "\n")
	sort.Strings(l)
	return l
}

func TestEnsureConfigKeepsFileAndIsIdempotent(t *testing.T) {
	dir, cfg := repoWithConfig(t, "# keep this comment\n[remote \"origin\"]\n\turl = /x.git ; trailing comment\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\n[alias]\n\tlg = \"log --graph # not a comment\"\n[notes \"rewrite\"]\n\tamend = false\n")
	written, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := gitConfigList(t, dir)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wants := []gitconfig.Want{
		{Key: "remote.origin.fetch", Value: "refs/notes/speccoder*:refs/notes/speccoder*", Multi: true},
		{Key: "notes.rewriteRef", Value: "refs/notes/speccoder", Multi: true},
		{Key: "notes.rewrite.rebase", Value: "true"},
		{Key: "notes.rewrite.amend", Value: "true"},
	}
	dry, err := ensure(t, r, wants, true)
	if err != nil || len(dry) != 4 {
		t.Fatalf("dry run: %v %+v", err, dry)
	}
	if b, _ := os.ReadFile(cfg); string(b) != string(written) {
		t.Fatal("dry run wrote the file")
	}
	ch, err := ensure(t, r, wants, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []gitconfig.Change{
		{Key: "remote.origin.fetch", Value: "refs/notes/speccoder*:refs/notes/speccoder*", Added: true},
		{Key: "notes.rewriteRef", Value: "refs/notes/speccoder", Added: true},
		{Key: "notes.rewrite.rebase", Value: "true"},
		{Key: "notes.rewrite.amend", Value: "true", Old: "false"},
	}
	if len(ch) != len(want) {
		t.Fatalf("changes %+v, want %+v", ch, want)
	}
	for i := range want {
		if ch[i] != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, ch[i], want[i])
		}
	}
	after := gitConfigList(t, dir)
	got := strings.Join(after, "\n")
	for _, l := range before {
		if !strings.Contains(got, l) {
			t.Errorf("lost %q", l)
		}
	}
	for _, l := range []string{"remote.origin.fetch=refs/notes/speccoder*:refs/notes/speccoder*",
		"notes.rewriteref=refs/notes/speccoder", "notes.rewrite.rebase=true", "notes.rewrite.amend=true"} {
		if !strings.Contains(got, l) {
			t.Errorf("missing %q in\n%s", l, got)
		}
	}
	b, _ := os.ReadFile(cfg)
	if !strings.Contains(string(b), "# keep this comment") || !strings.Contains(string(b), "; trailing comment") {
		t.Errorf("comments lost:\n%s", b)
	}
	if out, err := exec.Command("git", "-C", dir, "config", "--get", "notes.rewrite.amend").Output(); err != nil || strings.TrimSpace(string(out)) != "true" {
		t.Errorf("git reads notes.rewrite.amend = %q (%v)", out, err)
	}
	again, err := ensure(t, r, wants, false)
	if err != nil || len(again) != 0 {
		t.Errorf("second run: %+v, %v", again, err)
	}
	if out, err := exec.Command("git", "-C", dir, "fsck", "--no-progress").CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}

// TestEnsureConfigReplaces: a superseded value is removed (its line only,
// comments and other values kept), the new one added, and git reads the result.
func TestEnsureConfigReplaces(t *testing.T) {
	dir, cfg := repoWithConfig(t, "[remote \"origin\"]\n\turl = /x.git\n\t# mine\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\tfetch = refs/notes/x*:refs/notes/x*\n")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := []gitconfig.Want{{Key: "remote.origin.fetch", Value: "+refs/notes/x*:refs/notes/remotes/origin/x*", Multi: true,
		Replaces: []string{"refs/notes/x*:refs/notes/x*"}}}
	ch, err := ensure(t, r, want, false)
	if err != nil || len(ch) != 1 || ch[0].Replaced != "refs/notes/x*:refs/notes/x*" || !ch[0].Added {
		t.Fatalf("changes %+v, %v", ch, err)
	}
	got, err := config(t, r).LocalValues("remote.origin.fetch")
	if err != nil || strings.Join(got, " ") != "+refs/heads/*:refs/remotes/origin/* +refs/notes/x*:refs/notes/remotes/origin/x*" {
		t.Fatalf("fetch values %q, %v", got, err)
	}
	if b, _ := os.ReadFile(cfg); !strings.Contains(string(b), "# mine") {
		t.Errorf("comment lost:\n%s", b)
	}
	if ch, err := ensure(t, r, want, false); err != nil || len(ch) != 0 {
		t.Errorf("second run: %+v, %v", ch, err)
	}
	gitConfigList(t, dir) // git parses it
}

// repoWithConfig is a new repository made by git whose .git/config ends with
// extra; it returns the repository and its config file's path.
func repoWithConfig(t *testing.T, extra string) (dir, cfg string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cfg = filepath.Join(dir, ".git", "config")
	orig, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(orig, extra...), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, cfg
}

// config is r's configuration snapshot.
func config(t *testing.T, r *Repo) *gitconfig.Config {
	t.Helper()
	c, err := r.Config()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ensure runs the snapshot's Ensure.
func ensure(t *testing.T, r *Repo, wants []gitconfig.Want, dryRun bool) ([]gitconfig.Change, error) {
	t.Helper()
	return config(t, r).Ensure(wants, dryRun)
}
