// Package rawtree reads git tree objects in their raw encoding ("<octal
// mode> <name>\0<20-byte id>" entries) without decoding them whole: finding
// one entry by name, and listing the entries that differ between two trees
// in git's order. Its checks are go-git's: a tree either refuses is refused
// by object.DecodeTree too, and modes are canonicalized as it does.
package rawtree

import (
	"bytes"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// errMalformedTree is wrapped by Find's and Diff's errors; it is go-git's, so
// a tree refused here is refused by object.DecodeTree too.
var errMalformedTree = object.ErrMalformedTree

// Find finds the first entry called name in a raw tree (git's encoding:
// "<octal mode> <name>\0<20-byte id>" repeated) and checks every entry's
// syntax as object.DecodeTree does: an octal mode, a non-empty name, a whole id.
// The mode is canonicalized as DecodeTree does.
func Find(b []byte, name string) (e object.TreeEntry, found bool, err error) {
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return object.TreeEntry{}, false, fmt.Errorf("%w: missing mode terminator", errMalformedTree)
		}
		mode, ok := parseOctalMode(b[:sp])
		if !ok {
			return object.TreeEntry{}, false, fmt.Errorf("%w: malformed mode", errMalformedTree)
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return object.TreeEntry{}, false, fmt.Errorf("%w: missing filename terminator", errMalformedTree)
		}
		if nul == 0 {
			return object.TreeEntry{}, false, fmt.Errorf("%w: empty filename", errMalformedTree)
		}
		if len(b) < nul+1+len(plumbing.ZeroHash) {
			return object.TreeEntry{}, false, fmt.Errorf("%w: truncated object id", errMalformedTree)
		}
		if !found && string(b[:nul]) == name {
			e = object.TreeEntry{Name: name, Mode: canonicalMode(mode)}
			copy(e.Hash[:], b[nul+1:])
			found = true
		}
		b = b[nul+1+len(plumbing.ZeroHash):]
	}
	return e, found, nil
}

// parseOctalMode parses a tree entry's mode as filemode.New does (octal, 32 bits).
func parseOctalMode(s []byte) (filemode.FileMode, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var m uint64
	for _, c := range s {
		if c < '0' || c > '7' {
			return 0, false
		}
		if m = m<<3 | uint64(c-'0'); m > 0xffffffff {
			return 0, false
		}
	}
	return filemode.FileMode(m), true
}

// canonicalMode maps a mode to one of git's canonical modes, as go-git's tree
// decoder does (and git itself: 100664 is a regular file, any other type a gitlink).
func canonicalMode(m filemode.FileMode) filemode.FileMode {
	switch m & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if m&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	}
	return filemode.Submodule
}

// rawEntry is one entry of a raw tree; name points into the tree's bytes.
type rawEntry struct {
	name []byte
	mode filemode.FileMode // canonicalized as object.DecodeTree does
	hash plumbing.Hash
}

// nextRawEntry splits the first entry off a raw tree, checking its syntax as
// Find does.
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

// Change is an entry that differs between two trees (A or B nil: absent).
type Change struct{ A, B *object.TreeEntry }

// Diff lists the entries that differ between raw trees a and b: first
// those of a (changed or removed) in a's order, then those only b has. ok is
// false when a tree is not strictly in git's order (then names could repeat or
// pair wrongly: the caller compares the decoded trees instead). A name that is
// a tree on one side and a file on the other sorts apart and is listed as
// removed and added.
func Diff(a, b []byte) (changes []Change, ok bool, err error) {
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
	var added []Change
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
			changes = append(changes, Change{A: entry(ea)})
			err = advance(&a, &ea, &pa, &hasA, &havePA)
		case c > 0:
			added = append(added, Change{B: entry(eb)})
			err = advance(&b, &eb, &pb, &hasB, &havePB)
		default:
			if ea.hash != eb.hash || ea.mode != eb.mode {
				changes = append(changes, Change{A: entry(ea), B: entry(eb)})
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
