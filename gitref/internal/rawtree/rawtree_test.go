package rawtree

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// refTreeDiff is what diffRawTrees must give for two trees go-git decodes:
// entries of a that changed or went, in a's order, then entries only b has, in
// b's order; a name that is a tree on one side only is removed and added.
func refTreeDiff(a, b *object.Tree) []string {
	isDir := func(e object.TreeEntry) bool { return e.Mode == filemode.Dir }
	var out, added []string
	for _, ea := range a.Entries {
		i := slices.IndexFunc(b.Entries, func(eb object.TreeEntry) bool { return eb.Name == ea.Name && isDir(eb) == isDir(ea) })
		switch {
		case i < 0:
			out = append(out, fmt.Sprintf("-%s %o %s", ea.Name, ea.Mode, ea.Hash))
		case b.Entries[i].Hash != ea.Hash || b.Entries[i].Mode != ea.Mode:
			out = append(out, fmt.Sprintf("~%s %o %s %o %s", ea.Name, ea.Mode, ea.Hash, b.Entries[i].Mode, b.Entries[i].Hash))
		}
	}
	for _, eb := range b.Entries {
		if !slices.ContainsFunc(a.Entries, func(ea object.TreeEntry) bool { return eb.Name == ea.Name && isDir(eb) == isDir(ea) }) {
			added = append(added, fmt.Sprintf("+%s %o %s", eb.Name, eb.Mode, eb.Hash))
		}
	}
	return append(out, added...)
}

func showChanges(cs []Change) []string {
	var out []string
	for _, c := range cs {
		switch {
		case c.B == nil:
			out = append(out, fmt.Sprintf("-%s %o %s", c.A.Name, c.A.Mode, c.A.Hash))
		case c.A == nil:
			out = append(out, fmt.Sprintf("+%s %o %s", c.B.Name, c.B.Mode, c.B.Hash))
		default:
			out = append(out, fmt.Sprintf("~%s %o %s %o %s", c.A.Name, c.A.Mode, c.A.Hash, c.B.Mode, c.B.Hash))
		}
	}
	return out
}

func decodeRawTree(raw []byte) (*object.Tree, error) {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TreeObject)
	o.Write(raw)
	return object.DecodeTree(nil, o)
}

func TestDiffRawTrees(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []byte
		ok     bool
		want   []string // entry names with -, ~, +
		hasErr bool
	}{
		{name: "equal", a: rawTree("100644 a", "40000 d"), b: rawTree("100644 a", "40000 d"), ok: true},
		{name: "changed, removed, added", a: rawTree("100644 a", "100644 b", "40000 d"), b: rawTree("100644 b", "100644 c", "40000 d"), ok: true,
			want: []string{"-a", "~b", "+c"}},
		{name: "mode change", a: rawTree("100644 run"), b: rawTree("100755 run"), ok: true, want: []string{"~run"}},
		{name: "file becomes tree", a: rawTree("100644 x", "100644 x.y"), b: rawTree("100644 x.y", "40000 x"), ok: true, want: []string{"-x", "~x.y", "+x"}},
		{name: "tree sorts as name/", a: rawTree("100644 a.b", "40000 a"), b: rawTree("100644 a.b", "40000 a"), ok: true},
		{name: "empty sides", a: nil, b: rawTree("100644 a"), ok: true, want: []string{"+a"}},
		{name: "unsorted", a: rawTree("100644 b", "100644 a"), b: rawTree("100644 a"), ok: false},
		{name: "repeated name", a: rawTree("100644 a", "100644 a"), b: rawTree("100644 a"), ok: false},
		{name: "malformed", a: []byte("100644 a\x00short"), b: nil, hasErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs, ok, err := Diff(tc.a, tc.b)
			if (err != nil) != tc.hasErr || ok != tc.ok {
				t.Fatalf("diffRawTrees: ok %v, err %v; want ok %v, error %v", ok, err, tc.ok, tc.hasErr)
			}
			var got []string
			for _, c := range cs {
				switch {
				case c.B == nil:
					got = append(got, "-"+c.A.Name)
				case c.A == nil:
					got = append(got, "+"+c.B.Name)
				default:
					got = append(got, "~"+c.A.Name)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("changes = %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzDiffRawTrees checks diffRawTrees against go-git's decoder: trees it
// refuses are refused (or left to the decoded comparison), and trees in git's
// order give the changes a name-by-name comparison gives.
func FuzzDiffRawTrees(f *testing.F) {
	f.Add(rawTree("100644 a", "100644 b", "40000 d"), rawTree("100644 b", "100644 c", "40000 d"))
	f.Add(rawTree("100644 x", "100644 x.y"), rawTree("100644 x.y", "40000 x"))
	f.Add(rawTree("100644 b", "100644 a"), rawTree("100644 a"))
	f.Add([]byte("100644 a\x00short"), []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		cs, ok, err := Diff(a, b)
		ta, errA := decodeRawTree(a)
		tb, errB := decodeRawTree(b)
		if errA != nil || errB != nil {
			if err == nil && ok {
				t.Fatalf("go-git refuses a tree (%v, %v), diffRawTrees took it", errA, errB)
			}
			return
		}
		if err != nil {
			t.Fatalf("diffRawTrees: %v; go-git decodes both trees", err)
		}
		if !ok {
			return
		}
		if got, want := showChanges(cs), refTreeDiff(ta, tb); !slices.Equal(got, want) {
			t.Fatalf("diffRawTrees = %q\nwant %q", got, want)
		}
	})
}

// rawTree encodes entries as git does (no sorting, no checks).
func rawTree(entries ...string) []byte {
	var b []byte
	for i, e := range entries {
		b = append(b, e...)
		b = append(b, 0)
		b = append(b, bytes.Repeat([]byte{byte(i + 1)}, 20)...)
	}
	return b
}

func TestScanTree(t *testing.T) {
	good := rawTree("100644 a.txt", "40000 dir", "100755 run", "120000 link", "160000 sub", "100664 old")
	id := func(i int) plumbing.Hash {
		var h plumbing.Hash
		copy(h[:], bytes.Repeat([]byte{byte(i)}, 20))
		return h
	}
	tests := []struct {
		name  string
		tree  []byte
		find  string
		found bool
		mode  filemode.FileMode
		hash  plumbing.Hash
		bad   bool
	}{
		{"regular", good, "a.txt", true, filemode.Regular, id(1), false},
		{"dir", good, "dir", true, filemode.Dir, id(2), false},
		{"executable", good, "run", true, filemode.Executable, id(3), false},
		{"symlink", good, "link", true, filemode.Symlink, id(4), false},
		{"gitlink", good, "sub", true, filemode.Submodule, id(5), false},
		{"group-writable is regular", good, "old", true, filemode.Regular, id(6), false},
		{"absent", good, "b.txt", false, 0, plumbing.ZeroHash, false},
		{"prefix is not a match", good, "a", false, 0, plumbing.ZeroHash, false},
		{"empty tree", nil, "a", false, 0, plumbing.ZeroHash, false},
		{"first of duplicates", rawTree("100644 x", "100755 x"), "x", true, filemode.Regular, id(1), false},
		{"bad entry after the match", append(rawTree("100644 a"), "100644 b\x00short"...), "a", false, 0, plumbing.ZeroHash, true},
		{"no mode terminator", []byte("100644"), "a", false, 0, plumbing.ZeroHash, true},
		{"non-octal mode", rawTree("100944 a"), "a", false, 0, plumbing.ZeroHash, true},
		{"empty mode", rawTree(" a"), "a", false, 0, plumbing.ZeroHash, true},
		{"mode over 32 bits", rawTree("77777777777 a"), "a", false, 0, plumbing.ZeroHash, true},
		{"no name terminator", []byte("100644 a"), "a", false, 0, plumbing.ZeroHash, true},
		{"empty name", rawTree("100644 "), "a", false, 0, plumbing.ZeroHash, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, found, err := Find(tt.tree, tt.find)
			if tt.bad {
				if !errors.Is(err, object.ErrMalformedTree) {
					t.Fatalf("Find = %v, %v, %v; want ErrMalformedTree", e, found, err)
				}
				return
			}
			if err != nil || found != tt.found || e.Mode != tt.mode || e.Hash != tt.hash || (found && e.Name != tt.find) {
				t.Fatalf("Find = %+v, %v, %v; want found=%v mode %v hash %s", e, found, err, tt.found, tt.mode, tt.hash)
			}
		})
	}
}

// FuzzScanTree checks Find against go-git's tree decoder: the same trees
// are refused, and every name decoded is found with the same entry.
func FuzzScanTree(f *testing.F) {
	f.Add(rawTree("100644 a.txt", "40000 dir", "100755 run"), "dir")
	f.Add(rawTree("100664 x", "100644 x"), "x")
	f.Add([]byte("100644 a\x00short"), "a")
	f.Add(rawTree("0000100644 zero-padded"), "zero-padded")
	f.Fuzz(func(t *testing.T, raw []byte, name string) {
		o := &plumbing.MemoryObject{}
		o.SetType(plumbing.TreeObject)
		o.Write(raw)
		tree, decErr := object.DecodeTree(nil, o)
		_, _, scanErr := Find(raw, name)
		if (decErr != nil) != (scanErr != nil) {
			t.Fatalf("DecodeTree error %v, Find error %v", decErr, scanErr)
		}
		if decErr != nil {
			return
		}
		names := []string{name}
		for _, e := range tree.Entries {
			names = append(names, e.Name)
		}
		for _, n := range names {
			e, found, err := Find(raw, n)
			want, wantFound := object.TreeEntry{}, false
			for _, d := range tree.Entries {
				if d.Name == n {
					want, wantFound = d, true
					break
				}
			}
			if err != nil || found != wantFound || e != want {
				t.Fatalf("Find(%q) = %+v, %v, %v; DecodeTree has %+v, %v", n, e, found, err, want, wantFound)
			}
		}
	})
}
