package specfmt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// TestLineHashVectors checks every testdata/vectors/line_hash/NAME.md against
// NAME.expect.json (written by gen.py there, hashes computed in Python): the parsed
// tasks are exactly the listed ones, on the listed lines, with the listed open line
// and line_hash (docs/format.md#hash-recipes).
func TestLineHashVectors(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "vectors", "line_hash")
	expects, err := filepath.Glob(filepath.Join(dir, "*.expect.json"))
	if err != nil || len(expects) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	for _, ep := range expects {
		name := strings.TrimSuffix(filepath.Base(ep), ".expect.json")
		t.Run(name, func(t *testing.T) {
			var want struct {
				Format Format `json:"format"`
				Tasks  []struct {
					ID       string `json:"id"`
					Line     int    `json:"line"`
					OpenLine string `json:"open_line"`
					LineHash string `json:"line_hash"`
				} `json:"tasks"`
			}
			readJSON(t, ep, &want)
			content, err := os.ReadFile(filepath.Join(dir, name+".md"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseTasks(Unit{Format: want.Format, Feature: "v", Dir: "v"}, content)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Tasks) != len(want.Tasks) {
				t.Fatalf("parsed %d tasks, want %d", len(f.Tasks), len(want.Tasks))
			}
			for i, w := range want.Tasks {
				got := f.Tasks[i]
				if got.ID != w.ID || got.LineNo != w.Line || got.OpenLine() != w.OpenLine {
					t.Errorf("task %d = %s line %d %q, want %s line %d %q", i, got.ID, got.LineNo, got.OpenLine(), w.ID, w.Line, w.OpenLine)
				}
				if h := sha256Hex(got.OpenLine()); h != w.LineHash {
					t.Errorf("task %s: line_hash %s, want %s", w.ID, h, w.LineHash)
				}
			}
		})
	}
}

// TestSectionHashVectors checks every testdata/vectors/section_hash/NAME/ tree
// against NAME/expect.json (written by gen.py there from hand-chosen line ranges,
// hashes computed in Python): each listed task's section name and section_hash,
// or spec null (docs/format.md#hash-recipes "spec").
func TestSectionHashVectors(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(t), "testdata", "vectors", "section_hash")
	expects, err := filepath.Glob(filepath.Join(dir, "*", "expect.json"))
	if err != nil || len(expects) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	for _, ep := range expects {
		root := filepath.Dir(ep)
		t.Run(filepath.Base(root), func(t *testing.T) {
			var want struct {
				TasksPath string `json:"tasks_path"`
				Format    Format `json:"format"`
				Tasks     []struct {
					ID          string  `json:"id"`
					Section     *string `json:"section"`
					SectionHash *string `json:"section_hash"`
				} `json:"tasks"`
			}
			readJSON(t, ep, &want)
			u, ok := UnitForTasksPath(want.TasksPath)
			if !ok {
				t.Fatalf("UnitForTasksPath(%q) = false", want.TasksPath)
			}
			if want.Format != "" {
				if !u.Format.Kin(want.Format) {
					t.Fatalf("%s is a %s unit, not %s", want.TasksPath, u.Format, want.Format)
				}
				u.Format = want.Format
			}
			fsys := os.DirFS(root)
			content, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(want.TasksPath)))
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseTasks(u, content)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range want.Tasks {
				tk, ok := f.Find(w.ID)
				if !ok {
					t.Errorf("task %s not found", w.ID)
					continue
				}
				s, err := Section(fsys, u, tk)
				if err != nil {
					t.Errorf("task %s: %v", w.ID, err)
					continue
				}
				switch {
				case w.Section == nil && s != nil:
					t.Errorf("task %s: section %q, want spec null", w.ID, s.Name)
				case w.Section != nil && s == nil:
					t.Errorf("task %s: spec null, want section %q", w.ID, *w.Section)
				case w.Section != nil && (s.Name != *w.Section || sha256Hex(string(s.Text)) != *w.SectionHash):
					t.Errorf("task %s: section %q hash %s, want %q %s\n%s", w.ID, s.Name, sha256Hex(string(s.Text)), *w.Section, *w.SectionHash, s.Text)
				}
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
