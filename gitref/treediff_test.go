package gitref

import (
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

func showChanges(cs []rawChange) []string {
	var out []string
	for _, c := range cs {
		switch {
		case c.b == nil:
			out = append(out, fmt.Sprintf("-%s %o %s", c.a.Name, c.a.Mode, c.a.Hash))
		case c.a == nil:
			out = append(out, fmt.Sprintf("+%s %o %s", c.b.Name, c.b.Mode, c.b.Hash))
		default:
			out = append(out, fmt.Sprintf("~%s %o %s %o %s", c.a.Name, c.a.Mode, c.a.Hash, c.b.Mode, c.b.Hash))
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
			cs, ok, err := diffRawTrees(tc.a, tc.b)
			if (err != nil) != tc.hasErr || ok != tc.ok {
				t.Fatalf("diffRawTrees: ok %v, err %v; want ok %v, error %v", ok, err, tc.ok, tc.hasErr)
			}
			var got []string
			for _, c := range cs {
				switch {
				case c.b == nil:
					got = append(got, "-"+c.a.Name)
				case c.a == nil:
					got = append(got, "+"+c.b.Name)
				default:
					got = append(got, "~"+c.a.Name)
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
		cs, ok, err := diffRawTrees(a, b)
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
