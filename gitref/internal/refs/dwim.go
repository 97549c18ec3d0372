package refs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// ErrUnknownRevision: a revision does not name a commit of the repository.
var ErrUnknownRevision = errors.New("unknown revision")

// Ambiguous returns the refs a short ref name at the start of rev can mean
// (git's order, gitrevisions(7): refs/<name>, refs/tags/<name>,
// refs/heads/<name>, refs/remotes/<name>, refs/remotes/<name>/HEAD) when two or
// more of them exist and name different objects; nil otherwise. git takes the
// first with a warning; a verifier must not: a tag or a refs/<name> ref pushed
// as "main" would otherwise stand in for the base branch and the trust read
// from it (docs/format.md#git-preconditions).
func Ambiguous(repo *git.Repository, rev string) []string {
	name := rev
	if i := strings.IndexAny(name, "~^@{"); i >= 0 {
		name = name[:i]
	}
	if name == "" || name == "HEAD" || strings.HasPrefix(name, "refs/") || IsHexPrefix(name) {
		return nil
	}
	var found []string
	ids := map[plumbing.Hash]bool{}
	for _, c := range Candidates(name)[1:] {
		ref, err := repo.Reference(plumbing.ReferenceName(c), true)
		if err != nil || ref == nil {
			continue
		}
		found = append(found, c)
		ids[ref.Hash()] = true
	}
	if len(ids) < 2 {
		return nil
	}
	return found
}

// RefFirst rewrites rev's name part (before any "~" or "^") to the full
// name of the ref it names, found in git's order (the name itself, refs/,
// refs/tags/, refs/heads/, refs/remotes/, refs/remotes/<name>/HEAD): git
// reads a name as a ref before it reads it as an abbreviated object id,
// where go-git does the reverse (a branch "a" would be read as the commit
// whose id starts with "a"). A name that is also four or more hex digits is
// refused as ambiguous (git warns and takes the ref; a verifier names it in
// full), and a hex name of fewer than four digits that names no ref is no
// revision, as for git. The error wraps ErrUnknownRevision.
func RefFirst(repo *git.Repository, rev string) (string, error) {
	name, suffix := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		name, suffix = rev[:i], rev[i:]
	}
	if name == "" || name == "HEAD" || strings.HasPrefix(name, "refs/") || len(name) == 40 && IsHexPrefix(name) {
		return rev, nil
	}
	for _, c := range Candidates(name) {
		ref, err := repo.Reference(plumbing.ReferenceName(c), true)
		if err != nil || ref == nil {
			continue
		}
		if IsHexPrefix(name) {
			return "", fmt.Errorf("%w: %q is ambiguous: the ref %s and an abbreviated object id; name the ref in full (%s)", ErrUnknownRevision, rev, c, c+suffix)
		}
		return c + suffix, nil
	}
	if isHexDigits(name) && len(name) < 4 {
		return "", fmt.Errorf("%w: %q: an abbreviated object id needs at least four hex digits", ErrUnknownRevision, rev)
	}
	return rev, nil
}

// Candidates are the full ref names a short name may stand for, in the
// order git looks them up (git rev-parse, "dwim").
func Candidates(name string) []string {
	return []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name, "refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"}
}

// isHexDigits reports whether s is hex digits only.
func isHexDigits(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// IsHexPrefix reports whether s can be an abbreviated object id for git:
// four or more hex digits.
func IsHexPrefix(s string) bool { return len(s) >= 4 && isHexDigits(s) }

// NotFetchedError: a revision <remote>/<branch>, whose first part is a
// configured remote, names the remote-tracking branch Ref
// (refs/remotes/<remote>/<branch>), and the repository does not have it
// (a single-branch or shallow fetch). Any other ref git would take for the
// name (a tag auto-followed by the fetch) is refused in its place
// (docs/format.md#ambiguous-ref-names). It matches ErrUnknownRevision.
type NotFetchedError struct {
	Rev            string // the revision as given
	Ref            string // refs/remotes/<remote>/<branch>
	Remote, Branch string
}

func (e *NotFetchedError) Error() string {
	return fmt.Sprintf("%v: %q: the remote-tracking branch %s is not fetched (any other ref of that name is not taken for it); fetch it: git fetch %s +refs/heads/%s:%s", ErrUnknownRevision, e.Rev, e.Ref, e.Remote, e.Branch, e.Ref)
}

// Unwrap returns ErrUnknownRevision.
func (e *NotFetchedError) Unwrap() error { return ErrUnknownRevision }
