package packstore

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"hash"
	"os"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestKeyedObject: the id the object cache computes is git's object id (plumbing.ComputeHash) for every type and size, and an object
// whose content is shorter than its size keeps plumbing's zero id.
func TestKeyedObject(t *testing.T) {
	for _, c := range []struct {
		typ     plumbing.ObjectType
		content string
	}{
		{plumbing.BlobObject, ""}, {plumbing.BlobObject, "- [x] T001 Done\n"},
		{plumbing.TreeObject, "100644 tasks.md\x00" + strings.Repeat("\x01", 20)},
		{plumbing.CommitObject, "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n"},
		{plumbing.BlobObject, strings.Repeat("x", 100_000)},
	} {
		o := &plumbing.MemoryObject{}
		o.SetType(c.typ)
		if _, err := o.Write([]byte(c.content)); err != nil {
			t.Fatal(err)
		}
		want := plumbing.ComputeHash(c.typ, []byte(c.content))
		k, ok := keyedObject(o, newKeyHash)
		if got := k.Hash(); !ok || got != want {
			t.Errorf("%s of %d bytes: id %s, want %s", c.typ, len(c.content), got, want)
		}
	}
	short := &plumbing.MemoryObject{}
	short.SetType(plumbing.BlobObject)
	short.SetSize(10)
	if _, err := short.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	short.SetSize(10)
	if k, _ := keyedObject(short, newKeyHash); !k.Hash().IsZero() {
		got := k.Hash()
		t.Errorf("short object: id %s, want the zero id", got)
	}
}

// TestViewObject: a memory object's content is viewed without a copy (the
// same bytes), through the object cache's wrapper too; an empty object is not
// viewed (the caller reads it).
func TestViewObject(t *testing.T) {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TreeObject)
	if _, err := o.Write([]byte("100644 a\x00" + strings.Repeat("\x02", 20))); err != nil {
		t.Fatal(err)
	}
	k, _ := keyedObject(o, newKeyHash)
	for _, obj := range []plumbing.EncodedObject{o, k} {
		b, ok := ViewObject(obj)
		if !ok || int64(len(b)) != o.Size() {
			t.Fatalf("ViewObject(%T) = %d bytes, %v", obj, len(b), ok)
		}
		rd, _ := o.Reader()
		want := make([]byte, o.Size())
		if _, err := rd.Read(want); err != nil || string(want) != string(b) {
			t.Fatalf("ViewObject(%T) = %q, want %q", obj, b, want)
		}
	}
	if _, ok := ViewObject(&plumbing.MemoryObject{}); ok {
		t.Error("ViewObject(empty) ok")
	}
}

// shatteredPrefixes are the first 320 bytes of the SHAttered PDFs
// (shattered.io): two different messages with one SHA-1, the near-collision
// blocks at bytes 192–319.
func shatteredPrefixes(t *testing.T) (a, b []byte) {
	t.Helper()
	read := func(name string) []byte {
		h, err := os.ReadFile("testdata/collision/" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := hex.DecodeString(strings.Join(strings.Fields(string(h)), ""))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return read("shattered-1.prefix.hex"), read("shattered-2.prefix.hex")
}

// TestKeyHashDetectsCollisions: the cache keys objects by a SHA-1 that detects
// collision attacks. crypto/sha1 gives the two SHAttered messages one digest,
// so a cache keyed by it could serve one for the other; the key hash reports
// both as collisions, and nothing else.
func TestKeyHashDetectsCollisions(t *testing.T) {
	a, b := shatteredPrefixes(t)
	if bytes.Equal(a, b) || sha1.Sum(a) != sha1.Sum(b) {
		t.Fatal("test vectors: not two messages with one crypto/sha1 digest")
	}
	for i, m := range [][]byte{a, b} {
		h := newKeyHash()
		h.Write(m)
		cs, ok := h.(collisionSum)
		if !ok {
			t.Fatalf("newKeyHash() is a %T, which reports no collisions", h)
		}
		if _, collided := cs.CollisionResistantSum(nil); !collided {
			t.Errorf("message %d: no collision detected", i+1)
		}
	}
	h := newKeyHash()
	h.Write(append(bytes.Clone(a[:192]), bytes.Repeat([]byte{0}, 128)...))
	if _, collided := h.(collisionSum).CollisionResistantSum(nil); collided {
		t.Error("a collision detected in a message without one")
	}
}

// collidingHash is a SHA-1 that reports every message as a collision.
type collidingHash struct{ hash.Hash }

func (c collidingHash) CollisionResistantSum(b []byte) ([]byte, bool) { return c.Sum(b), true }

// TestCacheRefusesCollisions: an object whose key hash reports a collision is
// not cached, so a later read takes it from its pack under the id the pack
// index gives it, not from the cache under its content's SHA-1.
func TestCacheRefusesCollisions(t *testing.T) {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.BlobObject)
	if _, err := o.Write([]byte("content\n")); err != nil {
		t.Fatal(err)
	}
	if _, ok := keyedObject(o, func() hash.Hash { return collidingHash{sha1.New()} }); ok {
		t.Fatal("keyedObject accepted an object whose hash reported a collision")
	}
	if _, ok := keyedObject(o, sha1.New); ok {
		t.Fatal("keyedObject accepted a key hash that cannot report collisions")
	}
	c := NewObjectCache(1 << 20)
	c.Put(o)
	if _, ok := c.Get(plumbing.ComputeHash(plumbing.BlobObject, []byte("content\n"))); !ok {
		t.Fatal("an ordinary object was not cached")
	}
}
