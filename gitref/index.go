package gitref

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// StagedFile is one entry of the index (stage 0: no conflict).
type StagedFile struct {
	Path string // repo-relative, '/'-separated
	Blob Hash
}

// Staged returns the entries of the index at stage 0 whose path keep
// accepts, in index order; none for a repository without an index. The index
// is the file GIT_INDEX_FILE names when set, as git reads it (git sets it
// for a hook of `git commit -a` or `git commit PATH`, whose commit is the
// temporary index, not <git dir>/index), else <git dir>/index.
func (r *Repo) Staged(keep func(path string) bool) ([]StagedFile, error) {
	name := filepath.Join(r.gitDir, "index")
	if v := os.Getenv("GIT_INDEX_FILE"); v != "" {
		name = v
	}
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the index: %w", err)
	}
	defer f.Close()
	var idx index.Index
	if err := index.NewDecoder(f).Decode(&idx); err != nil {
		return nil, fmt.Errorf("reading the index %s: %w", f.Name(), err)
	}
	var out []StagedFile
	for _, e := range idx.Entries {
		// go-git names stage 1 "Merged"; an entry without conflict has stage 0.
		if e.Stage != 0 || !keep(e.Name) {
			continue
		}
		out = append(out, StagedFile{Path: e.Name, Blob: fromPlumbing(e.Hash)})
	}
	return out, nil
}
