package tick

import (
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// TasksFileError reports a tasks file of a commit that taskproof cannot read
// as a tasks file (not text, invalid UTF-8 on a task line, nesting deeper than
// it reads, a Git LFS pointer):
// its ticks cannot be judged, so a gate that meets one fails
// (docs/format.md#tasks-files). Commit is "" when the file was read to pair
// moves. It wraps the parser's error.
type TasksFileError struct {
	Commit gitref.Hash
	Path   string
	Err    error
}

func (e *TasksFileError) Error() string {
	where := e.Path
	if e.Commit != "" {
		where = fmt.Sprintf("%s at commit %s", e.Path, e.Commit)
	}
	return fmt.Sprintf("the tasks file %s cannot be read, so its ticks cannot be judged: %v", where, e.Err)
}

func (e *TasksFileError) Unwrap() error { return e.Err }

// tasksFileErr wraps a tasks file's parse error as a *TasksFileError; other
// errors (an object that cannot be read) are returned with context only.
func tasksFileErr(commit gitref.Hash, path string, err error) error {
	if errors.Is(err, specfmt.ErrInvalidUTF8) || errors.Is(err, specfmt.ErrNestingTooDeep) || errors.Is(err, specfmt.ErrHiddenCheckbox) || errors.Is(err, specfmt.ErrNotText) || errors.Is(err, specfmt.ErrLFSPointer) {
		return &TasksFileError{Commit: commit, Path: path, Err: err}
	}
	if commit != "" {
		return fmt.Errorf("commit %s: parsing %s: %w", commit, path, err)
	}
	return fmt.Errorf("parsing %s: %w", path, err)
}
