package specfmt

import (
	"errors"
	"fmt"

	"github.com/taskproof/taskproof/predicate/gfm"
)

// Sentinel errors for the kinds of failure of this package; test with errors.Is.
var (
	// ErrUnknownFormat: a Unit's Format is none of Formats.
	ErrUnknownFormat = errors.New("specfmt: unknown spec format")
	// ErrInvalidUnit: a Unit's Dir is not a clean, '/'-separated, repository-relative path.
	ErrInvalidUnit = errors.New("specfmt: invalid unit")
	// ErrDuplicateTask: two task lines of one tasks file carry the same task ID.
	ErrDuplicateTask = errors.New("specfmt: duplicate task id")
	// ErrTaskNotFound: no task line of a tasks file carries the task ID looked up
	// (TasksFile.Lookup).
	ErrTaskNotFound = errors.New("specfmt: task not found")
	// ErrInvalidUTF8: a task line is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("specfmt: task line is not valid UTF-8")
	// ErrNotText: a tasks file is not UTF-8 text: it holds a NUL byte or a byte
	// sequence that is not UTF-8 (a UTF-16 file, a binary), or is larger than
	// MaxTasksFileSize. Such a file cannot be read as GitHub shows it, so its
	// ticks cannot be judged (docs/format.md#tasks-files).
	ErrNotText = errors.New("specfmt: tasks file is not UTF-8 text of at most 4 MiB")
	// ErrLFSPointer: a tasks file is a Git LFS pointer (its first line
	// "version https://git-lfs.github.com/spec/…"): the tasks file it stands
	// for, which clones with git-lfs check out and GitHub shows, is not in
	// the commit, so its ticks cannot be judged (docs/format.md#tasks-files).
	ErrLFSPointer = errors.New("specfmt: tasks file is a Git LFS pointer, not the tasks file")
	// ErrHiddenCheckbox: a line of a tasks file makes GitHub show a checked
	// task that taskproof reads no task for: a later line of an item that is
	// no task, which looks like a checked task and re-reads the item's box,
	// or a checked item GitHub starts where goldmark continues a paragraph
	// (docs/format.md#task-recognition-follows-goldmark).
	ErrHiddenCheckbox = gfm.ErrHiddenCheckbox
	// ErrUnreadableBox: a box the format's own tool reads cannot be read as
	// one task line beside GitHub's reading: its brackets span lines (a lone
	// "\r" inside it), or GitHub has another box on its line
	// (docs/format.md#the-formats-own-readings). Its tick cannot be judged.
	ErrUnreadableBox = errors.New("specfmt: a box the format's own tool reads is no one task line")
	// ErrNestingTooDeep: a line of a tasks file opens or continues more
	// containers (block quotes, list items) than taskproof reads: over
	// MaxContainerPrefix columns of indentation and markers before its text.
	ErrNestingTooDeep = gfm.ErrNestingTooDeep
	// ErrSectionNotFound: a task cites a spec section (a user story, a Kiro
	// requirement) that its unit's spec document does not hold, or the document is absent.
	ErrSectionNotFound = errors.New("specfmt: cited spec section not found")
)

// DuplicateTaskError reports a task ID that occurs on two task lines of one tasks
// file (1-based line numbers). It matches ErrDuplicateTask.
type DuplicateTaskError struct {
	ID         string
	FirstLine  int
	SecondLine int
}

func (e *DuplicateTaskError) Error() string {
	return fmt.Sprintf("specfmt: duplicate task id %q on lines %d and %d", e.ID, e.FirstLine, e.SecondLine)
}

// Is reports whether target is ErrDuplicateTask.
func (e *DuplicateTaskError) Is(target error) bool { return target == ErrDuplicateTask }

// NotFoundError reports a task ID that no task line of a tasks file carries
// (TasksFile.Lookup), or, with LineHash set, that no task line with that ID
// reads as open with that line_hash (TasksFile.LookupLine). It matches
// ErrTaskNotFound.
type NotFoundError struct {
	ID       string
	LineHash string
}

func (e *NotFoundError) Error() string {
	if e.LineHash != "" {
		return fmt.Sprintf("specfmt: no line of task %q in the tasks file has line_hash %s", e.ID, e.LineHash)
	}
	return fmt.Sprintf("specfmt: no task %q in the tasks file", e.ID)
}

// Is reports whether target is ErrTaskNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrTaskNotFound }

// LineError is a failure tied to one line of a tasks file (1-based). Err is the kind
// (ErrInvalidUTF8, ErrNestingTooDeep, ErrHiddenCheckbox, ErrUnreadableBox,
// ErrNotText, ErrLFSPointer).
type LineError = gfm.LineError

// SectionNotFoundError reports a cited spec section missing from a spec document:
// Path is the repository-relative document path, Section what was looked for
// ("user story 3", "Requirement 4"). Err, when set, is the underlying read error
// (for example fs.ErrNotExist). It matches ErrSectionNotFound.
type SectionNotFoundError struct {
	Path    string
	Section string
	Err     error
}

func (e *SectionNotFoundError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("specfmt: cited %s: cannot read %s: %v", e.Section, e.Path, e.Err)
	}
	return fmt.Sprintf("specfmt: cited %s not found in %s", e.Section, e.Path)
}

// Is reports whether target is ErrSectionNotFound.
func (e *SectionNotFoundError) Is(target error) bool { return target == ErrSectionNotFound }

// Unwrap returns the underlying read error, if any.
func (e *SectionNotFoundError) Unwrap() error { return e.Err }
