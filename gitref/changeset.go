package gitref

import (
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/taskproof/taskproof/gitref/internal/patchid"
)

// ChangedPaths lists, sorted, the '/'-separated paths whose entry differs
// between the trees of commits a and b ("" a: the empty tree): added and
// modified files, and with deleted the deleted ones too. Renames are not
// followed: a renamed file is its new path (and with deleted, its old one).
// It reads the trees only, and is the cheap first look of a comparison of two
// changes ([Repo.FileChanges]).
func (r *Repo) ChangedPaths(a, b Hash, deleted bool) ([]string, error) {
	tb, err := r.rootTree(b)
	if err != nil {
		return nil, err
	}
	ta := &object.Tree{}
	if a != "" {
		if ta, err = r.rootTree(a); err != nil {
			return nil, err
		}
	}
	changes, err := object.DiffTree(ta, tb)
	if err != nil {
		return nil, fmt.Errorf("diff %s..%s: %w", a, b, err)
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range changes {
		names := []string{c.To.Name}
		if deleted {
			names = append(names, c.From.Name)
		}
		for _, name := range names {
			if name != "" && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *Repo) rootTree(c Hash) (*object.Tree, error) {
	id, err := r.commitTree(c)
	if err != nil {
		return nil, err
	}
	return r.tree(id)
}

// FileChanges identifies, file by file, the change from commit a's tree to
// commit b's: path → the SHA-256 of the lines `git diff-tree -p -U0` shows
// for the file, without the lines that say where (hunk headers, line numbers)
// or name blobs (index lines; kept for a binary file, whose content the
// patch does not show). What a file's change is: the lines it loses and
// gains, in order, whitespace included, its mode and whether it is added or
// deleted — not the lines around them, so the same change applied to a base
// that changed other lines nearby is the same. It runs the git program (an
// error matching ErrGitProgram when it cannot).
func (r *Repo) FileChanges(a, b Hash) (map[string]string, error) {
	return patchid.Files(r.gitDir, a, b)
}
