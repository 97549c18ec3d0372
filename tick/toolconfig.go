package tick

import (
	"errors"
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref"
	"github.com/taskproof/taskproof/predicate/specfmt"
)

// toolFiles caches the tool configuration files read from trees
// (specfmt.ToolTasksFile): per root tree and path, the content or why it
// cannot be read. It is per compared pair of commits, so bounded by the few
// configuration paths the readers look at.
type toolFiles map[[2]string]toolFile

type toolFile struct {
	content []byte
	found   bool
	err     error
}

// toolTasksFile is path, a Markdown file no layout claims, as an
// unrecognized tasks file when the project's tool configuration in tree root
// makes it one (specfmt.ToolTasksFile); ok is false otherwise.
func toolTasksFile(r *gitref.Repo, root gitref.Hash, path string, cache toolFiles) (tasksFile, bool) {
	if root.IsZero() {
		return tasksFile{}, false
	}
	why := specfmt.ToolTasksFile(path, func(p string) ([]byte, bool, error) {
		k := [2]string{string(root), p}
		f, ok := cache[k]
		if !ok {
			f.content, f.found, f.err = readTreeFile(r, root, p)
			cache[k] = f
		}
		return f.content, f.found, f.err
	})
	if why == "" {
		return tasksFile{}, false
	}
	dir := parentDir(path)
	return tasksFile{path: path, unit: specfmt.Unit{Format: specfmt.Speckit, Feature: dir[strings.LastIndexByte(dir, '/')+1:], Dir: dir}, unrecognized: true, configured: why}, true
}

// errNotRegular: something other than a directory or regular file is on a
// configuration file's path; what it stands for cannot be read.
var errNotRegular = errors.New("not a regular file")

// readTreeFile reads the regular file at path in tree root, at most
// specfmt.MaxToolConfig bytes; found is false when nothing is there. A
// symbolic link or submodule on the way is an error: the tool would follow
// it, taskproof cannot.
func readTreeFile(r *gitref.Repo, root gitref.Hash, path string) ([]byte, bool, error) {
	el := strings.Split(path, "/")
	t, err := r.TreeEntries(root)
	if err != nil {
		return nil, false, err
	}
	for i, name := range el {
		var e *gitref.TreeEntry
		for j := range t {
			if t[j].Name == name {
				e = &t[j]
				break
			}
		}
		switch {
		case e == nil:
			return nil, false, nil
		case i < len(el)-1 && e.Mode == gitref.Directory:
			if t, err = r.TreeEntries(e.ID()); err != nil {
				return nil, false, err
			}
		case i == len(el)-1 && e.Mode.IsRegular():
			b, err := r.Blob(e.ID(), gitref.BlobRead{Limit: specfmt.MaxToolConfig})
			if err != nil {
				return nil, false, fmt.Errorf("%s: %w", strings.Join(el[:i+1], "/"), err)
			}
			return b, true, nil
		default:
			return nil, false, fmt.Errorf("%s: %w", strings.Join(el[:i+1], "/"), errNotRegular)
		}
	}
	return nil, false, nil
}
