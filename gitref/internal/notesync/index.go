package notesync

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/taskproof/taskproof/gitref/internal/gitobj"
)

// Index holds the notes of a notes ref by annotated commit, as All lists
// them, in fixed-size ids instead of All's strings: for reading the notes of
// many commits (the merge gate) with the index of a long history in a few
// dozen bytes a note. Safe for concurrent use once made.
type Index struct {
	s *Store
	// one holds the commits with one note blob: its id and its fan-out depth
	// (the path's "xx/" directories), which with the commit's id give its path.
	one map[plumbing.Hash]indexedNote
	// more holds the commits with notes at several paths, in All's order.
	more map[plumbing.Hash][]notePath
}

type indexedNote struct {
	blob  plumbing.Hash
	depth uint8
}

// Index reads the notes tree once into a Index. The error wraps
// ErrNotesRefAbsent when the ref does not exist.
func (s *Store) Index() (*Index, error) {
	tree, err := s.headTree()
	if err != nil {
		return nil, err
	}
	x := &Index{s: s, one: map[plumbing.Hash]indexedNote{}}
	err = s.walkNotes(tree, func(id Hash, path string, blob plumbing.Hash) {
		h := gitobj.ToPlumbing(id)
		if ps, ok := x.more[h]; ok {
			x.more[h] = append(ps, notePath{path: path, blob: blob})
			return
		}
		if n, ok := x.one[h]; ok {
			if x.more == nil {
				x.more = map[plumbing.Hash][]notePath{}
			}
			x.more[h] = []notePath{{path: notePathAt(string(id), n.depth), blob: n.blob}, {path: path, blob: blob}}
			delete(x.one, h)
			return
		}
		x.one[h] = indexedNote{blob: blob, depth: uint8(strings.Count(path, "/"))}
	})
	if err != nil {
		return nil, err
	}
	return x, nil
}

// notePathAt is the path of hex's note fanned out depth times: "ab/cd/ef…".
func notePathAt(hex string, depth uint8) string {
	var b strings.Builder
	b.Grow(len(hex) + int(depth))
	i := 0
	for range depth {
		b.WriteString(hex[i : i+2])
		b.WriteByte('/')
		i += 2
	}
	b.WriteString(hex[i:])
	return b.String()
}

// Len is the number of annotated commits.
func (x *Index) Len() int { return len(x.one) + len(x.more) }

// Read reads commit's note as ReadEntry reads All's entry for it (Note's
// checks); ok is false when the index holds no note for commit (a commit id
// not written as All writes them, 40 lowercase hex digits, has none).
func (x *Index) Read(commit Hash) (note []byte, ok bool, err error) {
	if len(commit) != 40 || !gitobj.IsLowerHex(string(commit)) {
		return nil, false, nil
	}
	h := gitobj.ToPlumbing(commit)
	if n, found := x.one[h]; found {
		note, err = x.s.readNote(commit, []notePath{{path: notePathAt(string(commit), n.depth), blob: n.blob}})
		return note, true, err
	}
	if ps, found := x.more[h]; found {
		note, err = x.s.readNote(commit, ps)
		return note, true, err
	}
	return nil, false, nil
}
