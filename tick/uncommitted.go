package tick

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// tickedBox matches a list item whose box is ticked: its marker and the text
// after the box.
var tickedBox = regexp.MustCompile(`^(\s*[-*+]\s+)\[[xX]\](.*)$`)

// Uncommitted lists the boxes ticked in the work tree's tasks files
// (files named tasks.md, any case, and the built-in layouts' story files) whose open form `[ ]` the file has at
// commit: ticks not committed yet, as "path:line: text". It reads a
// repository with a work tree only ("" lists nothing for a bare one), and is
// meant for a hint when a commit ticks nothing: it is a line comparison, not
// the gate's task recognition.
func Uncommitted(r *gitref.Repo, commit gitref.Hash) ([]string, error) {
	if r.WorkTree() == "" {
		return nil, nil
	}
	fsys, err := r.FS(commit)
	if err != nil {
		return nil, err
	}
	var out []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if _, kind := (*specfmt.Layouts)(nil).Classify(p); d.IsDir() || (!strings.EqualFold(path.Base(p), "tasks.md") && kind != specfmt.UnitTasksFile) {
			return nil
		}
		committed, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		work, err := os.ReadFile(filepath.Join(r.WorkTree(), filepath.FromSlash(p)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		open := map[string]bool{}
		for _, l := range bytes.Split(committed, []byte("\n")) {
			open[strings.TrimRight(string(l), "\r")] = true
		}
		for i, l := range bytes.Split(work, []byte("\n")) {
			line := strings.TrimRight(string(l), "\r")
			if m := tickedBox.FindStringSubmatch(line); m != nil && open[m[1]+"[ ]"+m[2]] && !open[line] {
				out = append(out, fmt.Sprintf("%s:%d: %s", p, i+1, strings.TrimSpace(line)))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("comparing the work tree's tasks files with %s: %w", commit, err)
	}
	return out, nil
}
