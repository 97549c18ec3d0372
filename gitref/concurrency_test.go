package gitref

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/taskproof/taskproof/gitref/internal/packstore"
	"github.com/taskproof/taskproof/internal/testenv"
)

// largeHistory is a packed repository whose objects go-git reads in every way
// it has: tasks files and a directory tree over 16 KiB (which go-git reads
// lazily when its pack reader is given a filesystem), stored as long delta
// chains, small files beside them, and notes over 16 KiB.
type largeHistory struct {
	dir     string
	commits []Hash
	// files[i] is commit i's content of each tasks file, by path.
	files []map[string]string
}

const (
	largeUnits = 3
	largeTasks = 700 // ≈ 27 KiB a tasks file
	largeDir   = 600 // entries of many/: a tree of ≈ 20 KiB
)

func largeTasksFile(unit, ticked int) string {
	var b strings.Builder
	for k := range largeTasks {
		box := " "
		if k < ticked {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] T%04d task %d of unit %d, a line long enough\n", box, k, k, unit)
	}
	return b.String()
}

// newLargeHistory writes n commits with git fast-import: commit i ticks one
// task of unit i%largeUnits and changes one entry of many/; every third
// commit gets a note of ≈ 20 KiB. The repository is then repacked with deep
// delta chains.
func newLargeHistory(t testing.TB, n int) *largeHistory {
	t.Helper()
	dir := t.TempDir()
	testenv.Git(t, dir, "init", "-q", "-b", "main")
	var in bytes.Buffer
	data := func(s string) { fmt.Fprintf(&in, "data %d\n%s\n", len(s), s) }
	ticked := make([]int, largeUnits)
	h := &largeHistory{dir: dir}
	for i := range n {
		u := i % largeUnits
		ticked[u]++
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.invalid> %d +0000\n", i+1, 1700000000+i)
		data(fmt.Sprintf("c%d\n", i))
		if i > 0 {
			fmt.Fprintf(&in, "from :%d\n", i)
		}
		files := map[string]string{}
		for v := range largeUnits {
			p := fmt.Sprintf("specs/%03d-u/tasks.md", v)
			files[p] = largeTasksFile(v, ticked[v])
			if i == 0 || v == u {
				fmt.Fprintf(&in, "M 100644 inline %s\n", p)
				data(files[p])
			}
		}
		if i == 0 {
			for k := range largeDir {
				fmt.Fprintf(&in, "M 100644 inline many/file-%04d\n", k)
				data("0\n")
			}
		}
		fmt.Fprintf(&in, "M 100644 inline many/file-%04d\n", i%largeDir)
		data(fmt.Sprintf("%d\n", i))
		h.files = append(h.files, files)
	}
	for i := 0; i < n; i += 3 {
		fmt.Fprintf(&in, "commit refs/notes/speccoder\ncommitter T <t@example.invalid> %d +0000\n", 1800000000+i)
		data("note") // each commit continues the branch's last one
		fmt.Fprintf(&in, "N inline :%d\n", i+1)
		data(largeNote(i))
	}
	cmd := exec.Command(testenv.LookPath(t, "git"), "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	testenv.Git(t, dir, "repack", "-adq", "--depth=50", "--window=50")
	for _, l := range strings.Fields(testenv.Git(t, dir, "rev-list", "--reverse", "main")) {
		h.commits = append(h.commits, Hash(l))
	}
	if len(h.commits) != n {
		t.Fatalf("%d commits, want %d", len(h.commits), n)
	}
	return h
}

func largeNote(i int) string {
	return strings.Repeat(fmt.Sprintf("note line of commit %d\n", i), 900)
}

// TestConcurrentPackReads: goroutines sharing one Repo, more of them than it
// has handles, read the same large delta-chained objects in different orders
// (files, views, reads past the cache, tree diffs, notes under a size limit)
// through a small object cache that keeps evicting them, while another
// drops the caches and pack indexes; every read is what git stored. At
// GOMAXPROCS 1, 2 and 8 (the pool's size follows it). Run with -race: a pack
// reader, its cache or a handle reached from two goroutines is a report.
func TestConcurrentPackReads(t *testing.T) {
	const n = 60
	h := newLargeHistory(t, n)
	for _, procs := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			r := open(t, h.dir)
			r.store.SetCacheSize(1 << 20)
			notes, err := r.Notes("")
			if err != nil {
				t.Fatal(err)
			}
			const readers = 4
			var wg sync.WaitGroup
			errs := make(chan error, readers+1)
			stop := make(chan struct{})
			for g := range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range n {
						i := (g*29 + k*7) % n
						if err := h.check(r, notes, i, g); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			var churn sync.WaitGroup
			churn.Add(1)
			go func() {
				defer churn.Done()
				for k := 0; ; k++ {
					select {
					case <-stop:
						return
					default:
					}
					switch k % 3 {
					case 0:
						r.dropCaches()
					case 1:
						r.store.Reindex()
					case 2:
						r.store.SetCacheSize(1 << 20)
					}
					time.Sleep(100 * time.Microsecond)
				}
			}()
			wg.Wait()
			close(stop)
			churn.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// check reads commit i's objects the way reader g does (each reader mixes
// the reads differently) and compares them with what was written.
func (h *largeHistory) check(r *Repo, notes *NotesStore, i, g int) error {
	id := h.commits[i]
	c, err := r.Commit(id)
	if err != nil {
		return fmt.Errorf("Commit(%d): %v", i, err)
	}
	// The file the commit ticks and another one.
	for _, u := range []int{i % largeUnits, (i + g + 1) % largeUnits} {
		p := fmt.Sprintf("specs/%03d-u/tasks.md", u)
		want := h.files[i][p]
		var got []byte
		switch (i + g) % 3 {
		case 0:
			got, err = r.File(id, p)
		case 1:
			var fsys fs.FS
			if fsys, err = r.FS(id); err == nil {
				got, err = fs.ReadFile(fsys, p)
			}
		case 2:
			var blob Hash
			if blob, err = r.blobAt(c.Tree, p); err == nil {
				if g%2 == 0 {
					got, err = r.Blob(blob, BlobRead{Once: true})
				} else {
					var v []byte
					if v, err = r.Blob(blob, BlobRead{Shared: true}); err == nil {
						got = bytes.Clone(v)
					}
				}
			}
		}
		if err != nil || string(got) != want {
			return fmt.Errorf("commit %d, %s: %d bytes, %v; want the %d written", i, p, len(got), err, len(want))
		}
	}
	if i > 0 {
		parent, err := r.Commit(c.FirstParent())
		if err != nil {
			return fmt.Errorf("Commit(%d): %v", i-1, err)
		}
		var changed []string
		err = r.DiffTrees(parent.Tree, c.Tree, func(path string, ea, eb *TreeEntry) error {
			if eb != nil && eb.Mode != Directory {
				changed = append(changed, path)
			}
			return nil
		})
		want := []string{fmt.Sprintf("specs/%03d-u/tasks.md", i%largeUnits), fmt.Sprintf("many/file-%04d", i%largeDir)}
		if err != nil || !sameSet(changed, want) {
			return fmt.Errorf("DiffTrees(%d): %q, %v; want %q", i, changed, err, want)
		}
	}
	note, err := notes.Note(id)
	switch {
	case i%3 == 0 && (err != nil || string(note) != largeNote(i)):
		return fmt.Errorf("Note(%d): %d bytes, %v", i, len(note), err)
	case i%3 != 0 && !errors.Is(err, ErrNoNote):
		return fmt.Errorf("Note(%d) = %v, want no note", i, err)
	}
	return nil
}

// blobAt is the id of the entry at path under tree root.
func (r *Repo) blobAt(root Hash, path string) (Hash, error) {
	e, ok, err := r.entryAt(toPlumbing(root), path)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("no %s in %s", path, root)
	}
	return fromPlumbing(e.Hash), nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		if m[s]--; m[s] < 0 {
			return false
		}
	}
	return true
}

// TestPackReadsHandOutMemoryObjects: what the pool's pack readers return is
// held whole in memory, never a go-git object that reads its content later
// through the pack reader's cache (packfile.FSObject): such an object would
// reach a handle's reader from whichever goroutine reads it. Every object of
// a packed repository with objects over 16 KiB, through the cache and past
// it.
func TestPackReadsHandOutMemoryObjects(t *testing.T) {
	h := newLargeHistory(t, 12)
	r := open(t, h.dir)
	var large int
	for _, typ := range []string{"commit", "tree", "blob"} {
		for _, id := range objectsOfType(t, h.dir, typ) {
			o, err := r.object(plumbing.AnyObject, plumbing.NewHash(id))
			if err != nil {
				t.Fatalf("object(%s): %v", id, err)
			}
			once := r.store.ObjectOnce(o.Type(), plumbing.NewHash(id))
			for _, o := range []plumbing.EncodedObject{o, once} {
				if o == nil {
					continue
				}
				if _, lazy := o.(*packfile.FSObject); lazy {
					t.Fatalf("%s %s read as a %T", typ, id, o)
				}
				if _, whole := packstore.ViewObject(o); !whole {
					t.Fatalf("%s %s (%T) is not held in memory", typ, id, o)
				}
				if o.Hash().String() != id {
					t.Fatalf("%s %s carries the id %s", typ, id, o.Hash())
				}
			}
			if o.Size() > 16<<10 {
				large++
			}
		}
	}
	if large < 3 {
		t.Fatalf("%d objects over 16 KiB: the test reads no large object", large)
	}
}
