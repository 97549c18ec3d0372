package gitref

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
)

// notesRefCommit checks that id, the value of notes ref ref, is a commit (""
// is no value, and passes): a *NotesRefError naming ref and the object's
// type when it is another object (a blob, a tree, a tag), the repository's
// error when the object is missing. Every reader of a notes ref — the notes
// store itself, the sync's local, tracking and conflicts refs — says so the
// same way (docs/format.md#git-preconditions).
func (r *Repo) notesRefCommit(ref string, id Hash) error {
	if id == "" {
		return nil
	}
	_, err := r.commit(id)
	if err == nil || !errors.Is(err, ErrMissingObject) {
		return err
	}
	if o, oerr := r.object(plumbing.AnyObject, id.plumbing()); oerr == nil && o.Type() != plumbing.CommitObject {
		return &NotesRefError{Ref: ref, ID: id, Type: o.Type().String()}
	}
	return err
}

// notesRefsCommits checks each of refs (read now) with notesRefCommit.
func (r *Repo) notesRefsCommits(refs ...string) error {
	for _, ref := range refs {
		if ref == "" {
			continue
		}
		id, err := r.ReadRef(ref)
		if err != nil {
			return err
		}
		if err := r.notesRefCommit(ref, id); err != nil {
			return err
		}
	}
	return nil
}
