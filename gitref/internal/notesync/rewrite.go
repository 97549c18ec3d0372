package notesync

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
)

// RemoteRewrite says that the remote's notes ref was rewritten by someone
// else (a forced push: a new history, or a rollback) since this clone last
// saw it: the notes commit it held then, Previous, is no longer in its
// history (docs/format.md#a-remote-rewritten-by-someone-else).
type RemoteRewrite struct {
	// Previous is the remote's notes commit this clone saw last: its
	// tracking ref before this sync, or before the `git fetch` that forced the
	// tracking ref over it (read from the tracking ref's reflog).
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

// seenRemote returns the remote's notes commits this clone saw last, read
// before a sync fetches: the tracking ref's value and, when the tracking
// ref's reflog says its last move went there from a commit, that commit (a
// `git fetch` after `taskproof init` may have forced the tracking ref over
// it already). None for a remote given by URL (no tracking ref).
func (s *Store) seenRemote(n remoteNames) []Hash {
	if n.temporary {
		return nil
	}
	cur, err := s.Repo.ReadRef(n.notes)
	if err != nil || cur == "" {
		return nil
	}
	seen := []Hash{cur}
	if old, ok := s.lastReflogMove(n.notes, cur); ok {
		seen = append(seen, old)
	}
	return seen
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
// ("" for none), or nil. seen are seenRemote's commits: the first, the
// tracking ref's value before this sync, is a rewrite when this sync found
// the remote off its history; the second, the value a forced move of the
// tracking ref left (an earlier fetch saw the rewrite), is one as long as
// lines it held are still missing upstream. A commit seen that cannot be
// read any more (its objects pruned) says nothing. Missing holds the lines
// of the commit seen that the remote lacks and notes commit local ("" for
// none) holds.
func (s *Store) remoteRewrite(seen []Hash, remote, local Hash) (*RemoteRewrite, error) {
	for i, prev := range seen {
		if prev == remote {
			continue
		}
		if _, err := s.Repo.Commit(prev); err != nil {
			continue
		}
		if remote != "" {
			kept, err := s.isAncestor(prev, remote)
			if err != nil {
				return nil, err
			}
			if kept {
				continue // the remote moved on from it
			}
		}
		rw := &RemoteRewrite{Previous: prev, Now: remote, Missing: map[Hash][]byte{}}
		if err := s.missingUpstream(rw, local); err != nil {
			return nil, err
		}
		if i > 0 && len(rw.Missing) == 0 {
			continue
		}
		return rw, nil
	}
	return nil, nil
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
