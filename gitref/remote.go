package gitref

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Remote notes synchronisation (SPEC §2 "Users move notes…", issue 9).
//
// The transport is the git program, not go-git's: pushing and fetching must
// reach the remote exactly as `git push` and `git fetch` do for the user, and
// go-git ignores git's credential helpers, url.<base>.insteadOf rewrites,
// core.sshCommand, ssh_config (ProxyJump, IdentityFile), http.* proxy and
// certificate settings. Only the two network operations run git; everything else
// (ancestry, merging notes trees, moving the local ref under its lock) is done
// in-process, and a local ref only moves by compare-and-swap.

// Errors of notes synchronisation.
var (
	// ErrGitProgram: the git program is not installed, or a git command failed
	// for a reason other than a rejected ref (network, authentication, unknown
	// remote). *GitError carries its output.
	ErrGitProgram = errors.New("git command failed")
	// ErrRemoteNotesAbsent: the remote has no notes ref.
	ErrRemoteNotesAbsent = errors.New("remote has no notes ref")
	// ErrPushRetries: the push was rejected again after every retry (the remote
	// keeps moving).
	ErrPushRetries = errors.New("notes push still rejected after retries")
)

// GitError is a failed git command: its arguments, exit code and standard error.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, strings.TrimSpace(e.Stderr))
}

// Unwrap returns ErrGitProgram.
func (e *GitError) Unwrap() error { return ErrGitProgram }

// NoteMergeFunc merges two versions of one commit's note, the local and the
// remote one, into the note to keep. It may be called more than once for a
// commit (on a retry) and must not have side effects beyond recording what it
// did.
type NoteMergeFunc func(commit Hash, local, remote []byte) (merged []byte, err error)

// SyncOptions configure NotesStore.Fetch and NotesStore.Push.
type SyncOptions struct {
	// Remote is a remote name or URL; default "origin".
	Remote string
	// Merge merges a commit's note when both sides changed it (required).
	Merge NoteMergeFunc
	// SkipRefs also moves the skip records, refs/speccoder/skipped/* (SPEC §2),
	// without force: a skip ref that differs on the two sides is reported in
	// SyncResult.Rejected, never overwritten.
	SkipRefs bool
	// MaxAttempts bounds push attempts (each after a fetch and merge); default 5.
	MaxAttempts int
	// Git is the git program; default "git" from PATH.
	Git string
}

// SyncResult says what Fetch or Push did.
type SyncResult struct {
	Remote string `json:"remote"`
	Ref    string `json:"ref"`
	// Before and After are the local notes ref before and after ("" when absent).
	Before Hash `json:"before"`
	After  Hash `json:"after"`
	// RemoteHead is the remote's notes commit last seen ("" when it has none).
	RemoteHead Hash `json:"remote_head"`
	// Action is what happened to the local ref: "up-to-date", "created",
	// "fast-forward", "merged"; for Push, "pushed" when the remote moved.
	Action string `json:"action"`
	// Merged lists the commits whose notes were merged line by line.
	Merged []Hash `json:"merged"`
	// Attempts is how many pushes were tried.
	Attempts int `json:"attempts,omitempty"`
	// Rejected lists refs the remote or the local side refused to move (skip refs
	// that differ), as git reported them.
	Rejected []string `json:"rejected"`
}

func (o *SyncOptions) defaults() error {
	if o.Remote == "" {
		o.Remote = "origin"
	}
	if strings.HasPrefix(o.Remote, "-") {
		return fmt.Errorf("remote %q: must not start with '-'", o.Remote)
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.Git == "" {
		o.Git = "git"
	}
	if o.Merge == nil {
		return errors.New("notes sync: nil merge func")
	}
	return nil
}

// git runs the git program on the repository and returns its standard output.
func (s *NotesStore) git(ctx context.Context, o SyncOptions, args ...string) (string, error) {
	full := append([]string{"--git-dir=" + s.repo.gitDir}, args...)
	cmd := exec.CommandContext(ctx, o.Git, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "GIT_DIR="+s.repo.gitDir, "LC_ALL=C")
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		code := -1
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else {
			return stdout.String(), fmt.Errorf("%w: running %s: %v", ErrGitProgram, o.Git, err)
		}
		return stdout.String(), &GitError{Args: args, Code: code, Stderr: stderr.String()}
	}
	return stdout.String(), nil
}

// tmpRef is the temporary ref a fetch writes the remote's notes commit to.
func (s *NotesStore) tmpRef() string {
	return fmt.Sprintf("refs/taskproof/fetch/%d-%d", os.Getpid(), time.Now().UnixNano())
}

// Fetch fetches the remote's notes ref and integrates it into the local one:
// created when absent locally, fast-forwarded when the local ref is behind, left
// alone when it is ahead, and otherwise merged — a notes commit whose parents
// are the local and the remote notes commits and whose tree holds every note of
// both, o.Merge deciding the notes both sides changed. The local ref moves by
// compare-and-swap; after a lost race the integration is redone (bounded). With
// o.SkipRefs the skip records are fetched too, never forced. The error wraps
// ErrRemoteNotesAbsent when the remote has no notes ref, and is a *GitError
// when git fails.
func (s *NotesStore) Fetch(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	res := &SyncResult{Remote: o.Remote, Ref: s.ref, Merged: []Hash{}, Rejected: []string{}}
	before, err := s.repo.ReadRef(s.ref)
	if err != nil {
		return nil, err
	}
	res.Before = before
	if err := s.fetchAndIntegrate(ctx, o, res); err != nil {
		return nil, err
	}
	if o.SkipRefs {
		if err := s.fetchSkipRefs(ctx, o, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// fetchAndIntegrate fetches the remote notes into a temporary ref and integrates them.
func (s *NotesStore) fetchAndIntegrate(ctx context.Context, o SyncOptions, res *SyncResult) error {
	tmp := s.tmpRef()
	_, err := s.git(ctx, o, "fetch", "--no-tags", "--no-write-fetch-head", "--", o.Remote, "+"+s.ref+":"+tmp)
	defer s.git(context.Background(), o, "update-ref", "-d", tmp)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
		return fmt.Errorf("%w: %s has no %s (push it first with `taskproof notes push %s`)", ErrRemoteNotesAbsent, o.Remote, s.ref, o.Remote)
	}
	if err != nil {
		return err
	}
	// git may have written a new pack file: make go-git list the packs again.
	s.repo.storage.Reindex()
	remote, err := s.repo.ReadRef(tmp)
	if err != nil {
		return err
	}
	if remote == "" {
		return fmt.Errorf("%w: fetching %s from %s wrote no ref", ErrGitProgram, s.ref, o.Remote)
	}
	res.RemoteHead = remote
	for attempt := 0; ; attempt++ {
		err := s.integrate(remote, o.Merge, res)
		if errors.Is(err, ErrRefChanged) && attempt < o.MaxAttempts {
			continue
		}
		return err
	}
}

// integrate brings notes commit remote into the local ref (see Fetch).
func (s *NotesStore) integrate(remote Hash, merge NoteMergeFunc, res *SyncResult) error {
	local, err := s.repo.ReadRef(s.ref)
	if err != nil {
		return err
	}
	res.Merged = res.Merged[:0]
	switch {
	case local == "":
		res.Action, res.After = "created", remote
		return s.repo.SetRef(s.ref, "", remote, s.Lock)
	case local == remote:
		res.Action, res.After = "up-to-date", local
		return nil
	}
	if ok, err := s.isAncestor(remote, local); err != nil {
		return err
	} else if ok {
		res.Action, res.After = "up-to-date", local
		return nil
	}
	if ok, err := s.isAncestor(local, remote); err != nil {
		return err
	} else if ok {
		res.Action, res.After = "fast-forward", remote
		return s.repo.SetRef(s.ref, local, remote, s.Lock)
	}
	merged, commits, err := s.mergeNotesCommits(local, remote, merge)
	if err != nil {
		return err
	}
	res.Action, res.After, res.Merged = "merged", merged, commits
	return s.repo.SetRef(s.ref, local, merged, s.Lock)
}

// isAncestor reports whether commit a is reachable from commit b (a == b included).
func (s *NotesStore) isAncestor(a, b Hash) (bool, error) {
	ca, err := s.repo.commit(a)
	if err != nil {
		return false, err
	}
	cb, err := s.repo.commit(b)
	if err != nil {
		return false, err
	}
	return ca.IsAncestor(cb)
}

// noteBlobs maps each annotated commit of a notes tree to its note blobs.
func (s *NotesStore) noteBlobs(tree plumbing.Hash) (map[Hash][]notePath, error) {
	out := map[Hash][]notePath{}
	err := s.walkNotes(tree, func(id Hash, path string, blob plumbing.Hash) {
		out[id] = append(out[id], notePath{path: path, blob: blob})
	})
	return out, err
}

// mergeNotesCommits writes a notes commit whose parents are local and remote (in
// that order, as `git notes merge` does) and whose tree is local's with every
// note of remote added: a commit annotated only on the remote side gets the
// remote note; one annotated on both sides with different blobs gets
// merge(local note, remote note). Entries that are not notes stay as local has
// them. It returns the new commit and the commits whose notes were merged.
func (s *NotesStore) mergeNotesCommits(local, remote Hash, merge NoteMergeFunc) (Hash, []Hash, error) {
	lt, err := s.notesTree(local)
	if err != nil {
		return "", nil, err
	}
	rt, err := s.notesTree(remote)
	if err != nil {
		return "", nil, err
	}
	lnotes, err := s.noteBlobs(lt)
	if err != nil {
		return "", nil, err
	}
	rnotes, err := s.noteBlobs(rt)
	if err != nil {
		return "", nil, err
	}
	ids := make([]string, 0, len(rnotes))
	for id := range rnotes {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	tree := lt
	var merged []Hash
	for _, sid := range ids {
		id := Hash(sid)
		rp, lp := rnotes[id], lnotes[id]
		if len(lp) == 1 && len(rp) == 1 && lp[0].blob == rp[0].blob {
			continue
		}
		rb, err := s.readNote(id, rp)
		if err != nil {
			return "", nil, err
		}
		content := rb
		if len(lp) > 0 {
			lb, err := s.readNote(id, lp)
			if err != nil {
				return "", nil, err
			}
			if bytes.Equal(lb, rb) {
				continue
			}
			if content, err = merge(id, lb, rb); err != nil {
				return "", nil, fmt.Errorf("merging the notes of %s: %w", id, err)
			}
			if bytes.Equal(content, lb) && len(lp) == 1 {
				continue
			}
			merged = append(merged, id)
		}
		if int64(len(content)) > s.maxSize() {
			return "", nil, &NoteError{Ref: s.ref, Commit: id, Path: "(merged)",
				Err: &TooLargeError{Size: int64(len(content)), Limit: s.maxSize()}}
		}
		blob, err := s.repo.writeBlob(content)
		if err != nil {
			return "", nil, err
		}
		var target string
		if len(lp) > 0 {
			target = lp[0].path
			for _, p := range lp[1:] {
				if tree, err = s.setPath(tree, strings.Split(p.path, "/"), plumbing.ZeroHash); err != nil {
					return "", nil, err
				}
			}
		} else if target, err = s.newNotePath(tree, sid); err != nil {
			return "", nil, err
		}
		if tree, err = s.setPath(tree, strings.Split(target, "/"), blob); err != nil {
			return "", nil, err
		}
	}
	msg := fmt.Sprintf("Notes merged by 'taskproof notes' (%d notes merged line by line)\n", len(merged))
	c, err := s.repo.writeCommit(tree, []plumbing.Hash{local.plumbing(), remote.plumbing()}, msg, time.Now())
	if err != nil {
		return "", nil, err
	}
	return c, merged, nil
}

// fetchSkipRefs fetches refs/speccoder/skipped/* without force; refs git
// rejects are listed in res.Rejected.
func (s *NotesStore) fetchSkipRefs(ctx context.Context, o SyncOptions, res *SyncResult) error {
	const spec = "refs/speccoder/skipped/*:refs/speccoder/skipped/*"
	_, err := s.git(ctx, o, "fetch", "--no-tags", "--no-write-fetch-head", "--", o.Remote, spec)
	var ge *GitError
	if errors.As(err, &ge) && ge.Code == 1 {
		res.Rejected = append(res.Rejected, rejectedLines(ge.Stderr)...)
		return nil
	}
	return err
}

// rejectedLines picks git's "! [rejected] …" lines out of its output.
func rejectedLines(out string) []string {
	var r []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "! ") || strings.HasPrefix(l, "!\t") {
			r = append(r, l)
		}
	}
	return r
}

// Push pushes the local notes ref to the remote without force. When the remote
// refuses it as not a fast-forward (someone else pushed notes), Push fetches the
// remote's notes, merges them into the local ref as Fetch does, and pushes again,
// up to o.MaxAttempts times (then the error wraps ErrPushRetries). With
// o.SkipRefs the skip records are pushed afterwards, never forced; those the
// remote refuses are listed in SyncResult.Rejected. The error wraps
// ErrNotesRefAbsent when there is no local notes ref, and is a *GitError when git
// fails for another reason.
func (s *NotesStore) Push(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	before, err := s.Head()
	if err != nil {
		return nil, err
	}
	res := &SyncResult{Remote: o.Remote, Ref: s.ref, Before: before, After: before, Merged: []Hash{}, Rejected: []string{}}
	var merged []Hash
	for res.Attempts < o.MaxAttempts {
		res.Attempts++
		out, err := s.git(ctx, o, "push", "--porcelain", "--", o.Remote, s.ref+":"+s.ref)
		status, summary := porcelainStatus(out, s.ref)
		var ge *GitError
		if err != nil && !(errors.As(err, &ge) && ge.Code == 1 && status == "!") {
			return nil, err
		}
		if status != "!" {
			if res.After, err = s.repo.ReadRef(s.ref); err != nil {
				return nil, err
			}
			res.RemoteHead = res.After
			res.Merged = merged
			if status == "=" {
				res.Action = "up-to-date"
			} else {
				res.Action = "pushed"
			}
			if res.After != res.Before && res.Action == "up-to-date" {
				res.Action = "pushed"
			}
			if o.SkipRefs {
				if err := s.pushSkipRefs(ctx, o, res); err != nil {
					return res, err
				}
			}
			return res, nil
		}
		if !retryablePush(summary) {
			return nil, fmt.Errorf("%w: pushing %s to %s: rejected: %s", ErrGitProgram, s.ref, o.Remote, summary)
		}
		if strings.Contains(summary, "remote rejected") {
			// Another push held the remote's ref lock: give it a moment.
			time.Sleep(time.Duration(res.Attempts) * 100 * time.Millisecond)
		}
		// Someone else pushed notes: fetch them, merge, try again.
		if err := s.fetchAndIntegrate(ctx, o, res); err != nil {
			return nil, err
		}
		merged = append(merged, res.Merged...)
	}
	return nil, fmt.Errorf("%w: %s to %s after %d attempts", ErrPushRetries, s.ref, o.Remote, res.Attempts)
}

// retryablePush reports whether a rejected push's summary means the remote moved
// (non-fast-forward, fetch first) or was busy (another push held its ref lock):
// then a fetch, a merge and another push can succeed.
func retryablePush(summary string) bool {
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "stale info"} {
		if strings.Contains(summary, s) {
			return true
		}
	}
	return false
}

// pushSkipRefs pushes refs/speccoder/skipped/* without force when there are any.
func (s *NotesStore) pushSkipRefs(ctx context.Context, o SyncOptions, res *SyncResult) error {
	out, err := s.git(ctx, o, "for-each-ref", "--format=%(refname)", "refs/speccoder/skipped/")
	if err != nil || strings.TrimSpace(out) == "" {
		return err
	}
	out, err = s.git(ctx, o, "push", "--porcelain", "--", o.Remote, "refs/speccoder/skipped/*:refs/speccoder/skipped/*")
	var ge *GitError
	if err != nil && !(errors.As(err, &ge) && ge.Code == 1) {
		return err
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "!\t") {
			res.Rejected = append(res.Rejected, strings.TrimPrefix(l, "!\t"))
		}
	}
	return nil
}

// porcelainStatus returns the flag and summary `git push --porcelain` printed
// for ref ("" when it printed none): ' ' fast-forward, '+' forced, '-' deleted,
// '*' new, '!' rejected, '=' up to date.
func porcelainStatus(out, ref string) (flag, summary string) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) == 3 && len(parts[0]) == 1 && strings.HasSuffix(parts[1], ":"+ref) {
			return parts[0], parts[2]
		}
	}
	return "", ""
}
