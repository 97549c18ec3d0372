package notesync

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/refs"
)

// RemoteRewrite says that the remote's notes ref was rewritten by someone
// else (a forced push: a new history, or a rollback) since this clone last
// saw it: the notes commit it held then, Previous, is no longer in its
// history (docs/format.md#a-remote-rewritten-by-someone-else).
type RemoteRewrite struct {
	// Previous is the remote's notes commit this clone saw last: its
	// tracking ref before this sync, the commit the last notes fetch or push
	// left the remote at (notesref.Synced), the commit a rewrite still
	// missing lines was seen over (notesref.RewrittenFrom), or the commit
	// the last move of the tracking ref's reflog came from.
	Previous Hash `json:"previous"`
	// Now is the remote's notes commit ("" when it has none any more).
	Now Hash `json:"now"`
	// Missing maps each commit whose note held lines at Previous that the
	// remote's notes no longer hold, and that the local notes ref holds, to
	// those lines: Fetch keeps them, Push puts them back.
	Missing map[Hash][]byte `json:"-"`
	// PushedBack is true when Push put the Missing lines back on the remote.
	PushedBack bool `json:"pushed_back"`
}

// seenCommit is one notes commit this clone saw on the remote. A firm one
// (what the tracking ref or the last sync held) is named as a rewrite when
// it is off the remote's history; a soft one (an earlier rewrite's) only
// while lines of it are still missing upstream.
type seenCommit struct {
	id   Hash
	firm bool
}

// seen is what this clone knows of the remote's notes ref before a sync.
type seen struct {
	commits []seenCommit
	// synced and rewritten are the values of n.synced and n.rewritten ("" when
	// absent), moved from by compare-and-swap when the sync ends.
	synced, rewritten Hash
}

// tracked is the remote's notes commit this clone saw last ("" for none).
func (v seen) tracked() Hash {
	if len(v.commits) == 0 {
		return ""
	}
	return v.commits[0].id
}

// seenRemote returns the remote's notes commits this clone saw last, read
// before a sync fetches, in order: the tracking ref's value; the commit the
// last notes fetch or push left the remote at (n.synced: a plain `git
// fetch` moves the tracking ref, forcing it over a rewrite, but not this);
// the commit a rewrite still missing lines was seen over (n.rewritten); and,
// when the tracking ref's reflog says its last move went there from a commit,
// that commit. None for a remote given by URL (no tracking ref).
func (s *Store) seenRemote(n remoteNames) (seen, error) {
	var v seen
	if n.temporary {
		return v, nil
	}
	add := func(id Hash, firm bool) {
		for i, c := range v.commits {
			if c.id == id {
				v.commits[i].firm = c.firm || firm
				return
			}
		}
		v.commits = append(v.commits, seenCommit{id, firm})
	}
	// A tracking ref that cannot be read says nothing: the fetch forces it.
	cur, err := s.Repo.ReadRef(n.notes)
	if err != nil {
		cur = ""
	}
	if cur != "" {
		add(cur, true)
	}
	if v.synced, err = s.Repo.ReadRef(n.synced); err != nil {
		return v, err
	}
	if v.synced != "" {
		add(v.synced, true)
	}
	if v.rewritten, err = s.Repo.ReadRef(n.rewritten); err != nil {
		return v, err
	}
	if v.rewritten != "" {
		add(v.rewritten, false)
	}
	if cur != "" {
		if old, ok := s.lastReflogMove(n.notes, cur); ok {
			add(old, false)
		}
	}
	return v, nil
}

// maxReflogTail bounds the bytes of a reflog read for its last entry.
const maxReflogTail = 64 << 10

// lastReflogMove returns the old value of the last entry of ref's reflog when
// that entry moved ref to cur from another commit.
func (s *Store) lastReflogMove(ref string, cur Hash) (Hash, bool) {
	f, err := os.Open(filepath.Join(s.Repo.RefDir(ref), "logs", filepath.FromSlash(ref)))
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxReflogTail {
		if _, err := f.Seek(fi.Size()-maxReflogTail, io.SeekStart); err != nil {
			return "", false
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", false
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	fields := strings.Fields(lines[len(lines)-1])
	if len(fields) < 2 || Hash(fields[1]) != cur {
		return "", false
	}
	old, err := gitobj.ParseHash(fields[0])
	if err != nil || old == cur || strings.Trim(string(old), "0") == "" {
		return "", false
	}
	return old, true
}

// remoteRewrite returns the rewrite of the remote's notes ref, now at remote
// ("" for none), or nil: the first commit seen that is off the remote's
// history and held lines the remote lacks and notes commit local ("" for
// none) holds, else the first firm one off it (a rewrite that took nothing
// of yours). A commit seen that cannot be read any more (its objects pruned)
// says nothing. The remote's history is walked once.
func (s *Store) remoteRewrite(v seen, remote, local Hash) (*RemoteRewrite, error) {
	var off []seenCommit
	for _, c := range v.commits {
		if c.id == remote {
			continue
		}
		if _, err := s.Repo.Commit(c.id); err != nil {
			continue
		}
		off = append(off, c)
	}
	if remote != "" && len(off) > 0 {
		ids := make([]Hash, len(off))
		for i, c := range off {
			ids[i] = c.id
		}
		kept, err := s.inHistory(remote, ids)
		if err != nil {
			return nil, err
		}
		off = slices.DeleteFunc(off, func(c seenCommit) bool { return kept[c.id] })
	}
	var first *RemoteRewrite
	for _, c := range off {
		rw := &RemoteRewrite{Previous: c.id, Now: remote, Missing: map[Hash][]byte{}}
		if err := s.missingUpstream(rw, local); err != nil {
			return nil, err
		}
		if len(rw.Missing) > 0 {
			return rw, nil
		}
		if c.firm && first == nil {
			first = rw
		}
	}
	return first, nil
}

// inHistory reports which of ids are in head's history (head included),
// walking it once and stopping when all are found.
func (s *Store) inHistory(head Hash, ids []Hash) (map[Hash]bool, error) {
	want := map[plumbing.Hash]Hash{}
	for _, id := range ids {
		want[gitobj.ToPlumbing(id)] = id
	}
	c, err := s.Repo.Commit(head)
	if err != nil {
		return nil, err
	}
	found := map[Hash]bool{}
	err = object.NewCommitPreorderIter(c, nil, nil).ForEach(func(c *object.Commit) error {
		if id, ok := want[c.Hash]; ok {
			found[id] = true
			if len(found) == len(want) {
				return storer.ErrStop
			}
		}
		return nil
	})
	return found, err
}

// recordSynced ends a sync that left the remote's notes ref at remote: it
// records remote in n.synced and, while rw names lines still missing there
// (not pushed back), the commit the rewrite was seen over in n.rewritten
// (else removes it), each by compare-and-swap from what seenRemote read. A
// concurrent sync that moved them first wins: its record is as new.
func (s *Store) recordSynced(ctx context.Context, o SyncOptions, n remoteNames, v seen, remote Hash, rw *RemoteRewrite) error {
	if n.temporary || remote == "" {
		return nil
	}
	ignoreRace := func(err error) error {
		if errors.Is(err, refs.ErrRefChanged) {
			return nil
		}
		return err
	}
	if remote != v.synced {
		if err := ignoreRace(s.Repo.SetRef(n.synced, v.synced, remote, s.Lock)); err != nil {
			return err
		}
	}
	pending := Hash("")
	if rw != nil && len(rw.Missing) > 0 && !rw.PushedBack {
		pending = rw.Previous
	}
	switch {
	case pending == v.rewritten:
	case pending != "":
		return ignoreRace(s.Repo.SetRef(n.rewritten, v.rewritten, pending, s.Lock))
	default:
		// Deleting is rare (a rewrite's lines restored): git's update-ref
		// deletes by compare-and-swap, loose and packed alike.
		if _, err := s.git(ctx, o, "update-ref", "-d", n.rewritten, string(v.rewritten)); err != nil {
			var ge *GitError
			if errors.As(err, &ge) {
				return nil // moved by a concurrent sync
			}
			return err
		}
	}
	return nil
}

// missingUpstream fills rw.Missing: the lines of rw.Previous's notes that
// rw.Now's notes do not hold and local's do. Only the notes whose blobs
// differ are read.
func (s *Store) missingUpstream(rw *RemoteRewrite, local Hash) error {
	blobsOf := func(head Hash) (map[Hash][]notePath, error) {
		if head == "" {
			return map[Hash][]notePath{}, nil
		}
		tree, err := s.notesTree(head)
		if err != nil {
			return nil, err
		}
		return s.noteBlobs(tree)
	}
	prev, err := blobsOf(rw.Previous)
	if err != nil {
		return err
	}
	now, err := blobsOf(rw.Now)
	if err != nil {
		return err
	}
	mine, err := blobsOf(local)
	if err != nil {
		return err
	}
	for id, pp := range prev {
		if samePaths(pp, now[id]) || len(mine[id]) == 0 {
			continue
		}
		lines, err := s.linesOf(id, pp)
		if err != nil {
			return err
		}
		upstream, err := s.linesOf(id, now[id])
		if err != nil {
			return err
		}
		held, err := s.linesOf(id, mine[id])
		if err != nil {
			return err
		}
		up, have := lineSet(upstream), lineSet(held)
		var gone []byte
		for _, l := range bytes.Split(lines, []byte("\n")) {
			if k := string(l); len(bytes.TrimSpace(l)) > 0 && !up[k] && have[k] {
				gone = append(append(gone, l...), '\n')
			}
		}
		if len(gone) > 0 {
			rw.Missing[id] = gone
		}
	}
	return nil
}

// samePaths reports whether two notes of one commit are the same single blob.
func samePaths(a, b []notePath) bool {
	return len(a) == 1 && len(b) == 1 && a[0].blob == b[0].blob
}

// linesOf reads a note ("" for no paths), its "\r" line ends dropped.
func (s *Store) linesOf(id Hash, paths []notePath) ([]byte, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	b, err := s.readNote(id, paths)
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), err
}

// lineSet is the set of a note's lines.
func lineSet(note []byte) map[string]bool {
	set := map[string]bool{}
	for _, l := range bytes.Split(note, []byte("\n")) {
		set[string(l)] = true
	}
	return set
}
