package gfm

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/taskproof/taskproof/internal/testenv"
)

// task is a box of Read's as the tests name it: its line (1-based), the
// column of its inner character, what it holds, the line's text, the first
// token after the box (the tests write IDs there), and the line that checks
// its item (CheckedBy).
type task struct {
	ID        string
	LineNo    int
	BoxCol    int
	Box       byte
	Line      string
	CheckedBy int
}

// Ticked is GitHub's reading of the box: it holds "x" or "X", its line holds
// "[x]" or "[X]" anywhere, or a later line checks its item.
func (t task) Ticked() bool {
	return t.Box == 'x' || t.Box == 'X' || t.CheckedBy > 0 || strings.Contains(t.Line, "[x]") || strings.Contains(t.Line, "[X]")
}

// Open is !Ticked.
func (t task) Open() bool { return !t.Ticked() }

// tasksOf is Read's boxes of content as tasks.
func tasksOf(content []byte) ([]task, error) {
	lines, err := Read(content, false)
	if err != nil {
		return nil, err
	}
	var out []task
	for i, l := range lines {
		if l.Box < 0 {
			continue
		}
		id := strings.TrimLeft(l.Text[l.Box+2:], " \t")
		if j := strings.IndexAny(id, " \t"); j >= 0 {
			id = id[:j]
		}
		out = append(out, task{ID: id, LineNo: i + 1, BoxCol: l.Box, Box: l.Text[l.Box], Line: l.Text, CheckedBy: l.CheckedBy})
	}
	return out, nil
}

// taskLinesOracle splits content into lines as Read numbers them: a leading
// BOM dropped, lines ending at "\n", "\r\n" or a lone "\r", a final ending
// not making an empty line.
func taskLinesOracle(content []byte) []string {
	s := strings.TrimPrefix(string(content), bom)
	if s == "" {
		return nil
	}
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// fuzzSeeds are files with what hides or looks like a task line.
var fuzzSeeds = []string{
	"",
	"- [ ] T001 Create project\n* [x] T002 [P] [US1] Tests\r\n",
	"\ufeff# Tasks\r\n\r\n## 1. Setup\r\n- [X] 1.1 Do\r\n  - [-] 1.1.1 Sub\r\n",
	"```\n- [ ] T001 fenced\n```\n<!--\n- [ ] 1.1 commented\n-->\n~~~~\n",
	"- [ ] 1. 親\n  - _Requirements: 1.2, 3.4_\n  - [x] 1.1 子\n- [ ] 1.2 flat\n",
	"- [P] tasks = x\n- [ ] no id\n- [ ]\n1) [x] 2.3.1. deep\n\t+ [ ]\tT9\ttab\n",
	"<!-- a --> <!-- b\n- [ ] 1 x\n--> - [ ] 2 y\n",
}

// tasksFileBlobs is every version of every file named tasks.md (any case)
// in the history of the shared corpus name, cloned with the real git: blob
// id → content.
func tasksFileBlobs(t *testing.T, name string) map[string][]byte {
	t.Helper()
	dir := testenv.CloneBundle(t, name)
	var want []string
	seen := map[string]bool{}
	for _, line := range strings.Split(testenv.Git(t, dir, "rev-list", "--all", "--objects"), "\n") {
		id, p, ok := strings.Cut(line, " ")
		if !ok || seen[id] || !strings.EqualFold(p[strings.LastIndexByte(p, '/')+1:], "tasks.md") {
			continue
		}
		seen[id] = true
		want = append(want, id)
	}
	cmd := exec.Command(testenv.LookPath(t, "git"), "cat-file", "--batch")
	cmd.Dir, cmd.Env = dir, testenv.GitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(want, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch: %v", err)
	}
	blobs := map[string][]byte{}
	br := bufio.NewReader(bytes.NewReader(out))
	for range want {
		hdr, err := br.ReadString('\n')
		f := strings.Fields(hdr)
		if err != nil || len(f) != 3 {
			t.Fatalf("cat-file header %q: %v", hdr, err)
		}
		n, _ := strconv.Atoi(f[2])
		b := make([]byte, n+1)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatalf("reading blob %s: %v", f[0], err)
		}
		blobs[f[0]] = b[:n]
	}
	return blobs
}
