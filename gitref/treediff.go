package gitref

import (
	"bytes"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TreeEntry is one entry of a tree object: its name (one path element), its
// mode and the id of the blob, tree or commit (a submodule's) it names.
type TreeEntry struct {
	Name string
	Mode EntryMode
	id   plumbing.Hash
}

// ID is the id of the object the entry names.
func (e *TreeEntry) ID() Hash { return fromPlumbing(e.id) }

// EntryMode is a tree entry's kind, read from its git mode (100664 is a
// regular file, as git reads it).
type EntryMode uint8

// The kinds of tree entry.
const (
	// OtherMode is a mode that is none of git's (only in a tree git would
	// not write).
	OtherMode EntryMode = iota
	RegularFile
	ExecutableFile
	Directory
	Symlink
	Submodule // a gitlink: a commit of another repository
)

// IsRegular reports whether m is a regular file, executable or not.
func (m EntryMode) IsRegular() bool { return m == RegularFile || m == ExecutableFile }

// entryMode maps a go-git mode to its EntryMode.
func entryMode(m filemode.FileMode) EntryMode {
	switch m {
	case filemode.Regular, filemode.Deprecated:
		return RegularFile
	case filemode.Executable:
		return ExecutableFile
	case filemode.Dir:
		return Directory
	case filemode.Symlink:
		return Symlink
	case filemode.Submodule:
		return Submodule
	}
	return OtherMode
}

func treeEntry(e *object.TreeEntry) TreeEntry {
	return TreeEntry{Name: e.Name, Mode: entryMode(e.Mode), id: e.Hash}
}

// DiffTrees calls visit for every entry that differs between trees a and b
// ("" : the empty tree) in id or mode, recursively: path is the entry's
// '/'-separated path under the trees, ea and eb the entry in a and in b (nil
// where absent; valid only during the call: copy what is kept). Only
// subtrees whose ids differ are read; a changed subtree's entries are visited
// before the subtree itself. The first error from visit ends the walk and is
// returned; reading errors wrap ErrNotFound for a missing tree.
//
// The raw trees are compared entry by entry in git's order (diffRawTrees),
// without decoding them; a tree that is not in git's order (or repeats a name)
// is compared by name instead (diffDecoded), as go-git reads it. Either way the
// entries are visited in a's order, then those only b has, in b's order. A
// name that is a tree on one side and a file on the other is visited as
// removed and added when the trees are in git's order, as one change when
// they are not.
func (r *Repo) DiffTrees(a, b Hash, visit func(path string, ea, eb *TreeEntry) error) error {
	var pa, pb plumbing.Hash
	if a != "" {
		pa = toPlumbing(a)
	}
	if b != "" {
		pb = toPlumbing(b)
	}
	return r.diffTrees(pa, pb, "", &treeVisit{visit: visit})
}

// treeVisit is a DiffTrees walk's visitor and the two entries it hands it
// (reused from one call to the next).
type treeVisit struct {
	visit  func(path string, ea, eb *TreeEntry) error
	ea, eb TreeEntry
}

func (v *treeVisit) call(path string, a, b *object.TreeEntry) error {
	var pa, pb *TreeEntry
	if a != nil {
		v.ea, pa = treeEntry(a), &v.ea
	}
	if b != nil {
		v.eb, pb = treeEntry(b), &v.eb
	}
	return v.visit(path, pa, pb)
}

func (r *Repo) diffTrees(a, b plumbing.Hash, dir string, visit *treeVisit) error {
	if a == b {
		return nil
	}
	ra, err := r.rawTree(a)
	if err != nil {
		return err
	}
	rb, err := r.rawTree(b)
	if err != nil {
		return err
	}
	changes, ok, err := diffRawTrees(ra, rb)
	if err != nil {
		return err
	}
	if !ok {
		return r.diffDecoded(a, b, dir, visit)
	}
	for _, ch := range changes {
		if err := r.diffEntry(dir, ch.a, ch.b, visit); err != nil {
			return err
		}
	}
	return nil
}

// rawTree returns tree id's raw bytes (nil for the zero id). They may be the
// object cache's own copy (viewOf): read them, never modify or keep them.
func (r *Repo) rawTree(id plumbing.Hash) ([]byte, error) {
	if id.IsZero() {
		return nil, nil
	}
	return r.viewOf(plumbing.TreeObject, id)
}

// rawEntry is one entry of a raw tree; name points into the tree's bytes.
type rawEntry struct {
	name []byte
	mode filemode.FileMode // canonicalized as object.DecodeTree does
	hash plumbing.Hash
}

// nextRawEntry splits the first entry off a raw tree, checking its syntax as
// scanTree does.
func nextRawEntry(b []byte) (rawEntry, []byte, error) {
	sp := bytes.IndexByte(b, ' ')
	if sp < 0 {
		return rawEntry{}, nil, fmt.Errorf("%w: missing mode terminator", errMalformedTree)
	}
	mode, ok := parseOctalMode(b[:sp])
	if !ok {
		return rawEntry{}, nil, fmt.Errorf("%w: malformed mode", errMalformedTree)
	}
	b = b[sp+1:]
	nul := bytes.IndexByte(b, 0)
	switch {
	case nul < 0:
		return rawEntry{}, nil, fmt.Errorf("%w: missing filename terminator", errMalformedTree)
	case nul == 0:
		return rawEntry{}, nil, fmt.Errorf("%w: empty filename", errMalformedTree)
	case len(b) < nul+1+len(plumbing.ZeroHash):
		return rawEntry{}, nil, fmt.Errorf("%w: truncated object id", errMalformedTree)
	}
	e := rawEntry{name: b[:nul], mode: canonicalMode(mode)}
	copy(e.hash[:], b[nul+1:])
	return e, b[nul+1+len(plumbing.ZeroHash):], nil
}

// compareTreeNames orders tree entries as git does (base_name_compare): by
// name, a tree's name compared as if it ended in '/'.
func compareTreeNames(a, b rawEntry) int {
	n := min(len(a.name), len(b.name))
	if c := bytes.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c
	}
	next := func(e rawEntry) int {
		switch {
		case len(e.name) > n:
			return int(e.name[n])
		case e.mode == filemode.Dir:
			return '/'
		}
		return 0
	}
	return next(a) - next(b)
}

// rawChange is an entry that differs between two trees (a or b nil: absent).
type rawChange struct{ a, b *object.TreeEntry }

// diffRawTrees lists the entries that differ between raw trees a and b: first
// those of a (changed or removed) in a's order, then those only b has. ok is
// false when a tree is not strictly in git's order (then names could repeat or
// pair wrongly: the caller compares the decoded trees instead). A name that is
// a tree on one side and a file on the other sorts apart and is listed as
// removed and added.
func diffRawTrees(a, b []byte) (changes []rawChange, ok bool, err error) {
	var ea, eb, pa, pb rawEntry
	hasA, hasB, havePA, havePB := false, false, false, false
	advance := func(buf *[]byte, e, prev *rawEntry, has, havePrev *bool) error {
		if *has {
			*prev, *havePrev = *e, true
		}
		*has = false
		if len(*buf) == 0 {
			return nil
		}
		ne, rest, err := nextRawEntry(*buf)
		if err != nil {
			return err
		}
		*buf, *e, *has = rest, ne, true
		return nil
	}
	entry := func(e rawEntry) *object.TreeEntry {
		return &object.TreeEntry{Name: string(e.name), Mode: e.mode, Hash: e.hash}
	}
	if err := advance(&a, &ea, &pa, &hasA, &havePA); err != nil {
		return nil, false, err
	}
	if err := advance(&b, &eb, &pb, &hasB, &havePB); err != nil {
		return nil, false, err
	}
	var added []rawChange
	for hasA || hasB {
		if (hasA && havePA && compareTreeNames(pa, ea) >= 0) || (hasB && havePB && compareTreeNames(pb, eb) >= 0) {
			return nil, false, nil
		}
		c := 0
		switch {
		case !hasA:
			c = 1
		case !hasB:
			c = -1
		default:
			c = compareTreeNames(ea, eb)
		}
		switch {
		case c < 0:
			changes = append(changes, rawChange{a: entry(ea)})
			err = advance(&a, &ea, &pa, &hasA, &havePA)
		case c > 0:
			added = append(added, rawChange{b: entry(eb)})
			err = advance(&b, &eb, &pb, &hasB, &havePB)
		default:
			if ea.hash != eb.hash || ea.mode != eb.mode {
				changes = append(changes, rawChange{a: entry(ea), b: entry(eb)})
			}
			if err = advance(&a, &ea, &pa, &hasA, &havePA); err == nil {
				err = advance(&b, &eb, &pb, &hasB, &havePB)
			}
		}
		if err != nil {
			return nil, false, err
		}
	}
	return append(changes, added...), true, nil
}

// diffDecoded is diffTrees on go-git's decoding of the trees, pairing entries
// by name.
func (r *Repo) diffDecoded(a, b plumbing.Hash, dir string, visit *treeVisit) error {
	var ae, be []object.TreeEntry
	if !a.IsZero() {
		t, err := r.tree(a)
		if err != nil {
			return err
		}
		ae = t.Entries
	}
	if !b.IsZero() {
		t, err := r.tree(b)
		if err != nil {
			return err
		}
		be = t.Entries
	}
	type pair struct{ a, b *object.TreeEntry }
	byName := map[string]*pair{}
	var names []string
	for i := range ae {
		byName[ae[i].Name] = &pair{a: &ae[i]}
		names = append(names, ae[i].Name)
	}
	for i := range be {
		if p, ok := byName[be[i].Name]; ok {
			p.b = &be[i]
		} else {
			byName[be[i].Name] = &pair{b: &be[i]}
			names = append(names, be[i].Name)
		}
	}
	for _, name := range names {
		p := byName[name]
		if p.a != nil && p.b != nil && p.a.Hash == p.b.Hash && p.a.Mode == p.b.Mode {
			continue
		}
		if err := r.diffEntry(dir, p.a, p.b, visit); err != nil {
			return err
		}
	}
	return nil
}

// diffEntry handles one entry of dir that differs between two trees (a or b
// nil: absent on that side): subtrees are compared, then the entry visited.
func (r *Repo) diffEntry(dir string, a, b *object.TreeEntry, visit *treeVisit) error {
	name := ""
	if a != nil {
		name = a.Name
	} else {
		name = b.Name
	}
	path := name
	if dir != "" {
		path = dir + "/" + name
	}
	var sa, sb plumbing.Hash
	if a != nil && a.Mode == filemode.Dir {
		sa = a.Hash
	}
	if b != nil && b.Mode == filemode.Dir {
		sb = b.Hash
	}
	if !sa.IsZero() || !sb.IsZero() {
		if err := r.diffTrees(sa, sb, path, visit); err != nil {
			return err
		}
	}
	return visit.call(path, a, b)
}

func isRegular(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

// TreeEntries returns the entries of tree id in the tree's order, as go-git
// decodes them. The error wraps ErrNotFound when the tree is missing.
func (r *Repo) TreeEntries(id Hash) ([]TreeEntry, error) {
	t, err := r.tree(toPlumbing(id))
	if err != nil {
		return nil, err
	}
	out := make([]TreeEntry, len(t.Entries))
	for i := range t.Entries {
		out[i] = treeEntry(&t.Entries[i])
	}
	return out, nil
}
