package tick

import (
	"bytes"
	"fmt"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// OfCommit returns the task box changes of one commit against its first
// parent (docs/format.md#units-and-task-lines), without walking history: what
// `attest tick` needs for one commit, at a cost independent of history length.
// layouts are the unit layouts and ignored paths (nil: the built-in layouts
// alone). A root commit has none. Errors: gitref's (a missing commit wraps
// gitref.ErrNotFound), [*TasksFileError].
func OfCommit(r *gitref.Repo, commit gitref.Hash, layouts *specfmt.Layouts) ([]Tick, error) {
	c, err := r.Commit(commit)
	if err != nil {
		return nil, err
	}
	tc := &tickCtx{r: r, parsed: map[parseKey]*parsedFile{}, layouts: layouts}
	ticks, _, err := tc.commitTicks(c.Link)
	return ticks, err
}

// Compare returns the task box changes and moves of commit c against p, one
// of its parents, as a walk finds them against the first parent: what
// comparing a merge with its other parents needs (docs/format.md#the-gates-model).
// Tick.Parent is p.
func Compare(r *gitref.Repo, c, p gitref.Link, layouts *specfmt.Layouts) ([]Tick, []Move, error) {
	tc := &tickCtx{r: r, parsed: map[parseKey]*parsedFile{}, layouts: layouts}
	return tc.compare(c, p)
}

// TaskAt returns the task of the tasks file at path in commit whose key is
// id and nth (Tick.Nth) as a tick of that commit (Kind KindTick; Before,
// OldLine and TextChanged unset, OldPath the path): what the merge gate
// judges where a commit checks a line that its first parent also has
// checked (a merge checking again what another parent took back,
// docs/format.md#the-gates-model). ok is false when the commit has no such
// task there.
func TaskAt(r *gitref.Repo, commit gitref.Hash, path, id string, nth int, layouts *specfmt.Layouts) (t Tick, ok bool, err error) {
	c, err := r.Commit(commit)
	if err != nil {
		return Tick{}, false, err
	}
	tf, ok := classifyTasksFile(layouts, path)
	if !ok {
		return Tick{}, false, nil
	}
	if tf.unrecognized {
		tf = projectTasksFile(r, layouts, c.Tree, path, tf, projectCache{})
	}
	b, err := r.File(commit, path)
	if err != nil {
		return Tick{}, false, err
	}
	pf, err := parseTasks(tf.unit, b)
	if err != nil {
		return Tick{}, false, tasksFileErr(commit, path, err)
	}
	i, found := pf.byKey[taskKey(id, nth)]
	if !found {
		return Tick{}, false, nil
	}
	t = Tick{Kind: KindTick, Commit: commit, Merge: len(c.Parents) > 1, Path: path, OldPath: path,
		Unit: tf.unit, Root: tf.root, Unrecognized: tf.unrecognized}
	if len(c.Parents) > 0 {
		t.Parent = c.Parents[0]
	}
	nt := pf.task(i)
	return taskTick(t, nt, nth, pf.dups[nt.ID]), true, nil
}

// TasksFileAt is a tasks file of one commit's tree ([TasksFiles]).
type TasksFileAt struct {
	Path string
	// Unit is the file's unit; for an Unrecognized file, what it is parsed
	// as (a spec-kit unit of its directory).
	Unit specfmt.Unit
	// Root is the nested project root of Unit ("" the repository's root);
	// Unit.Dir is repository-relative either way (as [Tick.Unit]).
	Root         string
	Unrecognized bool
	// Irregular is "symlink" or "submodule" for an entry that is not a
	// regular file at a tasks-file position (Content is then nil).
	Irregular string
	// Blob is the id of a regular file's content (the tree entry's).
	Blob    gitref.Hash
	Content []byte
}

// TasksFiles lists the tasks files of commit's tree: every file named
// tasks.md (any case) that layouts does not ignore, with its content, and the
// symbolic links and submodules at tasks-file positions (a tasks.md name, or
// a directory on a unit layout's tasks-file path), in tree order. It reads the
// whole tree: the gate's state check compares head's tasks with base's
// (docs/format.md#the-state-check).
func TasksFiles(r *gitref.Repo, commit gitref.Hash, layouts *specfmt.Layouts) ([]TasksFileAt, error) {
	return tasksFiles(r, commit, layouts, true)
}

// ListTasksFiles is [TasksFiles] without the files' content (Content nil,
// Blob set): for a caller that reads only some of them ([ReadTasksFile]).
func ListTasksFiles(r *gitref.Repo, commit gitref.Hash, layouts *specfmt.Layouts) ([]TasksFileAt, error) {
	return tasksFiles(r, commit, layouts, false)
}

// ReadTasksFile sets the Content of f, a regular file of commit's
// [ListTasksFiles], to a copy of its blob, as TasksFiles does but through
// [gitref.Repo.Blob] read Once (for files read once per run: not kept in the object
// cache); a file that is not regular is left as it is. The error is
// TasksFiles's for the same read.
func ReadTasksFile(r *gitref.Repo, commit gitref.Hash, f *TasksFileAt) error {
	if f.Irregular != "" {
		return nil
	}
	b, err := r.Blob(f.Blob, gitref.BlobRead{Once: true})
	if err != nil {
		return fmt.Errorf("listing the tasks files of %s: %w", commit, err)
	}
	f.Content = b
	return nil
}

// tasksFiles is TasksFiles, reading each file's content as it is listed when
// read is set.
func tasksFiles(r *gitref.Repo, commit gitref.Hash, layouts *specfmt.Layouts, read bool) ([]TasksFileAt, error) {
	c, err := r.Commit(commit)
	if err != nil {
		return nil, err
	}
	var out []TasksFileAt
	projects := projectCache{}
	var walk func(tree gitref.Hash, dir string) error
	walk = func(tree gitref.Hash, dir string) error {
		t, err := r.TreeEntries(tree)
		if err != nil {
			return err
		}
		for _, e := range t {
			path := e.Name
			if dir != "" {
				path = dir + "/" + e.Name
			}
			if e.Mode == gitref.Directory {
				if err := walk(e.ID(), path); err != nil {
					return err
				}
				continue
			}
			if k := irregularKind(e.Mode); k != "" {
				if specfmt.IsTasksFileName(e.Name) || layouts.MayHoldUnits(path) {
					out = append(out, TasksFileAt{Path: path, Irregular: k})
				}
				continue
			}
			tf, ok := classifyTasksFile(layouts, path)
			if !ok || !e.Mode.IsRegular() {
				continue
			}
			if tf.unrecognized {
				tf = projectTasksFile(r, layouts, c.Tree, path, tf, projects)
			}
			if tf.ignored {
				continue
			}
			f := TasksFileAt{Path: path, Unit: tf.unit, Root: tf.root, Unrecognized: tf.unrecognized, Blob: e.ID()}
			if read {
				b, err := r.Blob(f.Blob, gitref.BlobRead{Shared: true})
				if err != nil {
					return err
				}
				f.Content = bytes.Clone(b)
			}
			out = append(out, f)
		}
		return nil
	}
	if err := walk(c.Tree, ""); err != nil {
		return nil, fmt.Errorf("listing the tasks files of %s: %w", commit, err)
	}
	return out, nil
}
