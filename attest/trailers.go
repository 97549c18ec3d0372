package attest

import (
	"errors"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
	"github.com/taskproof/taskproof/statement"
	"github.com/taskproof/taskproof/trailer"
)

// SpecTaskTrailer is the trailer key naming a tick commit's task,
// "<feature>/<task id>" (docs/format.md#commit-trailers).
const SpecTaskTrailer = "Spec-Task"

// maxStagedTasksFile bounds a staged tasks file read by StagedSpecTasks.
const maxStagedTasksFile = 16 << 20

// StagedSpecTasks returns the subject names ("<feature>/<task id>") of the
// tasks the index ticks against HEAD, for the prepare-commit-msg hook
// (docs/format.md#commit-trailers): a task of a unit's tasks file (the layouts
// of docs/format.md#units-and-task-lines) whose line is open ("[ ]", Kiro
// "[-]" too) at HEAD and checked in the index, matched by task ID. A tasks
// file new in the index makes no ticks, nor does a repository without a HEAD
// commit. The names are in tasks file and line order, each once.
func StagedSpecTasks(repo *gitref.Repo) ([]string, error) {
	head, err := repo.Resolve("HEAD")
	if err != nil {
		return nil, nil // an unborn branch: the first commit ticks nothing
	}
	staged, err := repo.Staged(func(p string) bool {
		_, ok := specfmt.UnitForTasksPath(p)
		return ok
	})
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range staged {
		unit, _ := specfmt.UnitForTasksPath(s.Path)
		old, err := repo.File(head, s.Path)
		if errors.Is(err, gitref.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		cur, err := repo.Blob(s.Blob, gitref.BlobRead{Limit: maxStagedTasksFile})
		if err != nil {
			return nil, err
		}
		before, err := specfmt.ParseTasks(unit, old, specfmt.AllowDuplicateIDs())
		if err != nil {
			continue // HEAD's file cannot be read as tasks: no ticks to name
		}
		after, err := specfmt.ParseTasks(unit, cur, specfmt.AllowDuplicateIDs())
		if err != nil {
			continue
		}
		open := map[string]bool{}
		for _, t := range before.Tasks {
			if t.Open() {
				open[t.ID] = true
			}
		}
		for _, t := range after.Tasks {
			if t.Ticked() && open[t.ID] {
				name := statement.SubjectName(unit.Feature, t.ID)
				if !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
		}
	}
	return out, nil
}

// AddTrailers returns the commit message msg (as git hands it to a
// prepare-commit-msg hook, its comment lines included) with a "key: value"
// trailer for each of values it does not hold yet. They join msg's trailer
// block when it has one (trailer.Parse), else a new paragraph, placed
// before the trailing comment lines and a scissors line ("# ---…>8…") so that
// git keeps them. A msg holding every value is returned unchanged.
func AddTrailers(msg, key string, values []string) string {
	lines := strings.Split(msg, "\n")
	end := len(lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "# ") && strings.Contains(l, ">8") {
			end = i
			break
		}
	}
	for end > 0 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(lines[end-1], "#")) {
		end--
	}
	body := strings.Join(lines[:end], "\n")
	have := map[string]bool{}
	for _, v := range trailer.Values(trailer.Parse(body), key) {
		have[v] = true
	}
	var add []string
	for _, v := range values {
		if !have[v] {
			have[v] = true
			add = append(add, key+": "+v)
		}
	}
	if len(add) == 0 {
		return msg
	}
	var b strings.Builder
	switch {
	case end == 0:
		b.WriteString("\n\n") // an empty title for the user to write
	case len(trailer.Parse(body)) > 0:
		b.WriteString(body + "\n")
	default:
		b.WriteString(body + "\n\n")
	}
	b.WriteString(strings.Join(add, "\n") + "\n")
	if rest := strings.Join(lines[end:], "\n"); strings.TrimSpace(rest) != "" {
		b.WriteString(strings.TrimPrefix(rest, "\n"))
		if !strings.HasSuffix(rest, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
