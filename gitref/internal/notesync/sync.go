package notesync

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/refs"
	"github.com/taskproof/taskproof/noteline"
	"github.com/taskproof/taskproof/notesref"
)

// Errors of notes synchronisation.
var (
	// ErrGitProgram: the git program is not installed, or a git command failed
	// for a reason other than a rejected ref (network, authentication, unknown
	// remote). *GitError carries its output.
	ErrGitProgram = gitobj.ErrGitProgram
	// ErrRemoteNotesAbsent: the remote has no notes ref.
	ErrRemoteNotesAbsent = errors.New("remote has no notes ref")
	// ErrRemoteUnknown: the remote is a bare name no remote is configured
	// under (nor a URL or a path).
	ErrRemoteUnknown = errors.New("no such remote")
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
// remote one, into the note to keep, and returns the lines it did not keep
// (displaced, to be kept in SyncOptions.ConflictsRef; nil when none). It may
// be called more than once for a commit (on a retry) and must not have side
// effects beyond recording what it did.
type NoteMergeFunc func(commit Hash, local, remote []byte) (merged, displaced []byte, err error)

// LineSetMergeFunc merges versions of one commit's note in the conflicts ref,
// plus lines just displaced, into the note to keep. It must be commutative and
// associative (a set union), so that clones merging in any order converge.
type LineSetMergeFunc func(notes ...[]byte) []byte

// SyncOptions configure Store.Fetch and Store.Push.
type SyncOptions struct {
	// Remote is a remote name or URL; default "origin". For a remote name, the
	// remote's refs are fetched into its tracking refs (notesref.Tracking,
	// notesref.SkipTracking), as `git fetch` does with the refspecs `taskproof
	// init` writes; for a URL, into temporary refs removed afterwards.
	Remote string
	// Merge merges a commit's note when both sides changed it (required).
	Merge NoteMergeFunc
	// ConflictsRef, when set, is the notes ref that keeps the lines Merge
	// displaced (docs/format.md#conflicting-statements-of-one-tick); it is
	// fetched, merged with MergeConflicts and pushed beside the notes ref.
	ConflictsRef string
	// MergeConflicts merges the conflicts ref's notes (required with ConflictsRef).
	MergeConflicts LineSetMergeFunc
	// SkipRefs also moves the skip records, refs/speccoder/skipped/* (docs/format.md#storage),
	// without force: a skip ref that differs on the two sides is reported in
	// SyncResult.Rejected, never overwritten.
	SkipRefs bool
	// MaxAttempts bounds push attempts (each after a fetch and merge); default 5.
	MaxAttempts int
	// Git is the git program; default "git" from PATH.
	Git string
	// Push, for Sync, pushes after fetching (Store.Push); otherwise Sync
	// only fetches (Store.Fetch).
	Push bool
}

// SyncResult says what Fetch or Push did.
type SyncResult struct {
	Remote string `json:"remote"`
	Ref    string `json:"ref"`
	// Tracking is the ref the remote's notes were fetched into ("" for a URL).
	Tracking string `json:"tracking,omitempty"`
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
	// Arrived maps each commit whose note in the conflicts ref gained lines from
	// the remote to those lines (statements displaced by someone else's merge).
	Arrived map[Hash][]byte `json:"-"`
	// Removed maps each commit whose note a fast-forward to the remote's notes
	// took lines away from (another clone replaced or removed them: a
	// --force, a carry) to those lines; they are kept in the conflicts ref
	// rather than dropped unnamed (docs/format.md#conflicting-statements-of-one-tick).
	Removed map[Hash][]byte `json:"-"`
	// Attempts is how many pushes were tried.
	Attempts int `json:"attempts,omitempty"`
	// Rejected lists refs the remote or the local side refused to move (skip refs
	// that differ), as git reported them.
	Rejected []string `json:"rejected"`
	// Rewritten, when not nil, says that someone else rewrote the remote's
	// notes ref since this clone saw it last, and which of the lines it held
	// then the local notes still hold (kept by Fetch, pushed back by Push).
	Rewritten *RemoteRewrite `json:"rewritten,omitempty"`
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
	if o.ConflictsRef != "" && (o.MergeConflicts == nil || !refs.ValidName(o.ConflictsRef)) {
		return fmt.Errorf("notes sync: conflicts ref %q needs a valid name and a merge func", o.ConflictsRef)
	}
	return nil
}

// git runs the git program on the repository and returns its standard output.
func (s *Store) git(ctx context.Context, o SyncOptions, args ...string) (string, error) {
	gitDir := s.Repo.GitDir()
	full := append([]string{"--git-dir=" + gitDir}, args...)
	cmd := exec.CommandContext(ctx, o.Git, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "GIT_DIR="+gitDir, "LC_ALL=C")
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

// remoteNames are the refs one fetch writes the remote's refs into.
type remoteNames struct {
	notes, conflicts, skip string // tracking ref, tracking ref, tracking prefix
	// synced and rewritten record what the last sync saw of the remote's
	// notes ref (notesref.Synced, notesref.RewrittenFrom); "" for a URL.
	synced, rewritten string
	temporary         bool // a URL: the refs are removed after the sync
}

// remoteNames returns the tracking refs of o.Remote: its tracking refs when it
// is a configured remote with a name git accepts in a ref, else temporary ones.
func (s *Store) remoteNames(o SyncOptions) (remoteNames, error) {
	_, named, err := s.Repo.ConfigValue("remote." + o.Remote + ".url")
	if err != nil {
		return remoteNames{}, err
	}
	remote := o.Remote
	if !named && !strings.ContainsAny(remote, "/:\\") && remote != "." {
		if _, err := os.Stat(remote); err != nil {
			return remoteNames{}, fmt.Errorf("%w %q: add it (git remote add %s URL) or give the remote's URL", ErrRemoteUnknown, remote, remote)
		}
	}
	if !named || !refs.ValidName("refs/remotes/"+remote) || strings.Contains(remote, "/") {
		// A URL's refs live where no reader of remotes looks (not under
		// refs/notes/remotes/, which --notes-from-remotes merges in), named by
		// the process, so that a fetch killed before removing them leaves
		// nothing read as a remote; the next URL fetch removes them.
		s.dropStaleTemporary(o)
		tmp := fmt.Sprintf("%s%d-%d/", TemporaryFetchPrefix, os.Getpid(), time.Now().UnixNano())
		n := remoteNames{notes: tmp + strings.TrimPrefix(s.Ref, "refs/"), skip: tmp + "skipped/", temporary: true}
		if o.ConflictsRef != "" {
			n.conflicts = tmp + strings.TrimPrefix(o.ConflictsRef, "refs/")
		}
		return n, nil
	}
	n := remoteNames{notes: notesref.Tracking(s.Ref, remote), skip: notesref.SkipTracking(remote),
		synced: notesref.Synced(s.Ref, remote), rewritten: notesref.RewrittenFrom(s.Ref, remote)}
	if o.ConflictsRef != "" {
		n.conflicts = notesref.Tracking(o.ConflictsRef, remote)
	}
	return n, nil
}

// TemporaryFetchPrefix is where a fetch from a URL (no configured remote)
// writes the remote's refs for the time of the sync: refs/speccoder/fetch/
// <pid>-<nanoseconds>/, under refs/speccoder/ which no history walk and no
// reader of remotes' notes reads.
const TemporaryFetchPrefix = "refs/speccoder/fetch/"

// dropStaleTemporary removes the temporary refs of URL fetches whose process
// is gone (killed before removing them).
func (s *Store) dropStaleTemporary(o SyncOptions) {
	out, err := s.git(context.Background(), o, "for-each-ref", "--format=%(refname)", TemporaryFetchPrefix)
	if err != nil {
		return
	}
	for _, ref := range strings.Fields(out) {
		id, _, _ := strings.Cut(strings.TrimPrefix(ref, TemporaryFetchPrefix), "/")
		pid, _, _ := strings.Cut(id, "-")
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() && processAlive(n) {
			continue
		}
		s.git(context.Background(), o, "update-ref", "-d", ref)
	}
}

// fetchRefs runs one `git fetch` that mirrors the remote's notes ref (and
// conflicts ref, and skip records with o.SkipRefs) into the tracking refs,
// forced and pruned as git does for remote-tracking branches. The refspecs are
// patterns (<ref>*), so a remote that has none of them is not an error; the
// configured refspecs are ignored (--refmap=), so a remote.<name>.fetch that
// maps the notes ref onto itself cannot make this fetch fail.
func (s *Store) fetchRefs(ctx context.Context, o SyncOptions, n remoteNames) error {
	args := []string{"fetch", "--no-tags", "--no-write-fetch-head", "--prune", "--refmap=", "--", o.Remote,
		"+" + s.Ref + "*:" + n.notes + "*"}
	if o.ConflictsRef != "" && !strings.HasPrefix(o.ConflictsRef, s.Ref) {
		args = append(args, "+"+o.ConflictsRef+"*:"+n.conflicts+"*")
	}
	if o.SkipRefs {
		args = append(args, "+"+notesref.SkipPrefix+"*:"+n.skip+"*")
	}
	if _, err := s.git(ctx, o, args...); err != nil {
		var ge *GitError
		if errors.As(err, &ge) {
			return gitStorageFault(ge, s.Repo.GitDir(), s.Ref)
		}
		return err
	}
	// git may have written a new pack file: make go-git list the packs again.
	s.Repo.Reindex()
	return nil
}

// dropTemporary removes the temporary refs a fetch from a URL wrote.
func (s *Store) dropTemporary(o SyncOptions, n remoteNames) {
	if !n.temporary {
		return
	}
	refs := []string{n.notes}
	if n.conflicts != "" {
		refs = append(refs, n.conflicts)
	}
	out, _ := s.git(context.Background(), o, "for-each-ref", "--format=%(refname)", n.notes+"*", n.skip)
	refs = append(refs, strings.Fields(out)...)
	for _, r := range refs {
		s.git(context.Background(), o, "update-ref", "-d", r)
	}
}

// Sync is Push when o.Push, else Fetch.
func (s *Store) Sync(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	if o.Push {
		return s.Push(ctx, o)
	}
	return s.Fetch(ctx, o)
}

// Fetch fetches the remote's notes ref into its tracking ref (notesref.Tracking) and
// integrates it into the local one: created when absent locally,
// fast-forwarded when the local ref is behind, left alone when it is ahead,
// and otherwise merged — a notes commit whose parents are the local and the
// remote notes commits and whose tree holds every note of both, o.Merge
// deciding the notes both sides changed. Lines o.Merge displaces go to
// o.ConflictsRef, which is merged with the remote's the same way (written
// before the notes ref moves, so a crash loses nothing). Refs move by
// compare-and-swap; after a lost race the integration is redone (bounded).
// Neither side is ever overwritten. With o.SkipRefs the skip records are
// fetched into notesref.SkipTracking and each is created or fast-forwarded
// locally; one that differs is listed in Rejected. The error wraps
// ErrRemoteNotesAbsent when the remote has no notes ref, and is a *GitError
// when git fails.
func (s *Store) Fetch(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	res, err := s.fetch(ctx, o)
	return res, gitobj.StorageFault(err, s.Ref)
}

func (s *Store) fetch(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	res, n, done, err := s.startSync(&o)
	if err != nil {
		return nil, err
	}
	defer done()
	seen, err := s.seenRemote(n)
	if err != nil {
		return nil, err
	}
	if err := s.fetchRefs(ctx, o, n); err != nil {
		return nil, err
	}
	if err := s.integrateTracking(o, n, res); err != nil {
		return nil, err
	}
	if res.RemoteHead == "" {
		if last := seen.tracked(); last != "" {
			return nil, fmt.Errorf("%w: %s has no %s any more (it was at %s when this clone last fetched: deleted by someone else? `taskproof notes push %s` puts yours back)", ErrRemoteNotesAbsent, o.Remote, s.Ref, short(last), o.Remote)
		}
		return nil, fmt.Errorf("%w: %s has no %s (push it first with `taskproof notes push %s`)", ErrRemoteNotesAbsent, o.Remote, s.Ref, o.Remote)
	}
	if res.Rewritten, err = s.remoteRewrite(seen, res.RemoteHead, res.After); err != nil {
		return nil, err
	}
	if err := s.recordSynced(ctx, o, n, seen, res.RemoteHead, res.Rewritten); err != nil {
		return nil, err
	}
	if o.SkipRefs {
		if err := s.integrateSkipRefs(o, n, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func newSyncResult(o SyncOptions, ref string) *SyncResult {
	return &SyncResult{Remote: o.Remote, Ref: ref, Merged: []Hash{}, Rejected: []string{}, Arrived: map[Hash][]byte{}}
}

// integrateTracking integrates the fetched tracking refs into the local notes
// ref and conflicts ref, retrying after a lost race. A remote without a notes
// ref leaves res.RemoteHead "".
func (s *Store) integrateTracking(o SyncOptions, n remoteNames, res *SyncResult) error {
	if err := s.notesRefsCommits(s.Ref, o.ConflictsRef, n.notes, n.conflicts); err != nil {
		return err
	}
	remote, err := s.Repo.ReadRef(n.notes)
	if err != nil {
		return err
	}
	var remoteConflicts Hash
	if n.conflicts != "" {
		if remoteConflicts, err = s.Repo.ReadRef(n.conflicts); err != nil {
			return err
		}
	}
	res.RemoteHead = remote
	for attempt := 0; ; attempt++ {
		err := s.integrate(remote, remoteConflicts, o, res)
		if errors.Is(err, refs.ErrRefChanged) && attempt < o.MaxAttempts {
			continue
		}
		return err
	}
}

// integrate brings notes commit remote (and conflicts commit remoteConflicts,
// either "" when the remote has none) into the local refs (see Fetch).
func (s *Store) integrate(remote, remoteConflicts Hash, o SyncOptions, res *SyncResult) error {
	local, err := s.Repo.ReadRef(s.Ref)
	if err != nil {
		return err
	}
	res.Merged = res.Merged[:0]
	res.Removed = nil
	displaced := map[Hash][]byte{}
	next, action := local, "up-to-date"
	switch {
	case remote == "" || local == remote:
	case local == "":
		next, action = remote, "created"
	default:
		remoteOld, localOld, err := s.relation(local, remote)
		if err != nil {
			return err
		}
		switch {
		case remoteOld:
		case localOld:
			next, action = remote, "fast-forward"
			if o.ConflictsRef != "" {
				if err := s.removedLines(local, remote, displaced, res); err != nil {
					return err
				}
			}
		default:
			merged, commits, err := s.mergeNotesCommits(local, remote, func(id Hash, l, r []byte) ([]byte, error) {
				m, d, err := o.Merge(id, l, r)
				if len(d) > 0 {
					displaced[id] = d
				}
				return m, err
			})
			if err != nil {
				return err
			}
			next, action, res.Merged = merged, "merged", commits
		}
	}
	if len(displaced) > 0 && o.ConflictsRef == "" {
		return fmt.Errorf("notes sync: merging displaced lines of %d notes and no conflicts ref to keep them", len(displaced))
	}
	if o.ConflictsRef != "" {
		// The displaced lines land before the notes ref moves: a crash in
		// between leaves them in both places, never in neither.
		if err := s.integrateConflicts(remoteConflicts, displaced, o, res); err != nil {
			return err
		}
	}
	if next != local {
		if err := s.Repo.SetRef(s.Ref, local, next, s.Lock); err != nil {
			return err
		}
	}
	res.Action, res.After = action, next
	return nil
}

// integrateConflicts merges the remote's conflicts commit and the displaced
// lines into the local conflicts ref, recording in res.Arrived the lines the
// remote brought.
func (s *Store) integrateConflicts(remote Hash, displaced map[Hash][]byte, o SyncOptions, res *SyncResult) error {
	cs := &Store{Repo: s.Repo, Ref: o.ConflictsRef, Lock: s.Lock, MaxNoteSize: s.MaxNoteSize,
		Message: "Statements displaced by 'taskproof notes' merges\n"}
	local, err := s.Repo.ReadRef(cs.Ref)
	if err != nil {
		return err
	}
	next := local
	for k := range res.Arrived {
		delete(res.Arrived, k)
	}
	if remote != "" && remote != local {
		remoteOld := false
		if local != "" {
			if remoteOld, err = cs.isAncestor(remote, local); err != nil {
				return err
			}
		}
		if !remoteOld {
			before := map[Hash][]byte{}
			if local != "" {
				if before, err = cs.notesOf(local); err != nil {
					return err
				}
			}
			if local == "" {
				next = remote
			} else if localOld, err := cs.isAncestor(local, remote); err != nil {
				return err
			} else if localOld {
				next = remote
			} else if next, _, err = cs.mergeNotesCommits(local, remote, func(_ Hash, l, r []byte) ([]byte, error) {
				return o.MergeConflicts(l, r), nil
			}); err != nil {
				return err
			}
			after, err := cs.notesOf(next)
			if err != nil {
				return err
			}
			for id, note := range after {
				if extra := newLines(before[id], note); len(extra) > 0 {
					res.Arrived[id] = extra
				}
			}
		}
	}
	ids := make([]string, 0, len(displaced))
	for id := range displaced {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	for _, id := range ids {
		d := displaced[Hash(id)]
		n, _, err := cs.prepare(Hash(id), next, func(old []byte) ([]byte, error) {
			return o.MergeConflicts(old, d), nil
		})
		if err != nil {
			return err
		}
		next = n
	}
	if next == local {
		return nil
	}
	return s.Repo.SetRef(cs.Ref, local, next, s.Lock)
}

// notesOf reads every note of notes commit head.
func (s *Store) notesOf(head Hash) (map[Hash][]byte, error) {
	tree, err := s.notesTree(head)
	if err != nil {
		return nil, err
	}
	blobs, err := s.noteBlobs(tree)
	if err != nil {
		return nil, err
	}
	out := make(map[Hash][]byte, len(blobs))
	for id, paths := range blobs {
		if out[id], err = s.readNote(id, paths); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newLines returns the lines of after that before does not hold ("\n"-ended).
func newLines(before, after []byte) []byte {
	have := map[string]bool{}
	for _, l := range bytes.Split(before, []byte("\n")) {
		have[string(l)] = true
	}
	var out []byte
	for _, l := range bytes.Split(after, []byte("\n")) {
		if len(l) > 0 && !have[string(l)] {
			out = append(append(out, l...), '\n')
		}
	}
	return out
}

// integrateSkipRefs creates or fast-forwards each local skip record from its
// tracking ref; one that differs (neither side behind) is kept as it is and
// listed in res.Rejected.
func (s *Store) integrateSkipRefs(o SyncOptions, n remoteNames, res *SyncResult) error {
	out, err := s.git(context.Background(), o, "for-each-ref", "--format=%(refname) %(objectname)", n.skip)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		name, id, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		localName := notesref.SkipPrefix + strings.TrimPrefix(name, n.skip)
		remote := Hash(id)
		local, err := s.Repo.ReadRef(localName)
		if err != nil {
			return err
		}
		switch {
		case local == remote:
			continue
		case local == "":
			err = s.Repo.SetRef(localName, "", remote, s.Lock)
		default:
			ahead, behind, aerr := s.relation(local, remote)
			if aerr != nil {
				return aerr
			}
			switch {
			case ahead:
			case behind:
				err = s.Repo.SetRef(localName, local, remote, s.Lock)
			default:
				res.Rejected = append(res.Rejected, fmt.Sprintf("%s: %s's record %s differs from yours %s (kept yours; theirs is %s)",
					localName, o.Remote, short(remote), short(local), name))
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func short(h Hash) string {
	if len(h) > 12 {
		return string(h[:12])
	}
	return string(h)
}

// isAncestor reports whether commit a is reachable from commit b (a == b
// included): [Store.inHistory] for one commit.
func (s *Store) isAncestor(a, b Hash) (bool, error) {
	if _, err := s.Repo.Commit(a); err != nil {
		return false, err
	}
	in, err := s.inHistory(b, []Hash{a})
	return in[a], err
}

// noteBlobs maps each annotated commit of a notes tree to its note blobs.
func (s *Store) noteBlobs(tree plumbing.Hash) (map[Hash][]notePath, error) {
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
func (s *Store) mergeNotesCommits(local, remote Hash, merge func(commit Hash, local, remote []byte) ([]byte, error)) (Hash, []Hash, error) {
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
		if tree, err = s.placeNote(tree, id, lp, content); err != nil {
			return "", nil, err
		}
	}
	msg := fmt.Sprintf("Notes merged by 'taskproof notes' (%d notes merged line by line)\n", len(merged))
	c, err := s.Repo.WriteCommit(tree, []plumbing.Hash{gitobj.ToPlumbing(local), gitobj.ToPlumbing(remote)}, msg, time.Now())
	if err != nil {
		return "", nil, err
	}
	return c, merged, nil
}

// placeNote writes content as commit id's note into notes tree tree: at the
// first of the paths lp it has there (the others removed), or at a new path
// for a commit tree does not annotate. The content is refused, as a
// *NoteError wrapping a *gitobj.TooLargeError, over the note size limit.
func (s *Store) placeNote(tree plumbing.Hash, id Hash, lp []notePath, content []byte) (plumbing.Hash, error) {
	if int64(len(content)) > s.maxSize() {
		return plumbing.ZeroHash, &NoteError{Ref: s.Ref, Commit: id, Path: "(merged)",
			Err: &gitobj.TooLargeError{Size: int64(len(content)), Limit: s.maxSize()}}
	}
	blob, err := s.Repo.WriteBlob(content)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var target string
	if len(lp) > 0 {
		target = lp[0].path
		for _, p := range lp[1:] {
			if tree, err = s.setPath(tree, strings.Split(p.path, "/"), plumbing.ZeroHash); err != nil {
				return plumbing.ZeroHash, err
			}
		}
	} else if target, err = s.newNotePath(tree, string(id)); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.setPath(tree, strings.Split(target, "/"), blob)
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

// Push fetches the remote's notes and integrates them as Fetch does (so a
// conflict is decided, and reported, before anything is pushed), then pushes
// the local notes ref — and o.ConflictsRef when it exists — to the remote
// without force. When the remote refuses it as not a fast-forward (someone
// else pushed in between), Push fetches, merges and pushes again, up to
// o.MaxAttempts times (then the error wraps ErrPushRetries). With o.SkipRefs
// the skip records are integrated and pushed afterwards, never forced; those
// the remote refuses are listed in SyncResult.Rejected. The error wraps
// ErrNotesRefAbsent when there is no notes ref on either side, and is a
// *GitError when git fails for another reason.
func (s *Store) Push(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	res, err := s.push(ctx, o)
	return res, gitobj.StorageFault(err, s.Ref)
}

func (s *Store) push(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	res, n, done, err := s.startSync(&o)
	if err != nil {
		return nil, err
	}
	defer done()
	var merged []Hash
	arrived := map[Hash][]byte{}
	seen, err := s.seenRemote(n)
	if err != nil {
		return nil, err
	}
	var last string // why the last push was rejected
	for res.Attempts < o.MaxAttempts {
		res.Attempts++
		if err := s.fetchRefs(ctx, o, n); err != nil {
			return nil, err
		}
		if err := s.integrateTracking(o, n, res); err != nil {
			return nil, err
		}
		if res.Attempts == 1 {
			// Whether the remote was rewritten is judged against what this
			// clone saw before: a later attempt's fetch is this push's own.
			if res.Rewritten, err = s.remoteRewrite(seen, res.RemoteHead, res.After); err != nil {
				return nil, err
			}
		}
		merged = append(merged, res.Merged...)
		for id, l := range res.Arrived {
			arrived[id] = append(arrived[id], l...)
		}
		if o.SkipRefs {
			if err := s.integrateSkipRefs(o, n, res); err != nil {
				return nil, err
			}
		}
		local, err := s.Head()
		if err != nil {
			return nil, err
		}
		specs := []string{s.Ref + ":" + s.Ref}
		if o.ConflictsRef != "" {
			if c, err := s.Repo.ReadRef(o.ConflictsRef); err != nil {
				return nil, err
			} else if c != "" {
				specs = append(specs, o.ConflictsRef+":"+o.ConflictsRef)
			}
		}
		out, err := s.git(ctx, o, append([]string{"push", "--porcelain", "--", o.Remote}, specs...)...)
		status, summary := porcelainStatus(out, s.Ref)
		cstatus, csummary := "", ""
		if len(specs) > 1 {
			cstatus, csummary = porcelainStatus(out, o.ConflictsRef)
		}
		var ge *GitError
		if err != nil && !(errors.As(err, &ge) && ge.Code == 1 && (status == "!" || cstatus == "!")) {
			return nil, err
		}
		if status != "!" && cstatus != "!" {
			res.After, res.RemoteHead = local, local
			if res.Rewritten != nil {
				res.Rewritten.PushedBack = true
			}
			if err := s.recordSynced(ctx, o, n, seen, local, res.Rewritten); err != nil {
				return nil, err
			}
			res.Merged, res.Arrived = merged, arrived
			switch {
			case status == "=" && local == res.Before:
				res.Action = "up-to-date"
			default:
				res.Action = "pushed"
			}
			if o.SkipRefs {
				if err := s.pushSkipRefs(ctx, o, res); err != nil {
					return res, err
				}
			}
			return res, nil
		}
		if status == "!" && !retryablePush(summary) {
			return nil, fmt.Errorf("%w: pushing %s to %s: rejected: %s", ErrGitProgram, s.Ref, o.Remote, summary)
		}
		if cstatus == "!" && !retryablePush(csummary) {
			return nil, fmt.Errorf("%w: pushing %s to %s: rejected: %s", ErrGitProgram, o.ConflictsRef, o.Remote, csummary)
		}
		last = strings.TrimSpace(summary + " " + csummary)
		if ge != nil && strings.TrimSpace(ge.Stderr) != "" {
			// The remote's reason (a lock file a killed push left there,
			// named by path) is in git's standard error.
			last += ": " + strings.Join(strings.Fields(ge.Stderr), " ")
		}
		if strings.Contains(summary+csummary, "remote rejected") {
			// Another push held the remote's ref lock: give it a moment.
			time.Sleep(time.Duration(res.Attempts) * 100 * time.Millisecond)
		}
	}
	return nil, fmt.Errorf("%w: %s to %s after %d attempts (the last rejected: %s)", ErrPushRetries, s.Ref, o.Remote, res.Attempts, last)
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
func (s *Store) pushSkipRefs(ctx context.Context, o SyncOptions, res *SyncResult) error {
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

// TrackingRefs lists the tracking refs of the notes ref that exist
// (refs/notes/remotes/<remote>/<name>, one per remote fetched), sorted.
func (s *Store) TrackingRefs() ([]string, error) {
	name := strings.TrimPrefix(notesref.Tracking(s.Ref, "x"), "refs/notes/remotes/x/")
	found := map[string]bool{}
	dir := filepath.Join(s.Repo.RefDir("refs/notes/remotes"), "refs", "notes", "remotes")
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	for _, e := range entries {
		// taskproof-fetch-* held a URL fetch's refs in earlier versions: no remote.
		if e.IsDir() && !strings.HasPrefix(e.Name(), "taskproof-fetch-") {
			found["refs/notes/remotes/"+e.Name()+"/"+name] = true
		}
	}
	if b, err := os.ReadFile(filepath.Join(s.Repo.RefDir("refs/notes/remotes"), "packed-refs")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if _, ref, ok := strings.Cut(l, " "); ok && strings.HasPrefix(ref, "refs/notes/remotes/") && !strings.HasPrefix(ref, "refs/notes/remotes/taskproof-fetch-") && strings.HasSuffix(ref, "/"+name) {
				found[ref] = true
			}
		}
	}
	var out []string
	for ref := range found {
		if !refs.ValidName(ref) {
			continue
		}
		if h, err := s.Repo.ReadRef(ref); err != nil {
			return nil, err
		} else if h != "" {
			out = append(out, ref)
		}
	}
	sort.Strings(out)
	return out, nil
}

// WithTracking returns a read-only view of the notes ref merged with the
// given tracking refs (TrackingRefs), as `taskproof notes fetch` would merge
// them, without moving any ref: the merged notes commits are written as
// objects only. merge decides the notes both sides hold differently (the
// lines it displaces are not part of the view). Absent refs are skipped; with
// none present the error wraps ErrNotesRefAbsent.
func (s *Store) WithTracking(tracking []string, merge func(commit Hash, local, remote []byte) ([]byte, error)) (*Store, error) {
	if err := s.notesRefsCommits(append([]string{s.Ref}, tracking...)...); err != nil {
		return nil, err
	}
	head, err := s.Repo.ReadRef(s.Ref)
	if err != nil {
		return nil, err
	}
	for _, t := range tracking {
		remote, err := s.Repo.ReadRef(t)
		if err != nil {
			return nil, err
		}
		switch {
		case remote == "" || remote == head:
			continue
		case head == "":
			head = remote
			continue
		}
		if old, err := s.isAncestor(remote, head); err != nil {
			return nil, err
		} else if old {
			continue
		}
		if behind, err := s.isAncestor(head, remote); err != nil {
			return nil, err
		} else if behind {
			head = remote
			continue
		}
		if head, _, err = s.mergeNotesCommits(head, remote, merge); err != nil {
			return nil, err
		}
	}
	if head == "" {
		return nil, fmt.Errorf("%w: %s, nor any of %v (run `git fetch` after `taskproof init`)", ErrNotesRefAbsent, s.Ref, tracking)
	}
	v := *s
	v.Pinned = head
	return &v, nil
}

// relation says whether local is ahead of remote (remote is an ancestor of
// local, or equal) and whether it is behind (local is an ancestor of remote).
func (s *Store) relation(local, remote Hash) (ahead, behind bool, err error) {
	if ahead, err = s.isAncestor(remote, local); err != nil {
		return false, false, err
	}
	behind, err = s.isAncestor(local, remote)
	return ahead, behind, err
}

// removedLines records, for a fast-forward from notes commit local to remote,
// the lines of local's notes that remote's no longer hold, in displaced (to be
// kept in the conflicts ref) and res.Removed (to be named to the user). Only
// notes whose blobs differ are read.
func (s *Store) removedLines(local, remote Hash, displaced map[Hash][]byte, res *SyncResult) error {
	lt, err := s.notesTree(local)
	if err != nil {
		return err
	}
	rt, err := s.notesTree(remote)
	if err != nil {
		return err
	}
	lnotes, err := s.noteBlobs(lt)
	if err != nil {
		return err
	}
	rnotes, err := s.noteBlobs(rt)
	if err != nil {
		return err
	}
	for id, lp := range lnotes {
		rp := rnotes[id]
		if len(lp) == 1 && len(rp) == 1 && lp[0].blob == rp[0].blob {
			continue
		}
		lb, err := s.readNote(id, lp)
		if err != nil {
			return err
		}
		var rb []byte
		if len(rp) > 0 {
			if rb, err = s.readNote(id, rp); err != nil {
				return err
			}
		}
		have := map[string]bool{}
		rlines := bytes.Split(rb, []byte("\n"))
		for _, l := range rlines {
			have[string(bytes.TrimSuffix(l, []byte("\r")))] = true
		}
		var gone []byte
		for _, l := range bytes.Split(lb, []byte("\n")) {
			l = bytes.TrimSuffix(l, []byte("\r"))
			// A line the remote holds with more signatures (co-signed in
			// another clone) was signed again, not removed.
			if len(bytes.TrimSpace(l)) == 0 || have[string(l)] || noteline.Carried(l, rlines) {
				continue
			}
			gone = append(append(gone, l...), '\n')
		}
		if len(gone) > 0 {
			displaced[id] = append(displaced[id], gone...)
			if res.Removed == nil {
				res.Removed = map[Hash][]byte{}
			}
			res.Removed[id] = gone
		}
	}
	return nil
}

// startSync begins a Fetch or Push: it fills in o's defaults, reads the local
// notes ref (the result's Before and After) and names the remote's tracking
// refs (the result's Tracking, unless they are temporary: a URL). done drops
// temporary tracking refs; call it when the sync ends.
func (s *Store) startSync(o *SyncOptions) (res *SyncResult, n remoteNames, done func(), err error) {
	if err := o.defaults(); err != nil {
		return nil, remoteNames{}, nil, err
	}
	before, err := s.Repo.ReadRef(s.Ref)
	if err != nil {
		return nil, remoteNames{}, nil, err
	}
	res = newSyncResult(*o, s.Ref)
	res.Before, res.After = before, before
	if n, err = s.remoteNames(*o); err != nil {
		return nil, remoteNames{}, nil, err
	}
	if !n.temporary {
		res.Tracking = n.notes
	}
	return res, n, func() { s.dropTemporary(*o, n) }, nil
}
