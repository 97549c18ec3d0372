package gitconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// unsetenv unsets key for the test and restores it afterwards.
func unsetenv(t *testing.T, key string) {
	t.Helper()
	old, had := os.LookupEnv(key)
	os.Unsetenv(key)
	t.Cleanup(func() {
		if had {
			os.Setenv(key, old)
		}
	})
}

// TestConfigReadAsGit builds configurations with includes, conditional
// includes, GIT_CONFIG_COUNT and "~" under a temporary HOME, and checks that
// the git program's reading and the in-process reader's agree with what git
// itself answers for `git config --get user.signingKey`.
func TestConfigReadAsGit(t *testing.T) {
	type setup struct {
		global string            // $HOME/.gitconfig
		local  string            // appended to the repository's .git/config
		files  map[string]string // more files under $HOME
		env    []string          // KEY=VALUE
		branch string            // "" = main
	}
	tests := []struct {
		name string
		s    setup
		want string // "" = unset
	}{
		{"global file", setup{global: "[user]\n\tsigningKey = ~/.ssh/a.pub\n"}, "~/.ssh/a.pub"},
		{"include with ~", setup{global: "[include]\n\tpath = ~/inc.gitconfig\n", files: map[string]string{"inc.gitconfig": "[user]\n\tsigningkey = from-include\n"}}, "from-include"},
		{"relative include", setup{global: "[include]\n\tpath = conf/inc\n", files: map[string]string{"conf/inc": "[user]\n\tsigningKey = relative\n"}}, "relative"},
		{"nested include", setup{global: "[include]\n\tpath = a\n", files: map[string]string{"a": "[include]\n\tpath = b\n", "b": "[user]\n\tsigningKey = nested\n"}}, "nested"},
		{"include after the value wins", setup{global: "[user]\n\tsigningKey = main\n[include]\n\tpath = inc\n", files: map[string]string{"inc": "[user]\n\tsigningKey = included\n"}}, "included"},
		{"value after the include wins", setup{global: "[include]\n\tpath = inc\n[user]\n\tsigningKey = main\n", files: map[string]string{"inc": "[user]\n\tsigningKey = included\n"}}, "main"},
		{"missing include is skipped", setup{global: "[user]\n\tsigningKey = kept\n[include]\n\tpath = ~/absent\n"}, "kept"},
		{"includeIf gitdir matching", setup{global: "[includeIf \"gitdir:~/code/\"]\n\tpath = ~/work.gitconfig\n", files: map[string]string{"work.gitconfig": "[user]\n\tsigningKey = work\n"}}, "work"},
		{"includeIf gitdir not matching", setup{global: "[includeIf \"gitdir:~/elsewhere/\"]\n\tpath = ~/work.gitconfig\n", files: map[string]string{"work.gitconfig": "[user]\n\tsigningKey = work\n"}}, ""},
		{"includeIf gitdir pattern anywhere", setup{global: "[includeIf \"gitdir:code/\"]\n\tpath = ~/work.gitconfig\n", files: map[string]string{"work.gitconfig": "[user]\n\tsigningKey = anywhere\n"}}, "anywhere"},
		{"includeIf gitdir/i", setup{global: "[includeIf \"gitdir/i:~/CODE/\"]\n\tpath = ~/work.gitconfig\n", files: map[string]string{"work.gitconfig": "[user]\n\tsigningKey = folded\n"}}, "folded"},
		{"includeIf onbranch", setup{global: "[includeIf \"onbranch:release/**\"]\n\tpath = ~/rel\n", files: map[string]string{"rel": "[user]\n\tsigningKey = release\n"}, branch: "release/1"}, "release"},
		{"includeIf onbranch other branch", setup{global: "[includeIf \"onbranch:release/**\"]\n\tpath = ~/rel\n", files: map[string]string{"rel": "[user]\n\tsigningKey = release\n"}}, ""},
		{"repository config over global", setup{global: "[user]\n\tsigningKey = global\n", local: "[user]\n\tsigningKey = local\n"}, "local"},
		{"GIT_CONFIG_COUNT over files", setup{local: "[user]\n\tsigningKey = local\n", env: []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=user.signingKey", "GIT_CONFIG_VALUE_0=env0", "GIT_CONFIG_KEY_1=user.signingkey", "GIT_CONFIG_VALUE_1=env1"}}, "env1"},
		{"quoted value", setup{global: "[user]\n\tsigningKey = \"key::ssh-ed25519 AAAA x\" ; comment\n"}, "key::ssh-ed25519 AAAA x"},
	}
	testenv.LookPath(t, "git")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			unsetenv(t, "GIT_CONFIG_GLOBAL")
			unsetenv(t, "XDG_CONFIG_HOME")
			unsetenv(t, "GIT_CONFIG_COUNT")
			unsetenv(t, "GIT_DIR")
			dir := filepath.Join(home, "code", "r")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			testenv.Git(t, dir, "init", "-q", "-b", "main")
			if tt.s.branch != "" {
				testenv.Git(t, dir, "checkout", "-q", "-b", tt.s.branch)
			}
			write := func(p, c string) {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.s.global != "" {
				write(filepath.Join(home, ".gitconfig"), tt.s.global)
			}
			for p, c := range tt.s.files {
				write(filepath.Join(home, p), c)
			}
			if tt.s.local != "" {
				f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tt.s.local)
				f.Close()
			}
			for _, kv := range tt.s.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			gitDir := filepath.Join(dir, ".git")
			viaGit, err := Read(gitDir, gitDir, dir)
			if err != nil {
				t.Fatal(err)
			}
			if viaGit.Source != "git config -l -z" {
				t.Fatalf("read by %s, want the git program", viaGit.Source)
			}
			inProcess, err := InProcess(gitDir, gitDir)
			if err != nil {
				t.Fatal(err)
			}
			for name, c := range map[string]*Config{"git": viaGit, "in-process": inProcess} {
				got, ok := c.Get("user.signingKey")
				if tt.want == "" && ok || tt.want != "" && got != tt.want {
					t.Errorf("%s reader: user.signingKey = %q (set %v), want %q", name, got, ok, tt.want)
				}
			}
			if tt.want != "" && strings.HasPrefix(tt.want, "~/") {
				p, _, err := viaGit.Path("user.signingKey")
				if err != nil || p != filepath.Join(home, tt.want[2:]) {
					t.Errorf("Path = %q, %v; want it under %s", p, err, home)
				}
			}
		})
	}
}

// The in-process reader refuses what it cannot evaluate (hasconfig:) and
// include loops, with errors matching ErrConfig naming the file.
func TestConfigInProcessRefusals(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	unsetenv(t, "GIT_CONFIG_GLOBAL")
	unsetenv(t, "XDG_CONFIG_HOME")
	unsetenv(t, "GIT_CONFIG_COUNT")
	dir := testenv.NewRepo(t)
	gitDir := filepath.Join(dir, ".git")
	for name, global := range map[string]string{
		"hasconfig": "[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = x\n",
		"loop":      "[include]\n\tpath = ~/.gitconfig\n",
		"syntax":    "[user\n",
	} {
		if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(global), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := InProcess(gitDir, gitDir)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), ".gitconfig") {
			t.Errorf("%s: err = %v, want ErrConfig naming .gitconfig", name, err)
		}
	}
	t.Setenv("GIT_CONFIG_COUNT", "x")
	os.Remove(filepath.Join(home, ".gitconfig"))
	if _, err := InProcess(gitDir, gitDir); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "GIT_CONFIG_COUNT") {
		t.Errorf("bogus count: err = %v", err)
	}
}

func TestParseConfigList(t *testing.T) {
	got, err := parseConfigList([]byte("user.signingkey\n~/a b\x00core.bare\nfalse\x00x.flag\x00remote.Origin.url\nu\nv\x00"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Key: "user.signingkey", Value: "~/a b"}, {Key: "core.bare", Value: "false"}, {Key: "x.flag", NoValue: true}, {Key: "remote.Origin.url", Value: "u\nv"}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	c := &Config{entries: got}
	if v, _ := c.Get("x.FLAG"); v != "true" {
		t.Errorf("a key without a value = %q, want true", v)
	}
	if _, err := parseConfigList([]byte("a.b\nc")); !errors.Is(err, ErrConfig) {
		t.Errorf("unterminated: %v", err)
	}
}

func FuzzParseConfigList(f *testing.F) {
	f.Add([]byte("user.signingkey\n~/a\x00x.y\x00"))
	f.Add([]byte("\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseConfigList(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Key == "" {
				t.Fatal("empty key accepted")
			}
		}
	})
}
