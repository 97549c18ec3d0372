package gitref

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// gitIn runs git in dir with stdin, returning its trimmed output.
func gitIn(t *testing.T, dir string, stdin io.Reader, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, testenv.GitEnv(), stdin
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// TestPackOrder: PackOrder sorts ids by their offset in the pack that holds
// them (git show-index's offsets), whatever order they are given in; an object
// no pack holds (loose) and an id that does not parse come last, in the order
// given.
func TestPackOrder(t *testing.T) {
	dir := newRepo(t)
	for i := range 6 {
		commitFiles(t, dir, fmt.Sprintf("c%d", i), map[string]string{"notes.txt": strings.Repeat(fmt.Sprintf("line %d\n", i), 40+i)})
	}
	gitOut(t, dir, "repack", "-adq")
	idx, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if err != nil || len(idx) != 1 {
		t.Fatalf("packs: %v %v", idx, err)
	}
	f, err := os.Open(idx[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var packed []Hash // by offset, as git reads the index
	offsets := map[Hash]int64{}
	for _, line := range strings.Split(gitIn(t, dir, f, "show-index"), "\n") {
		fields := strings.Fields(line) // offset id (crc)
		if len(fields) < 2 {
			continue
		}
		off, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		offsets[Hash(fields[1])] = off
		packed = append(packed, Hash(fields[1]))
	}
	slices.SortFunc(packed, func(a, b Hash) int { return int(offsets[a] - offsets[b]) })
	loose := Hash(gitIn(t, dir, strings.NewReader("not packed\n"), "hash-object", "-w", "--stdin"))
	// Given in reverse id order, with the loose object and a bad id first.
	ids := []Hash{"not-an-id", loose}
	byID := slices.Clone(packed)
	slices.Sort(byID)
	slices.Reverse(byID)
	ids = append(ids, byID...)
	r := open(t, dir)
	order, err := r.PackOrder(ids)
	if err != nil {
		t.Fatal(err)
	}
	var got []Hash
	for _, i := range order {
		got = append(got, ids[i])
	}
	want := append(slices.Clone(packed), "not-an-id", loose)
	if !slices.Equal(got, want) {
		t.Errorf("PackOrder:\n got %v\nwant %v", got, want)
	}
	if order, err := r.PackOrder(nil); err != nil || len(order) != 0 {
		t.Errorf("PackOrder(nil) = %v, %v", order, err)
	}
}

// TestSetCommitCacheSize: a smaller budget drops the least recently used
// commits at once and bounds the cache from then on; 0 is the default.
func TestSetCommitCacheSize(t *testing.T) {
	dir := newRepo(t)
	var ids []Hash
	for i := range 8 {
		ids = append(ids, commitFiles(t, dir, fmt.Sprintf("c%d", i), map[string]string{"f": strconv.Itoa(i)}))
	}
	r := open(t, dir)
	for _, id := range ids {
		if _, err := r.Commit(id); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.commits.Len(); n < len(ids) {
		t.Fatalf("default budget: %d commits cached, want %d", n, len(ids))
	}
	one := r.commits.Bytes() / r.commits.Len() // the commits differ by a digit or two of their messages
	r.setCommitCacheSize(3 * one)
	if n := r.commits.Len(); n > 3 || r.commits.Bytes() > 3*one {
		t.Errorf("after setCommitCacheSize(3 commits): %d commits, %d bytes", n, r.commits.Bytes())
	}
	if _, ok := r.commits.Get(toPlumbing(ids[len(ids)-1])); !ok {
		t.Error("the most recently read commit was dropped")
	}
	for _, id := range ids {
		if _, err := r.Commit(id); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.commits.Len(); n > 3 {
		t.Errorf("reading on: %d commits cached, want at most 3", n)
	}
	r.setCommitCacheSize(0)
	for _, id := range ids {
		if _, err := r.Commit(id); err != nil {
			t.Fatal(err)
		}
	}
	if n := r.commits.Len(); n < len(ids) {
		t.Errorf("back to the default: %d commits cached, want %d", n, len(ids))
	}
}
