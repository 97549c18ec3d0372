package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// runTaskproof runs the real binary with args and returns stdout, stderr and the
// exit code.
func runTaskproof(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = testenv.GitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("running %s %v: %v", bin, args, err)
	return "", "", 0
}

// writeCommit writes files and commits them with the real git.
func writeCommit(t *testing.T, dir, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		testenv.Git(t, dir, "add", p)
	}
	testenv.Git(t, dir, "commit", "-q", "-m", msg)
	return strings.TrimSpace(testenv.Git(t, dir, "rev-parse", "HEAD"))
}

type ticksOutput struct {
	SchemaVersion int `json:"schema_version"`
	Ticks         []struct {
		Kind        string `json:"kind"`
		Commit      string `json:"commit"`
		Parent      string `json:"parent"`
		Merge       bool   `json:"merge"`
		Path        string `json:"path"`
		OldPath     string `json:"old_path"`
		Line        int    `json:"line"`
		OldLine     int    `json:"old_line"`
		TaskID      string `json:"task_id"`
		Unit        struct{ Format, Feature, Dir string }
		LineBefore  string `json:"line_before"`
		LineAfter   string `json:"line_after"`
		LineHash    string `json:"line_hash"`
		TextChanged bool   `json:"text_changed"`
		Born        bool   `json:"born"`
		Derived     bool   `json:"derived"`
		Ambiguous   string `json:"ambiguous"`
		Reading     string `json:"reading"` // github, tool or github+tool
	} `json:"ticks"`
}

func TestTicksCommand(t *testing.T) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	base := writeCommit(t, dir, "start", map[string]string{
		"specs/001-a/tasks.md":          "- [ ] T001 [US1] Alpha\n- [ ] Add the parser\n",
		"openspec/changes/dup/tasks.md": "## 5. Tests\n- [ ] 5.3 One\n### More\n- [ ] 5.3 Two\n",
	})
	// T099 is added already ticked (a Born tick); 002-b's tasks file is new (its
	// ticked task is born_ticked, not a tick).
	head := writeCommit(t, dir, "tick", map[string]string{
		"specs/001-a/tasks.md":          "- [x] T001 [US1] Alpha\n- [X] Add the parser\n- [x] T099 Implement auth\n",
		"openspec/changes/dup/tasks.md": "## 5. Tests\n- [ ] 5.3 One\n### More\n- [x] 5.3 Two\n",
		"specs/002-b/tasks.md":          "- [x] T001 Imported\n- [ ] T002 Open\n",
	})

	t.Run("json", func(t *testing.T) {
		stdout, stderr, code := runTaskproof(t, bin, "ticks", "-C", dir, "--format", "json", base+".."+head)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var out ticksOutput
		dec := json.NewDecoder(strings.NewReader(stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out); err != nil {
			t.Fatalf("decoding %s: %v", stdout, err)
		}
		if out.SchemaVersion != 1 || len(out.Ticks) != 5 {
			t.Fatalf("schema_version %d, %d ticks:\n%s", out.SchemaVersion, len(out.Ticks), stdout)
		}
		// Records are ordered by path, then line.
		dup, t001, derived, born, imported := out.Ticks[0], out.Ticks[1], out.Ticks[2], out.Ticks[3], out.Ticks[4]
		if dup.TaskID != "5.3" || dup.Line != 4 || dup.Ambiguous != `specfmt: duplicate task id "5.3" on lines 2 and 4` || dup.Derived {
			t.Errorf("duplicate-ID tick = %+v", dup)
		}
		if t001.Kind != "tick" || t001.Commit != head || t001.Parent != base || t001.Merge ||
			t001.Path != "specs/001-a/tasks.md" || t001.OldPath != t001.Path || t001.Line != 1 || t001.OldLine != 1 ||
			t001.TaskID != "T001" || t001.Unit.Format != "speckit" || t001.Unit.Feature != "001-a" || t001.Unit.Dir != "specs/001-a" ||
			t001.LineBefore != "- [ ] T001 [US1] Alpha" || t001.LineAfter != "- [x] T001 [US1] Alpha" ||
			t001.TextChanged || t001.Born || t001.Derived || t001.Ambiguous != "" {
			t.Errorf("T001 tick = %+v", t001)
		}
		// printf -- '- [ ] T099 Implement auth' | sha256sum
		if born.Kind != "tick" || !born.Born || born.TaskID != "T099" || born.Line != 3 || born.OldLine != 0 || born.LineBefore != "" ||
			born.OldPath != "specs/001-a/tasks.md" || born.LineHash != "a7a6e695fe796ba780bca3690c4b227b82d6bd7911abf91a8f47c49c5710b033" {
			t.Errorf("born tick = %+v", born)
		}
		if imported.Kind != "born_ticked" || !imported.Born || imported.TaskID != "T001" || imported.Path != "specs/002-b/tasks.md" ||
			imported.OldPath != "" || imported.Unit.Feature != "002-b" {
			t.Errorf("born_ticked record = %+v", imported)
		}
		// printf -- '- [ ] T001 [US1] Alpha' | sha256sum
		if t001.LineHash != "494320d6edba0ee1db1cf742d296680f57dcff55383783c24e63c54d739548a8" {
			t.Errorf("T001 line_hash %q", t001.LineHash)
		}
		// python3 -c "import hashlib; print(hashlib.sha256(b'Add the parser').hexdigest()[:12])"
		if derived.TaskID != "h-44f8786eea03" || !derived.Derived || derived.Line != 2 || derived.Ambiguous != "" {
			t.Errorf("ID-less tick = %+v", derived)
		}
		if !strings.Contains(stdout, `"derived": false`) || strings.Count(stdout, `"ambiguous"`) != 1 {
			t.Errorf("derived is always present, ambiguous only when set:\n%s", stdout)
		}
	})

	t.Run("text", func(t *testing.T) {
		stdout, stderr, code := runTaskproof(t, bin, "ticks", "-C", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 5 || !strings.Contains(lines[0], "5.3") || !strings.Contains(lines[0], "ambiguous: specfmt: duplicate task id") ||
			!strings.Contains(lines[2], "h-44f8786eea03") || strings.Contains(lines[2], "ambiguous") ||
			!strings.HasPrefix(lines[3], "tick ") || !strings.Contains(lines[3], "T099") || !strings.Contains(lines[3], "born (no line at the parent)") ||
			!strings.HasPrefix(lines[4], "born_ticked ") || !strings.Contains(lines[4], "specs/002-b/tasks.md:1") || strings.Contains(lines[4], "born (") {
			t.Errorf("text output:\n%s", stdout)
		}
	})

	exits := []struct {
		name string
		args []string
		code int
	}{
		{"not a repository", []string{"ticks", "-C", t.TempDir()}, 4},
		{"unknown revision", []string{"ticks", "-C", dir, "no-such-rev"}, 4},
		{"unknown revision in a range", []string{"ticks", "-C", dir, base + "..no-such-rev"}, 4},
		{"unknown format", []string{"ticks", "-C", dir, "--format", "yaml"}, 2},
		{"too many arguments", []string{"ticks", "-C", dir, "HEAD", "HEAD~1"}, 2},
		{"no ticks is success", []string{"ticks", "-C", dir, base}, 0},
	}
	for _, tt := range exits {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runTaskproof(t, bin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			if tt.code != 0 && (stdout != "" || stderr == "") {
				t.Errorf("a failure prints its error on stderr only: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

// TestTicksCommandCorpora is the acceptance check, through the binary:
// `taskproof ticks --first-parent` over the whole history of the shared corpora
// (the numbers are explained in gitref's TestTicksCorpora). agent-validator was
// 324 ticks in 15 commits before ticked tasks added to existing tasks files
// counted as ticks: 18 such Born ticks, in 1010b573 (4), 2e401a21 (12) and
// 1e5bc668 (2, ID-less lines reworded while ticked; that commit ticked nothing
// before, hence 16 commits).
func TestTicksCommandCorpora(t *testing.T) {
	bin := testenv.Binary(t)
	tests := []struct {
		bundle                  string
		ticks, commits, unticks int
		born, bornTicked        int
	}{
		{"speckit-youbencha", 96, 3, 0, 0, 136},
		{"openspec-agent-validator", 342, 16, 6, 18, 376},
	}
	for _, tt := range tests {
		t.Run(tt.bundle, func(t *testing.T) {
			dir := testenv.CloneBundle(t, tt.bundle)
			stdout, stderr, code := runTaskproof(t, bin, "ticks", "-C", dir, "--first-parent", "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var out ticksOutput
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			commits := map[string]bool{}
			born := 0
			for _, tk := range out.Ticks {
				kinds[tk.Kind]++
				if tk.Born && tk.Kind == "tick" {
					born++
				}
				if tk.Kind == "tick" {
					commits[tk.Commit] = true
				}
			}
			if kinds["tick"] != tt.ticks || len(commits) != tt.commits || kinds["untick"] != tt.unticks ||
				born != tt.born || kinds["born_ticked"] != tt.bornTicked {
				t.Errorf("%d ticks (%d born) in %d commits, %d unticks, %d born_ticked; want %d (%d) in %d, %d, %d",
					kinds["tick"], born, len(commits), kinds["untick"], kinds["born_ticked"], tt.ticks, tt.born, tt.commits, tt.unticks, tt.bornTicked)
			}
		})
	}
}
