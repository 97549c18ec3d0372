package gitref

import (
	"fmt"
	"strings"

	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// NotFetchedError: a revision <remote>/<branch> (Rev), whose first part is a
// configured remote (Remote), names the remote-tracking branch Ref
// (refs/remotes/<remote>/<branch>), and the repository does not have it (a
// single-branch or shallow fetch). Any other ref git would take for the name
// (a tag auto-followed by the fetch) is refused in its place
// (docs/format.md#ambiguous-ref-names). It matches ErrUnknownRevision.
type NotFetchedError = refs.NotFetchedError

// ResolveTrusted resolves a revision that decides trust or the range checked
// (a merge gate's base, the REV of a REV:PATH trust or policy input) more
// strictly than [Repo.Resolve] (docs/format.md#ambiguous-ref-names):
//
//   - a full commit id (40 hex digits) and HEAD are taken as Resolve takes them;
//   - a full ref name (refs/…) is taken as written;
//   - <remote>/<branch>, where <remote> is a configured remote
//     (remote.<remote>.url), resolves through refs/remotes/<remote>/<branch>
//     only: absent, it is a [*NotFetchedError];
//   - any other short name resolves through the ref git's order picks
//     (refs/<name>, refs/tags/<name>, refs/heads/<name>, refs/remotes/<name>,
//     refs/remotes/<name>/HEAD), refused when that is a tag (write refs/tags/X
//     or tags/X) or a refs/<name> ref outside refs/tags, refs/heads and
//     refs/remotes; an abbreviated id no ref answers to is taken as an id;
//   - a refs/remotes/<remote>/HEAD ref counts only as a symbolic ref to a
//     branch of that remote (what git clone and git remote set-head write):
//     a plain one is what a pushed branch named HEAD becomes, and is refused.
//
// Only ~N and ^N may follow the name. Ref is the full ref the revision
// resolved through (a symbolic ref followed to its target), "" for an
// object id. Errors wrap ErrUnknownRevision (or ErrBadRef, for a broken ref
// file); names several refs answer to with different commits are refused as
// Resolve refuses them.
func (r *Repo) ResolveTrusted(rev string) (id Hash, ref string, err error) {
	name, suffix := rev, ""
	if i := strings.IndexAny(rev, "~^@{:"); i >= 0 {
		name, suffix = rev[:i], rev[i:]
	}
	if strings.ContainsAny(suffix, "@{:") {
		return "", "", fmt.Errorf("%w: %q: a revision that decides trust or the range is a commit id or a ref name, optionally followed by ~N or ^N", ErrUnknownRevision, rev)
	}
	// Resolve first: its ambiguity check and its errors (shallow edge, broken
	// ref file) hold here too.
	if _, err := r.Resolve(rev); err != nil {
		if nf := r.notFetched(rev, name); nf != nil {
			return "", "", nf
		}
		return "", "", err
	}
	if name == "HEAD" || len(name) == 40 && refs.IsHexPrefix(name) {
		id, err := r.Resolve(rev)
		return id, "", err
	}
	var through string
	switch {
	case strings.HasPrefix(name, "refs/"):
		through = name
	case r.notFetched(rev, name) != nil:
		return "", "", r.notFetched(rev, name)
	case r.isRemoteBranch(name):
		through = "refs/remotes/" + name
	default:
		if through, err = r.shortRef(rev, name); err != nil {
			return "", "", err
		}
		if through == "" { // an abbreviated object id
			id, err := r.Resolve(rev)
			return id, "", err
		}
	}
	full, ok, err := r.followRef(through)
	if err != nil {
		return "", "", fmt.Errorf("%w: %q: %w", ErrUnknownRevision, rev, err)
	}
	if !ok {
		return "", "", fmt.Errorf("%w: %q: no ref %s", ErrUnknownRevision, rev, full)
	}
	id, err = r.Resolve(full + suffix)
	return id, full, err
}

// isRemoteBranch reports whether name is <remote>/<branch> with <remote> a
// configured remote.
func (r *Repo) isRemoteBranch(name string) bool {
	remote, branch, ok := strings.Cut(name, "/")
	if !ok || remote == "" || branch == "" {
		return false
	}
	_, ok, err := r.configValue("remote." + remote + ".url")
	return err == nil && ok
}

// notFetched is the [*NotFetchedError] for name when it is <remote>/<branch>
// of a configured remote whose remote-tracking ref does not exist; nil
// otherwise.
func (r *Repo) notFetched(rev, name string) error {
	if !r.isRemoteBranch(name) {
		return nil
	}
	ref := "refs/remotes/" + name
	if id, target, err := readRefValue(r.refDir(ref), ref); err != nil || id != "" || target != "" {
		return nil
	}
	remote, branch, _ := strings.Cut(name, "/")
	return &NotFetchedError{Rev: rev, Ref: ref, Remote: remote, Branch: branch}
}

// shortRef is the ref git's order picks for short name, refused when it is a
// tag or a refs/<name> ref outside refs/tags, refs/heads and refs/remotes; ""
// when no ref answers to name.
func (r *Repo) shortRef(rev, name string) (string, error) {
	for _, c := range refs.Candidates(name)[1:] {
		if !validRefName(c) {
			continue
		}
		id, target, err := readRefValue(r.refDir(c), c)
		if err != nil {
			return "", err
		}
		if id == "" && target == "" {
			continue
		}
		switch {
		case strings.HasPrefix(c, "refs/tags/") && c != "refs/"+name:
			return "", fmt.Errorf("%w: %q is the tag %s: a tag is not taken for a branch; write refs/tags/%s (or tags/%s) if the tag is meant, or name the branch in full (refs/heads/%s, refs/remotes/<remote>/%s)", ErrUnknownRevision, rev, c, name, name, name, name)
		case c == "refs/"+name && !strings.HasPrefix(name, "tags/") && !strings.HasPrefix(name, "heads/") && !strings.HasPrefix(name, "remotes/"):
			return "", fmt.Errorf("%w: %q is the ref %s, outside refs/heads, refs/remotes and refs/tags: write it in full (%s) if it is meant", ErrUnknownRevision, rev, c, c)
		}
		return c, nil
	}
	return "", nil
}

// followRef follows ref name through symbolic refs to the ref holding an id
// and returns that ref's name, ok false when it (the end of the chain) does not
// exist. A refs/remotes/<remote>/HEAD must be a symbolic ref to a branch of
// that remote.
func (r *Repo) followRef(name string) (string, bool, error) {
	for range 5 {
		if !validRefName(name) {
			return name, false, fmt.Errorf("%w: %q", ErrBadRefName, name)
		}
		id, target, err := readRefValue(r.refDir(name), name)
		if err != nil {
			return name, false, err
		}
		if remote, ok := remoteHead(name); ok {
			switch {
			case id != "":
				return name, false, fmt.Errorf("%s is a plain ref at %s, not the symbolic ref git clone and git remote set-head write (a branch named HEAD pushed to %s becomes one); name the base branch in full, e.g. refs/remotes/%s/main", name, id, remote, remote)
			case target != "" && !strings.HasPrefix(target, "refs/remotes/"+remote+"/"):
				return name, false, fmt.Errorf("%s names %s, not a branch of %s", name, target, remote)
			}
		}
		if target == "" {
			return name, id != "", nil
		}
		name = target
	}
	return name, false, fmt.Errorf("%s: symbolic refs nested too deep", name)
}

// remoteHead reports whether name is refs/remotes/<remote>/HEAD, and remote.
func remoteHead(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "refs/remotes/")
	if !ok {
		return "", false
	}
	remote, ok := strings.CutSuffix(rest, "/HEAD")
	return remote, ok && remote != ""
}

// RemoteHead reads refs/remotes/<remote>/HEAD, the remote's default branch as
// git clone and git remote set-head record it: the branch it names (its full
// ref, "" when there is no such ref) and that branch's commit. A plain ref in
// its place is an error, as for [Repo.ResolveTrusted]; so is a branch named
// that was not fetched (a [*NotFetchedError]).
func (r *Repo) RemoteHead(remote string) (Hash, string, error) {
	head := "refs/remotes/" + remote + "/HEAD"
	full, ok, err := r.followRef(head)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("%w: %w", ErrUnknownRevision, err)
	case !ok && full == head:
		return "", "", nil
	case !ok:
		branch := strings.TrimPrefix(full, "refs/remotes/"+remote+"/")
		return "", "", &NotFetchedError{Rev: head, Ref: full, Remote: remote, Branch: branch}
	}
	id, err := r.Resolve(full)
	return id, full, err
}
