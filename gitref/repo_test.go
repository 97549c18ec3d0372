package gitref

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/taskproof/taskproof/gitref/internal/gitobj"
	"github.com/taskproof/taskproof/gitref/internal/packstore"
	"github.com/taskproof/taskproof/internal/testenv"
)

func TestOpenAndResolve(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"a/b.txt": "one\n"})
	c2 := commitFiles(t, dir, "two", map[string]string{"a/b.txt": "two\n"})
	testenv.Git(t, dir, "checkout", "-q", "-b", "side", c1.String())
	s1 := commitFiles(t, dir, "side", map[string]string{"s.txt": "side\n"})
	testenv.Git(t, dir, "checkout", "-q", "main")
	testenv.Git(t, dir, "merge", "-q", "--no-ff", "-m", "merge", "side")
	m := Hash(gitOut(t, dir, "rev-parse", "HEAD"))
	testenv.Git(t, dir, "tag", "-a", "-m", "annotated", "v1", c2.String())
	testenv.Git(t, dir, "tag", "light", c1.String())

	sub := filepath.Join(dir, "a")
	r := open(t, sub) // from inside the work tree
	if r.WorkTree() != dir {
		t.Errorf("WorkTree = %s, want %s", r.WorkTree(), dir)
	}
	tests := []struct {
		rev  string
		want Hash
	}{
		{"HEAD", m}, {"main", m}, {"HEAD~1", c2}, {"HEAD~2", c1}, {"HEAD^2", s1},
		{"side", s1}, {"v1", c2}, {"light", c1}, {"refs/heads/side", s1},
		{string(c2[:10]), c2}, {string(c1), c1},
	}
	for _, tt := range tests {
		got, err := r.Resolve(tt.rev)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.rev, got, err, tt.want)
		}
	}
	for _, bad := range []string{"nope", "HEAD~99", "", "0000000000000000000000000000000000000000", "v1:a/b.txt"} {
		if _, err := r.Resolve(bad); !errors.Is(err, ErrUnknownRevision) {
			t.Errorf("Resolve(%q) error = %v, want ErrUnknownRevision", bad, err)
		}
	}

	ranges := []struct {
		spec       string
		base, head Hash
		err        error
	}{
		{"HEAD~2..HEAD", c1, m, nil}, {"main", "", m, nil}, {"side..", s1, m, nil},
		{"..side", m, s1, nil}, {"a...b", "", "", ErrBadRange}, {"x..HEAD", "", "", ErrUnknownRevision},
	}
	for _, tt := range ranges {
		b, h, err := r.ResolveRange(tt.spec)
		if !errors.Is(err, tt.err) || b != tt.base || h != tt.head {
			t.Errorf("ResolveRange(%q) = %q, %q, %v; want %q, %q, %v", tt.spec, b, h, err, tt.base, tt.head, tt.err)
		}
	}

	c, err := r.Commit(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Parents) != 2 || c.FirstParent() != c2 || c.Parents[1] != s1 || c.Message != "merge\n" {
		t.Errorf("Commit(merge) = %+v", c)
	}
	if tree := Hash(gitOut(t, dir, "rev-parse", "HEAD^{tree}")); c.Tree != tree {
		t.Errorf("Tree = %s, want %s", c.Tree, tree)
	}
	b, err := r.File(c1, "a/b.txt")
	if err != nil || string(b) != "one\n" {
		t.Errorf("File(c1, a/b.txt) = %q, %v", b, err)
	}
	for _, p := range []string{"a/missing", "a", "../x", "/a/b.txt", "a//b.txt", ""} {
		if _, err := r.File(c1, p); !errors.Is(err, ErrNotFound) {
			t.Errorf("File(%q) error = %v, want ErrNotFound", p, err)
		}
	}
	if _, err := r.File("zz", "a/b.txt"); !errors.Is(err, gitobj.ErrBadHash) {
		t.Errorf("File(bad hash) error = %v", err)
	}

	fsys, err := r.FS(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "a/b.txt", "s.txt"); err != nil {
		t.Error(err)
	}
}

func TestOpenWorktreeAndBare(t *testing.T) {
	dir := newRepo(t)
	c1 := commitFiles(t, dir, "one", map[string]string{"f": "x\n"})
	wt := filepath.Join(t.TempDir(), "wt")
	testenv.Git(t, dir, "worktree", "add", "-q", "-b", "wtb", wt)
	c2 := commitFiles(t, wt, "in worktree", map[string]string{"g": "y\n"})
	bare := filepath.Join(t.TempDir(), "bare.git")
	testenv.Git(t, "", "clone", "-q", "--bare", dir, bare)

	r := open(t, wt)
	if h, err := r.Resolve("HEAD"); err != nil || h != c2 {
		t.Errorf("worktree HEAD = %s, %v; want %s", h, err, c2)
	}
	if h, err := r.Resolve("main"); err != nil || h != c1 {
		t.Errorf("worktree main = %s, %v; want %s", h, err, c1)
	}
	if r.commonDir != filepath.Join(dir, ".git") {
		t.Errorf("CommonDir = %s", r.commonDir)
	}
	rb := open(t, bare)
	if h, err := rb.Resolve("HEAD"); err != nil || h != c1 || rb.WorkTree() != "" {
		t.Errorf("bare HEAD = %s, %v; want %s", h, err, c1)
	}
}

func TestOpenErrors(t *testing.T) {
	empty := t.TempDir()
	if _, err := Open(empty); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(empty dir) = %v, want ErrNotRepository", err)
	}
	if _, err := Open(filepath.Join(empty, "missing")); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(missing) = %v, want ErrNotRepository", err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, ".git"), []byte("gitdir: /nonexistent\n"), 0o644)
	if _, err := Open(bad); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(bad .git file) = %v, want ErrNotRepository", err)
	}
	v2 := newRepo(t)
	testenv.Git(t, v2, "config", "core.repositoryFormatVersion", "2")
	if _, err := Open(v2); !errors.Is(err, ErrUnsupportedRepository) {
		t.Errorf("Open(format version 2) = %v, want ErrUnsupportedRepository", err)
	}
	sha256 := t.TempDir()
	testenv.Git(t, sha256, "init", "-q", "--object-format=sha256")
	if _, err := Open(sha256); !errors.Is(err, ErrUnsupportedRepository) {
		t.Errorf("Open(sha256 repo) = %v, want ErrUnsupportedRepository", err)
	}
}

// TestOpenConfig: repository configuration git reads and go-git refused
// (exit 5 on every command) opens and reads: the extensions that change
// nothing for a reader (worktreeConfig, as `git sparse-checkout init` sets it;
// preciousObjects; partialClone; objectFormat sha1), any extension at format
// 0 (git reads none), fetch refspecs go-git cannot parse (a negative one, a
// source without destination). An extension taskproof does not know, at
// format 1, is ErrUnsupportedRepository, as git refuses it.
func TestOpenConfig(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config [][2]string // git config --add KEY VALUE, in order (the format version replaced)
		ok     bool
	}{
		{"worktreeConfig at 0", [][2]string{{"core.repositoryFormatVersion", "0"}, {"extensions.worktreeConfig", "true"}}, true},
		{"worktreeConfig at 1", [][2]string{{"core.repositoryFormatVersion", "1"}, {"extensions.worktreeConfig", "true"}}, true},
		{"preciousObjects at 0", [][2]string{{"core.repositoryFormatVersion", "0"}, {"extensions.preciousObjects", "true"}}, true},
		{"partialClone at 1", [][2]string{{"core.repositoryFormatVersion", "1"}, {"extensions.partialClone", "origin"}}, true},
		{"objectFormat sha1 at 1", [][2]string{{"core.repositoryFormatVersion", "1"}, {"extensions.objectFormat", "sha1"}}, true},
		{"unknown at 0", [][2]string{{"core.repositoryFormatVersion", "0"}, {"extensions.frobnicate", "true"}}, true},
		{"unknown at 1", [][2]string{{"core.repositoryFormatVersion", "1"}, {"extensions.frobnicate", "true"}}, false},
		{"refspecs go-git refuses", [][2]string{{"remote.origin.url", "https://example.invalid/r.git"},
			{"remote.origin.fetch", "^refs/heads/dependabot/*"}, {"remote.origin.fetch", "refs/heads/main"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t)
			c := commitFiles(t, dir, "one", map[string]string{"f": "x"})
			for _, kv := range tc.config {
				if kv[0] == "core.repositoryFormatVersion" {
					testenv.Git(t, dir, "config", kv[0], kv[1])
					continue
				}
				testenv.Git(t, dir, "config", "--add", kv[0], kv[1])
			}
			r, err := Open(dir)
			if !tc.ok {
				if !errors.Is(err, ErrUnsupportedRepository) {
					t.Errorf("Open = %v, want ErrUnsupportedRepository", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer r.Close()
			if b, err := r.File(c, "f"); err != nil || string(b) != "x" {
				t.Errorf("File = %q, %v", b, err)
			}
		})
	}
}

// TestRangeSet compares rangeSet with `git rev-list base..head` on a history
// with branches and merges, with increasing, equal and backward dates.
func TestRangeSet(t *testing.T) {
	dir := newRepo(t)
	at := func(when string, args ...string) Hash {
		gitAt(t, dir, when, args...)
		return Hash(gitOut(t, dir, "rev-parse", "HEAD"))
	}
	ci := func(when, msg string) Hash { return at(when, "commit", "-q", "--allow-empty", "-m", msg) }
	m1 := ci("2025-01-01T00:00:00Z", "m1")
	m2 := ci("2025-01-02T00:00:00Z", "m2")
	m3 := ci("2025-01-03T00:00:00Z", "m3")
	testenv.Git(t, dir, "checkout", "-q", "-b", "side", m2.String())
	s1 := ci("2025-01-04T00:00:00Z", "s1")
	testenv.Git(t, dir, "checkout", "-q", "main")
	m4 := at("2025-01-05T00:00:00Z", "merge", "-q", "--no-ff", "-m", "m4 merge side", "side")
	testenv.Git(t, dir, "checkout", "-q", "-b", "feat", m3.String())
	f1 := ci("2025-01-06T00:00:00Z", "f1")
	testenv.Git(t, dir, "checkout", "-q", "main")
	m5 := ci("2025-01-07T00:00:00Z", "m5")
	testenv.Git(t, dir, "checkout", "-q", "feat")
	fm := at("2025-01-08T00:00:00Z", "merge", "-q", "--no-ff", "-m", "merge main", "main")
	f2 := ci("2025-01-09T00:00:00Z", "f2")
	testenv.Git(t, dir, "checkout", "-q", "main")
	m6 := ci("2025-01-10T00:00:00Z", "m6")
	// dates going backwards, and several commits sharing one date
	old := ci("2024-06-01T00:00:00Z", "dated before its parent")
	e1 := ci("2025-02-01T00:00:00Z", "e1")
	e2 := ci("2025-02-01T00:00:00Z", "e2")
	testenv.Git(t, dir, "checkout", "-q", "-b", "late", m1.String())
	l1 := ci("2025-02-01T00:00:00Z", "l1")
	_ = []Hash{m4, m5, fm, f1, s1}

	name := func(h Hash) string {
		if h == "" {
			return `""`
		}
		return gitOut(t, dir, "log", "-1", "--format=%s", string(h))
	}
	names := func(ids []string) []string {
		var out []string
		for _, id := range ids {
			out = append(out, name(Hash(id)))
		}
		return out
	}
	r := open(t, dir)
	cases := []struct{ base, head Hash }{
		{"", f2}, {m6, f2}, {m3, f2}, {m5, f2}, {f2, m6}, {m6, m6}, {m1, m6}, {f1, m4},
		{old, e2}, {m6, e2}, {e1, e2}, {e2, l1}, {l1, e2}, {f2, e2}, {e2, f2}, {m2, l1},
	}
	for _, tc := range cases {
		var want []string
		if tc.base == "" {
			want = strings.Fields(gitOut(t, dir, "rev-list", tc.head.String()))
		} else {
			want = strings.Fields(gitOut(t, dir, "rev-list", tc.base.String()+".."+tc.head.String()))
		}
		got, err := r.rangeSet(toPlumbing(tc.base), toPlumbing(tc.head))
		if err != nil {
			t.Fatalf("rangeSet(%s, %s): %v", tc.base, tc.head, err)
		}
		var ids []string
		for h, n := range got {
			c, err := r.commit(fromPlumbing(h))
			if err != nil {
				t.Fatal(err)
			}
			if n == nil || n.Tree != c.TreeHash || !slices.Equal(n.Parents, c.ParentHashes) || !n.When.Equal(c.Committer.When) {
				t.Errorf("rangeSet(%s, %s): entry %s holds %+v, not its commit", tc.base, tc.head, h, n)
			}
			ids = append(ids, h.String())
		}
		slices.Sort(ids)
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Errorf("rangeSet(%s, %s) = %s\nwant (git rev-list) %s", name(tc.base), name(tc.head), names(ids), names(want))
		}
		// rangeCommits (on rangeSet) lists the same commits in the same order as
		// excluding base's whole history did.
		for _, fp := range []bool{false, true} {
			got, err := r.rangeCommits(tc.base, tc.head, fp)
			if err != nil {
				t.Fatalf("rangeCommits(%s, %s, %v): %v", name(tc.base), name(tc.head), fp, err)
			}
			ref, err := r.rangeCommitsFull(tc.base, tc.head, fp)
			if err != nil {
				t.Fatalf("rangeCommitsFull(%s, %s, %v): %v", name(tc.base), name(tc.head), fp, err)
			}
			var g, w []string
			for i := range got.Len() {
				g = append(g, got.ID(i).String())
				c, err := r.Commit(got.ID(i))
				if err != nil {
					t.Fatal(err)
				}
				if l := got.Link(i); l.ID != c.ID || l.Tree != c.Tree || !slices.Equal(l.Parents, c.Parents) {
					t.Errorf("rangeCommits(%s, %s, %v): commit %d listed as %+v, want %+v", name(tc.base), name(tc.head), fp, i, l, c.Link)
				}
			}
			for i := range ref.Len() {
				w = append(w, ref.ID(i).String())
			}
			if !slices.Equal(g, w) {
				t.Errorf("rangeCommits(%s, %s, firstParent %v) = %s\nwant %s", name(tc.base), name(tc.head), fp, names(g), names(w))
			}
		}
	}
	if _, err := r.rangeSet(plumbing.ZeroHash, toPlumbing(Hash(strings.Repeat("1", 40)))); !errors.Is(err, ErrNotFound) {
		t.Errorf("rangeSet(missing head) = %v, want ErrNotFound", err)
	}
}

// BenchmarkRangeSet: the 3 newest commits of a 10,000-commit history, by
// rangeSet and by excluding base's whole history (rangeCommitsFull).
func BenchmarkRangeSet(b *testing.B) {
	dir, ids := manyCommits(b, 10000, nil)
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	base, head := ids[len(ids)-4], ids[len(ids)-1]
	b.Run("rangeSet", func(b *testing.B) {
		for b.Loop() {
			s, err := r.rangeSet(toPlumbing(base), toPlumbing(head))
			if err != nil || len(s) != 3 {
				b.Fatal(len(s), err)
			}
		}
	})
	b.Run("fullExclusion", func(b *testing.B) {
		for b.Loop() {
			s, err := r.rangeCommitsFull(base, head, false)
			if err != nil || s.Len() != 3 {
				b.Fatal(s, err)
			}
		}
	})
}

// TestConcurrentReaders shares one Repo between more goroutines than its pool
// has storages: they read commits, files (File and FS), notes, revisions and
// ranges while one of them writes notes through the same Repo and another
// drops the pack indexes. Run with -race.
func TestConcurrentReaders(t *testing.T) {
	const n = 300
	dir, ids := manyCommits(t, n, func(i int) (string, string) {
		return fmt.Sprintf("specs/%03d-f/tasks.md", i%7), fmt.Sprintf("- [ ] T%03d task %d\n", i, i)
	})
	for i := 0; i < n; i += 3 {
		testenv.Git(t, dir, "notes", "--ref", "speccoder", "add", "-m", "note "+string(ids[i]), string(ids[i]))
	}
	r := open(t, dir)
	s, err := r.Notes("")
	if err != nil {
		t.Fatal(err)
	}
	const readers = 8
	var wg sync.WaitGroup
	errs := make(chan error, readers+2)
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 3 * n / readers {
				i := (g*37 + k*11) % n
				id := ids[i]
				c, err := r.Commit(id)
				if err != nil || c.ID != id || (i > 0 && c.FirstParent() != ids[i-1]) || c.Message != fmt.Sprintf("c%d\n", i%10) {
					errs <- fmt.Errorf("Commit(%d) = %+v, %v", i, c, err)
					return
				}
				p := fmt.Sprintf("specs/%03d-f/tasks.md", i%7)
				want := fmt.Sprintf("- [ ] T%03d task %d\n", i, i)
				if b, err := r.File(id, p); err != nil || string(b) != want {
					errs <- fmt.Errorf("File(%d, %s) = %q, %v; want %q", i, p, b, err, want)
					return
				}
				fsys, err := r.FS(id)
				if err != nil {
					errs <- err
					return
				}
				if b, err := fs.ReadFile(fsys, p); err != nil || string(b) != want {
					errs <- fmt.Errorf("FS(%d).ReadFile(%s) = %q, %v", i, p, b, err)
					return
				}
				note, err := s.Note(id)
				switch {
				case i%3 == 0 && (err != nil || !strings.HasPrefix(string(note), "note "+string(id)+"\n")):
					errs <- fmt.Errorf("Note(%d) = %q, %v", i, note, err)
					return
				case i%3 != 0 && err != nil && !errors.Is(err, ErrNoNote):
					errs <- fmt.Errorf("Note(%d) = %v", i, err)
					return
				}
				if h, err := r.Resolve(fmt.Sprintf("main~%d", n-1-i)); err != nil || h != id {
					errs <- fmt.Errorf("Resolve(main~%d) = %s, %v; want %s", n-1-i, h, err, id)
					return
				}
				if k%25 == 0 {
					if got, err := r.rangeSet(toPlumbing(ids[max(i-3, 0)]), toPlumbing(id)); err != nil || len(got) != min(i, 3) {
						errs <- fmt.Errorf("rangeSet(%d) = %d commits, %v", i, len(got), err)
						return
					}
				}
			}
		}()
	}
	wg.Add(2)
	go func() { // a writer sharing the Repo
		defer wg.Done()
		for i := 1; i < n; i += 20 {
			if _, err := s.Update(ids[i], addLine("concurrent")); err != nil {
				errs <- fmt.Errorf("Update(%d): %v", i, err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for range 20 {
			r.store.Reindex()
			time.Sleep(time.Millisecond)
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := 1; i < n; i += 20 {
		want := "concurrent"
		if i%3 == 0 {
			want = "note " + string(ids[i]) + "\n" + want
		}
		if got := gitOut(t, dir, "notes", "--ref", "speccoder", "show", string(ids[i])); got != want {
			t.Errorf("note of %d = %q, want %q", i, got, want)
		}
	}
	r.Close()
	if _, err := r.Commit(ids[0]); err == nil {
		t.Error("Commit after Close succeeded")
	}
}

// TestListFSConcurrentWriters: listing objects/pack while files appear and
// vanish there never fails (go-billy's ReadDir fails, and go-git then reads
// the failure as "no packs" and reports every packed object missing: the cause
// of TestNotesConcurrentWriters' flake), and a pack whose index is not written
// yet is not listed.
func TestListFSConcurrentWriters(t *testing.T) {
	dir, ids := manyCommits(t, 200, nil) // over fast-import's unpack limit: packed
	packDir := filepath.Join(dir, ".git", "objects", "pack")
	// A pack being written: git renames the .pack into place before the .idx.
	if err := os.WriteFile(filepath.Join(packDir, "pack-"+strings.Repeat("ab", 20)+".pack"), []byte("PACK"), 0o444); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	churned := make(chan struct{})
	go func() { // what go-git's loose-object writer does in objects/pack
		defer close(churned)
		var live []string
		for {
			select {
			case <-stop:
				return
			default:
			}
			f, err := os.CreateTemp(packDir, "tmp_obj_")
			if err != nil {
				continue
			}
			f.Close()
			if live = append(live, f.Name()); len(live) > 50 {
				os.Remove(live[0])
				live = live[1:]
			}
		}
	}()
	defer func() { close(stop); <-churned }()
	lfs := packstore.FS{Filesystem: osfs.New(filepath.Join(dir, ".git"))}
	for i := range 300 {
		fis, err := lfs.ReadDir("objects/pack")
		if err != nil {
			t.Fatalf("ReadDir: %v", err)
		}
		packs := 0
		for _, fi := range fis {
			if strings.HasPrefix(fi.Name(), "pack-") && strings.HasSuffix(fi.Name(), ".pack") {
				packs++
			}
		}
		if packs != 1 {
			t.Fatalf("ReadDir listed %d packs, want 1 (the one with an index)", packs)
		}
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Commit(ids[i%len(ids)])
		r.Close()
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
	}
}

// TestFileMalformedCommit: File reads the tree from the commit's first line and
// refuses a commit that does not start with one.
func TestFileMalformedCommit(t *testing.T) {
	dir := newRepo(t)
	c := commitFiles(t, dir, "one", map[string]string{"f": "x\n"})
	tree := gitOut(t, dir, "rev-parse", c.String()+"^{tree}")
	write := func(body string) Hash {
		cmd := exec.Command("git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin")
		cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), strings.NewReader(body)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return Hash(strings.TrimSpace(string(out)))
	}
	r := open(t, dir)
	if b, err := r.File(c, "f"); err != nil || string(b) != "x\n" {
		t.Fatalf("File = %q, %v", b, err)
	}
	for _, body := range []string{
		"author A <a@b> 0 +0000\ntree " + tree + "\n\nno tree first\n",
		"tree " + strings.ToUpper(tree) + "\n\nupper case\n",
		"tree " + tree[:39] + "\n\nshort\n",
		"tree",
	} {
		id := write(body)
		if _, err := r.File(id, "f"); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("File(commit %q) = %v, want a malformed-commit error", body, err)
		}
	}
	if _, err := r.File(Hash(tree), "f"); !errors.Is(err, ErrNotFound) {
		t.Errorf("File(tree id) = %v, want ErrNotFound", err)
	}
}
