package gitref

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/taskproof/taskproof/gitref/internal/rawtree"
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
// The raw trees are compared entry by entry in git's order (rawtree.Diff),
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
	changes, ok, err := rawtree.Diff(ra, rb)
	if err != nil {
		return err
	}
	if !ok {
		return r.diffDecoded(a, b, dir, visit)
	}
	for _, ch := range changes {
		if err := r.diffEntry(dir, ch.A, ch.B, visit); err != nil {
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
