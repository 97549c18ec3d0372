package notesync

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
)

// notesRefCommit checks that id, the value of notes ref ref, is a commit (""
// is no value, and passes): a *NotesRefError naming ref and the object's
// type when it is another object (a blob, a tree, a tag), the repository's
// error when the object is missing. Every reader of a notes ref — the notes
// store itself, the sync's local, tracking and conflicts refs — says so the
// same way (docs/format.md#git-preconditions).
func (s *Store) notesRefCommit(ref string, id Hash) error {
	if id == "" {
		return nil
	}
	_, err := s.Repo.Commit(id)
	if err == nil || !errors.Is(err, gitobj.ErrMissingObject) {
		return err
	}
	if t, oerr := s.Repo.ObjectType(gitobj.ToPlumbing(id)); oerr == nil && t != plumbing.CommitObject {
		return &NotesRefError{Ref: ref, ID: id, Type: t.String()}
	}
	return err
}

// notesRefsCommits checks each of refs (read now) with notesRefCommit.
func (s *Store) notesRefsCommits(refs ...string) error {
	for _, ref := range refs {
		if ref == "" {
			continue
		}
		id, err := s.Repo.ReadRef(ref)
		if err != nil {
			return err
		}
		if err := s.notesRefCommit(ref, id); err != nil {
			return err
		}
	}
	return nil
}
